package patterns

// The differential suite's sources and cases, one entry per language (see
// differential_test.go). Each source is realistic code with near-misses:
// the same words in comments and strings, and shapes that differ by one
// detail.

var diffLangs = []diffLang{
	{lang: "go", ag: "go", ext: ".go", src: `package store

import (
	"errors"
	"fmt"
)

// if err != nil { return err } in a comment
type Store struct{ items map[string]int }

func (s *Store) Get(key string) (int, error) {
	v, ok := s.items[key]
	if !ok {
		return 0, fmt.Errorf("missing %q: %w", key, errors.New("not found"))
	}
	return v, nil
}

func (s *Store) Load(keys []string) error {
	for _, k := range keys {
		if _, err := s.Get(k); err != nil {
			return err
		}
	}
	switch len(keys) {
	case 0:
		return errors.New("no keys")
	case 1, 2:
		fmt.Println("few")
	}
	msg := "fmt.Println(keys)"
	fmt.Println(msg, len(keys))
	f := func(x int) int { return x * 2 }
	_ = f(len(keys)) == f(len(keys))
	return nil
}
`, cases: []diffCase{
		{pattern: "if $C { $$$ }"},
		{pattern: "for $K, $V := range $X { $$$ }"},
		{pattern: "for _, $V := range $X { $$$BODY }"},
		{pattern: "switch $X { $$$ }"},
		{pattern: "func ($R *Store) $M($$$P) $T { $$$ }"},
		{pattern: "func ($R *Store) $M($$$P) ($$$T) { $$$ }"},
		{pattern: "fmt.Println($$$ARGS)", rewrite: "log.Print($$$ARGS)",
			peer: "func _() { fmt.Println($$$ARGS) }", peerSel: "call_expression"},
		{pattern: "fmt.Errorf($F, $$$)", peer: "func _() { fmt.Errorf($F, $$$) }", peerSel: "call_expression"},
		{pattern: "$S.Get($K)", peer: "func _() { $S.Get($K) }", peerSel: "call_expression"},
		{pattern: "$X := $Y"},
		{pattern: "$A == $A"},
		{pattern: "import ($$$)"},
		{pattern: "func($X int) int { $$$ }"},
		{pattern: "return $$$"},
		{pattern: "if err != nil { return err }"},
		{pattern: "func ($R *Store) $M($$$) error { $$$ }"},
		{pattern: "switch $X { case $V: $$$ }", differ: "before a closing brace we ignore more siblings like the pattern's last one (the other cases), as children after the pattern's last are ignored elsewhere; ast-grep requires the same number of cases",
			want: []string{"switch len(keys) {\n\tcase 0:\n\t\treturn errors.New(\"no keys\")\n\tcase 1, 2:\n\t\tfmt.Println(\"few\")\n\t}"}},
		{pattern: "switch $X := $Y.(type) { case $T: $$$ }"},
	}},
	{lang: "python", ag: "python", ext: ".py", src: `import os
from typing import Optional

USAGE = """
usage: load PATH
"""

# if x is None: return  (a comment)
@dataclass(frozen=True)
class Config(Base):
    name: str
    path: Optional[str] = None

    @property
    def full(self):
        if self.path is None:
            return self.name
        return os.path.join(self.path, self.name)


def load(path, *, strict=False):
    """Read path.

    Returns a Config, or None.
    """
    try:
        with open(path) as fh:
            data = fh.read()
    except OSError as e:
        print("cannot read", path, e)
        return None
    for line in data.splitlines():
        if line == line:
            print(f"{line}")
    square = lambda x: x * x
    print("print(path)")
    return Config(name=os.path.basename(path), path=path)
`, cases: []diffCase{
		{pattern: "if $X is None: $$$"},
		{pattern: "for $V in $XS: $$$"},
		{pattern: "try:\n    $$$\nexcept $E as $N:\n    $$$"},
		{pattern: "try: $$$ except $E as $N: $$$", differ: "ast-grep parses it with an ERROR and matches nothing; we refuse it and say where", want: []string{"error: unparseable"}},
		{pattern: "class $C($B): $$$"},
		{pattern: "def $F($$$P): $$$"},
		{pattern: "print($$$ARGS)", rewrite: "logger.info($$$ARGS)"},
		{pattern: "$O.read()"},
		{pattern: "$X = $Y"},
		{pattern: "$A == $A"},
		{pattern: "@property"},
		{pattern: "from $M import $N"},
		{pattern: "lambda $X: $E"},
		{pattern: "with open($P) as $F: $$$"},
		{pattern: "os.path.join($$$)"},
		// A string over several lines is compared as written, at the
		// top level and nested (the statement scaffold indents the
		// pattern's lines, not the string's).
		{pattern: "$N = \"\"\"\nusage: load PATH\n\"\"\""},
		{pattern: "\"\"\"Read path.\n\n    Returns a Config, or None.\n    \"\"\""},
	}},

	{lang: "c", ag: "c", ext: ".c", src: `#include <stdio.h>
#include "list.h"
#if defined(__linux__) && !defined(NO_LIST)
#define HAVE_LIST 1
#endif

/* if (p == NULL) { return -1; } in a comment */
static int count(struct node *head, int limit) {
	int n = 0;
	if (head == NULL) {
		return -1;
	}
	for (struct node *p = head; p != NULL; p = p->next) {
		n++;
	}
	while (n > limit) {
		n--;
	}
	switch (n) {
	case 0:
		printf("empty\n");
		break;
	default:
		printf("%d items, %s\n", n, "printf(x)");
	}
	free(head);
	n = n == n ? n : 0;
	return n;
}
`, cases: []diffCase{
		{pattern: "if ($X == NULL) { $$$ }"},
		{pattern: "for ($$$) { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"for (struct node *p = head; p != NULL; p = p->next) {\n\t\tn++;\n\t}"}},
		{pattern: "while ($C) { $$$ }"},
		{pattern: "switch ($X) { $$$ }"},
		{pattern: "static int $F($$$P) { $$$ }"},
		{pattern: "printf($$$ARGS)", rewrite: "log_info($$$ARGS)", differ: "ast-grep reads a call alone at the top level of a C file as a declaration and finds nothing; we read it as a call statement",
			want: []string{"printf(\"empty\\n\")", "printf(\"%d items, %s\\n\", n, \"printf(x)\")"}},
		{pattern: "free($P)", differ: "ast-grep reads a call alone at the top level of a C file as a declaration and finds nothing; we read it as a call statement",
			want: []string{"free(head)"}},
		{pattern: "$X = $Y"},
		{pattern: "$A == $A"},
		{pattern: "#include <$H>"},
		{pattern: "$P->next"},
		{pattern: "return $X;"},
		// An #if's condition: ast-grep reads defined(…) alone as a call.
		{pattern: "defined($A) && !defined($B)", peer: "#if defined($A) && !defined($B)\n#endif", peerSel: "binary_expression"},
		{pattern: "!defined($A)", peer: "#if !defined($A)\n#endif", peerSel: "unary_expression"},
	}},
	{lang: "cpp", ag: "cpp", ext: ".cpp", src: `#include <vector>
#include <string>

// if (ptr == nullptr) { return; } in a comment
namespace app {

template <typename T>
class Cache : public Base {
public:
	void put(const std::string &key, T value) {
		if (value == nullptr) {
			return;
		}
		for (auto &e : entries_) {
			e.touch();
		}
		try {
			entries_.push_back(Entry{key, value});
		} catch (const std::exception &e) {
			log("put failed: %s", e.what());
		}
		auto cmp = [](int a, int b) { return a < b; };
		size_ = size_ == size_ ? size_ + 1 : 0;
	}
private:
	std::vector<Entry> entries_;
	int size_ = 0;
};

template <class L1, class... L>
struct Union {
	using type = typename union_impl<L1, append<list<>, L...>>::type;
};

}  // namespace app
`, cases: []diffCase{
		{pattern: "if ($X == nullptr) { $$$ }"},
		{pattern: "for (auto &$E : $C) { $$$ }"},
		{pattern: "try { $$$ } catch ($$$) { $$$ }"},
		{pattern: "class $C : public $B { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"class Cache : public Base {\npublic:\n\tvoid put(const std::string &key, T value) {\n\t\tif (value == nullptr) {\n\t\t\treturn;\n\t\t}\n\t\tfor (auto &e : entries_) {\n\t\t\te.touch();\n\t\t}\n\t\ttry {\n\t\t\tentries_.push_back(Entry{key, value});\n\t\t} catch (const std::exception &e) {\n\t\t\tlog(\"put failed: %s\", e.what());\n\t\t}\n\t\tauto cmp = [](int a, int b) { return a < b; };\n\t\tsize_ = size_ == size_ ? size_ + 1 : 0;\n\t}\nprivate:\n\tstd::vector<Entry> entries_;\n\tint size_ = 0;\n}"}},
		{pattern: "void $M($$$P) { $$$ }"},
		{pattern: "log($$$ARGS)", rewrite: "LOG($$$ARGS)"},
		{pattern: "$R.push_back($X)"},
		{pattern: "$X = $Y"},
		{pattern: "$A == $A"},
		{pattern: "#include <$H>"},
		{pattern: "[]($$$P) { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"[](int a, int b) { return a < b; }"}},
		{pattern: "template <typename $T>\n$$$"},
		// Read alone, L1 is an expression's identifier; in the code it
		// is a type (a type_descriptor holding a type_identifier).
		{pattern: "$A<L1, $B<list<>, L...>>::$C"},
	}},
	{lang: "c-sharp", ag: "csharp", ext: ".cs", src: `using System;
using System.Collections.Generic;

// if (x == null) { return; } in a comment
namespace Shop
{
    [Serializable]
    public class Cart : ICart
    {
        private readonly List<Item> items = new List<Item>();

        public void Add(Item item, int count)
        {
            if (item == null)
            {
                throw new ArgumentNullException(nameof(item));
            }
            foreach (var i in items)
            {
                Console.WriteLine("have {0}", i.Name);
            }
            try
            {
                items.Add(item);
            }
            catch (InvalidOperationException e)
            {
                Console.WriteLine("Console.WriteLine(e)");
            }
            var total = items.Where(x => x.Price > 0).Count();
            count = count == count ? count : 0;
        }
    }
}
`, cases: []diffCase{
		{pattern: "if ($X == null) { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"if (item == null)\n            {\n                throw new ArgumentNullException(nameof(item));\n            }"}},
		{pattern: "foreach (var $V in $C) { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"foreach (var i in items)\n            {\n                Console.WriteLine(\"have {0}\", i.Name);\n            }"}},
		{pattern: "try { $$$ } catch ($T $E) { $$$ }"},
		{pattern: "public class $C : $B { $$$ }"},
		{pattern: "public void $M($$$P) { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"public void Add(Item item, int count)\n        {\n            if (item == null)\n            {\n                throw new ArgumentNullException(nameof(item));\n            }\n            foreach (var i in items)\n            {\n                Console.WriteLine(\"have {0}\", i.Name);\n            }\n            try\n            {\n                items.Add(item);\n            }\n            catch (InvalidOperationException e)\n            {\n                Console.WriteLine(\"Console.WriteLine(e)\");\n            }\n            var total = items.Where(x => x.Price > 0).Count();\n            count = count == count ? count : 0;\n        }"}},
		{pattern: "Console.WriteLine($$$ARGS)", rewrite: "Log.Info($$$ARGS)"},
		{pattern: "$R.Add($X)"},
		{pattern: "$X = $Y", differ: "ast-grep's C# reading of $X = $Y also matches initialised declarators (items = new \u2026); ours is an assignment expression",
			want: []string{"count = count == count ? count : 0"}},
		{pattern: "$A == $A", differ: "ast-grep also reports item == null, whose two sides differ; a repeated metavariable must capture the same tokens",
			want: []string{"count == count"}},
		{pattern: "using $NS;"},
		{pattern: "[Serializable]"},
		{pattern: "$X => $E"},
	}},
	{lang: "java", ag: "java", ext: ".java", src: `package shop;

import java.util.List;
import java.util.ArrayList;

// if (x == null) { return; } in a comment
@Service
public class Cart extends Base implements Serializable {
    private final List<Item> items = new ArrayList<>();

    @Override
    public void add(Item item, int count) {
        if (item == null) {
            throw new IllegalArgumentException("item");
        }
        for (Item i : items) {
            System.out.println("have " + i.name());
        }
        for (int k = 0; k < count; k++) {
            items.add(item);
        }
        try {
            save(items);
        } catch (IOException e) {
            System.out.println("System.out.println(e)");
        }
        Runnable r = () -> System.out.println(count);
        count = count == count ? count : 0;
    }
}
`, cases: []diffCase{
		{pattern: "if ($X == null) { $$$ }"},
		{pattern: "for ($T $V : $C) { $$$ }"},
		{pattern: "for ($$$) { $$$ }"},
		{pattern: "try { $$$ } catch ($T $E) { $$$ }"},
		{pattern: "public class $C extends $B implements $I { $$$ }"},
		{pattern: "public void $M($$$P) { $$$ }"},
		{pattern: "System.out.println($$$ARGS)", rewrite: "log.info($$$ARGS)"},
		{pattern: "$R.add($X)"},
		{pattern: "$X = $Y"},
		{pattern: "$A == $A"},
		{pattern: "import $P;"},
		{pattern: "@Override"},
		{pattern: "() -> $E"},
	}},
	{lang: "kotlin", ag: "kotlin", ext: ".kt", src: `package shop

import kotlin.math.max

// if (x == null) { return } in a comment
@Serializable
class Cart(private val owner: String) : Base() {
    private val items = mutableListOf<Item>()

    fun add(item: Item?, count: Int): Int {
        if (item == null) {
            return 0
        }
        for (i in items) {
            println("have ${i.name}")
        }
        when (count) {
            0 -> println("none")
            else -> items.add(item)
        }
        try {
            save(items)
        } catch (e: IOException) {
            println("println(e)")
        }
        val doubled = items.map { it.price * 2 }
        return max(count, items.size)
    }
}
`, cases: []diffCase{
		{pattern: "if ($X == null) { $$$ }"},
		{pattern: "for ($V in $C) { $$$ }"},
		{pattern: "when ($X) { $$$ }"},
		{pattern: "try { $$$ } catch ($E: $T) { $$$ }"},
		{pattern: "class $C($$$P) : $B() { $$$ }"},
		{pattern: "fun $F($$$P): $T { $$$ }"},
		{pattern: "println($$$ARGS)", rewrite: "log.info($$$ARGS)"},
		{pattern: "$R.add($X)"},
		{pattern: "val $X = $Y"},
		{pattern: "max($A, $B)"},
		{pattern: "import $P"},
		{pattern: "$C.map { $$$ }"},
	}},
	{lang: "scala", ag: "scala", ext: ".scala", src: `package shop

import scala.collection.mutable

// if (x == null) return in a comment
@deprecated("use Cart2", "1.0")
class Cart(owner: String) extends Base {
  private val items = mutable.ListBuffer[Item]()

  def add(item: Item, count: Int): Int = {
    if (item == null) {
      return 0
    }
    for (i <- items) {
      println(s"have ${i.name}")
    }
    count match {
      case 0 => println("none")
      case _ => items += item
    }
    try {
      save(items)
    } catch {
      case e: Exception => println("println(e)")
    }
    val doubled = items.map(x => x.price * 2)
    math.max(count, items.size)
  }
}
`, cases: []diffCase{
		{pattern: "if ($X == null) { $$$ }"},
		{pattern: "for ($V <- $C) { $$$ }"},
		{pattern: "$X match { $$$ }"},
		{pattern: "try { $$$ } catch { $$$ }"},
		{pattern: "class $C($$$P) extends $B { $$$ }"},
		{pattern: "def $F($$$P): $T = $B"},
		{pattern: "println($$$ARGS)", rewrite: "log.info($$$ARGS)"},
		{pattern: "$R.map($F)"},
		{pattern: "val $X = $Y"},
		{pattern: "math.max($A, $B)"},
		{pattern: "import $P"},
		{pattern: "$X => $E"},
	}},
	{lang: "swift", ag: "swift", ext: ".swift", src: `import Foundation

// if x == nil { return } in a comment
@MainActor
class Cart: Base {
    private var items: [Item] = []
    unowned var owner: Shop

    func add(_ item: Item?, count: Int) -> Int {
        guard let item = item else {
            return 0
        }
        if count == 0 {
            print("none")
        }
        for i in items {
            print("have \(i.name)")
        }
        switch count {
        case 0:
            print("zero")
        default:
            items.append(item)
        }
        let doubled = items.map { $0.price * 2 }
        print("print(x)")
        return max(count, items.count)
    }
}
`, cases: []diffCase{
		{pattern: "if $C { $$$ }"},
		{pattern: "for $V in $C { $$$ }"},
		{pattern: "switch $X { $$$ }", differ: "ast-grep's parse reads the lone $$$ as a trailing closure (switch is then an ERROR) and finds nothing; we read the $$$ as the switch's entries",
			want: []string{"switch count {\n        case 0:\n            print(\"zero\")\n        default:\n            items.append(item)\n        }"}},
		{pattern: "guard let $X = $Y else { $$$ }"},
		{pattern: "class $C: $B { $$$ }"},
		{pattern: "func $F($$$P) -> $T { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"func add(_ item: Item?, count: Int) -> Int {\n        guard let item = item else {\n            return 0\n        }\n        if count == 0 {\n            print(\"none\")\n        }\n        for i in items {\n            print(\"have \\(i.name)\")\n        }\n        switch count {\n        case 0:\n            print(\"zero\")\n        default:\n            items.append(item)\n        }\n        let doubled = items.map { $0.price * 2 }\n        print(\"print(x)\")\n        return max(count, items.count)\n    }"}},
		{pattern: "print($$$ARGS)", rewrite: "log($$$ARGS)"},
		{pattern: "$R.append($X)"},
		{pattern: "let $X = $Y"},
		{pattern: "max($A, $B)"},
		{pattern: "import $M"},
		{pattern: "$C.map { $$$ }"},
		// In a class the modifier is inside modifiers, in a function
		// body (our first reading) it is not.
		{pattern: "unowned var $A: $B"},
	}},
	{lang: "dart", ag: "dart", ext: ".dart", src: `import 'package:flutter/widgets.dart';
import 'dart:async';

// if (a != null) a.dispose(); in a comment
@immutable
class Holder extends Base {
  final Widget? a;
  final Holder? b;

  void close(int count) {
    if (a != null) a.dispose();
    if (b.c != null) b.c.dispose();
    if (a != null) b.dispose();
    for (var i = 0; i < count; i++) {
      print('close $i');
    }
    try {
      save(count);
    } catch (e) {
      print('print(e)');
    }
    final doubled = items.map((x) => x * 2);
    count = count == count ? count : 0;
  }
}
`, cases: []diffCase{
		{pattern: "if ($X != null) $X.dispose()", differ: "ast-grep reads the statement at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body (the seed's example)",
			want: []string{"if (a != null) a.dispose();", "if (b.c != null) b.c.dispose();"}},
		{pattern: "for ($$$) { $$$ }", differ: "ast-grep parses the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function or class body",
			want: []string{"for (var i = 0; i < count; i++) {\n      print('close $i');\n    }"}},
		{pattern: "try { $$$ } catch ($E) { $$$ }", differ: "ast-grep parses the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function or class body",
			want: []string{"try {\n      save(count);\n    } catch (e) {\n      print('print(e)');\n    }"}},
		{pattern: "class $C extends $B { $$$ }", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"class Holder extends Base {\n  final Widget? a;\n  final Holder? b;\n\n  void close(int count) {\n    if (a != null) a.dispose();\n    if (b.c != null) b.c.dispose();\n    if (a != null) b.dispose();\n    for (var i = 0; i < count; i++) {\n      print('close $i');\n    }\n    try {\n      save(count);\n    } catch (e) {\n      print('print(e)');\n    }\n    final doubled = items.map((x) => x * 2);\n    count = count == count ? count : 0;\n  }\n}"}},
		{pattern: "void $M($$$P) { $$$ }"},
		{pattern: "print($$$ARGS)", rewrite: "log($$$ARGS)", differ: "ast-grep parses the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function or class body",
			want: []string{"print('close $i')", "print('print(e)')"}},
		{pattern: "$R.map($F)", differ: "ast-grep parses the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function or class body",
			want: []string{"items.map((x) => x * 2)"}},
		{pattern: "$X = $Y", differ: "ast-grep parses the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function or class body",
			want: []string{"count = count == count ? count : 0"}},
		{pattern: "$A == $A"},
		{pattern: "import '$P';"},
		{pattern: "@immutable"},
		{pattern: "($X) => $E", differ: "ast-grep parses the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function or class body",
			want: []string{"(x) => x * 2"}},
	}},

	{lang: "javascript", ag: "javascript", ext: ".js", src: `import { readFile } from "fs/promises";
const path = require("path");

// if (x == null) { return; } in a comment
class Loader extends Base {
  constructor(root) {
    super(root);
    this.cache = new Map();
  }

  async load(name, opts) {
    if (this.cache.has(name)) {
      return this.cache.get(name);
    }
    for (const dir of this.dirs) {
      console.log("trying", dir, name);
    }
    try {
      const text = await readFile(path.join(this.root, name), "utf8");
      this.cache.set(name, text);
    } catch (err) {
      console.log(
        "console.log(err)",
        err,
      );
    }
    const sizes = this.dirs.map((d) => d.length);
    return name === name ? sizes : null;
  }
}
`, cases: []diffCase{
		{pattern: "if ($C) { $$$ }"},
		{pattern: "for (const $V of $XS) { $$$ }"},
		{pattern: "try { $$$ } catch ($E) { $$$ }"},
		{pattern: "class $C extends $B { $$$ }"},
		{pattern: "async $M($$$P) { $$$ }", context: "member", selector: "method_definition",
			peer: "class _ { async $M($$$P) { $$$ } }", peerSel: "method_definition"},
		{pattern: "console.log($$$ARGS)", rewrite: "logger.debug($$$ARGS)"},
		{pattern: "$R.cache.set($K, $V)"},
		{pattern: "const $X = $Y"},
		{pattern: "$A === $A"},
		{pattern: "import { $$$ } from \"$M\""},
		{pattern: "require(\"$M\")"},
		{pattern: "($X) => $E"},
	}},
	{lang: "typescript", ag: "typescript", ext: ".ts", src: `import { Injectable } from "@angular/core";
import type { User } from "./user";

// if (user === undefined) { return; } in a comment
@Injectable()
export class UserService implements Service {
  private users: Map<string, User> = new Map();

  find(id: string, strict: boolean): User | undefined {
    if (this.users.has(id)) {
      return this.users.get(id);
    }
    for (const [key, user] of this.users) {
      console.log("scan", key, user.name);
    }
    switch (id.length) {
      case 0:
        return undefined;
      default:
        console.log("console.log(id)");
    }
    const names = [...this.users.values()].map((u: User) => u.name);
    return id === id ? undefined : undefined;
  }
}
`, cases: []diffCase{
		{pattern: "if ($C) { $$$ }"},
		{pattern: "for (const $V of $XS) { $$$ }"},
		{pattern: "switch ($X) { $$$ }"},
		{pattern: "export class $C implements $I { $$$ }"},
		{pattern: "console.log($$$ARGS)", rewrite: "logger.debug($$$ARGS)"},
		{pattern: "this.users.get($K)"},
		{pattern: "const $X = $Y"},
		{pattern: "$A === $A"},
		{pattern: "import { $$$ } from \"$M\""},
		{pattern: "@Injectable()"},
		{pattern: "($X: $T) => $E"},
		{pattern: "private $F: $T = $V;", context: "member", peer: "class _ { private $F: $T = $V; }", peerSel: "public_field_definition"},
	}},
	{lang: "tsx", ag: "tsx", ext: ".tsx", src: `import React, { useState } from "react";

// <Button onClick={x} /> in a comment
export function Counter({ start }: Props) {
  const [count, setCount] = useState(start);
  if (count > 10) {
    console.log("big", count);
  }
  const label = "<Button onClick={reset} />";
  return (
    <div className="counter">
      <Button onClick={() => setCount(count + 1)}>more</Button>
      <Button onClick={() => setCount(0)} />
      <span>{count}</span>
    </div>
  );
}
`, cases: []diffCase{
		{pattern: "if ($C) { $$$ }"},
		{pattern: "export function $F($$$P) { $$$ }"},
		{pattern: "console.log($$$ARGS)", rewrite: "logger.debug($$$ARGS)"},
		{pattern: "const [$A, $B] = useState($X)"},
		{pattern: "<Button onClick={$H} />"},
		{pattern: "<Button onClick={$H}>$$$</Button>"},
		{pattern: "setCount($X)"},
		{pattern: "import $D, { $$$ } from \"react\""},
		{pattern: "() => $E"},
		{pattern: "<span>{$X}</span>"},
	}},
	{lang: "rust", ag: "rust", ext: ".rs", src: `use std::collections::HashMap;
use std::io::{self, Read};

// if x.is_none() { return; } in a comment
#[derive(Debug, Clone)]
pub struct Cache {
    items: HashMap<String, u32>,
}

impl Store for Cache {
    fn get(&self, key: &str) -> Option<u32> {
        if key.is_empty() {
            return None;
        }
        for (k, v) in self.items.iter() {
            println!("{} {}", k, v);
        }
        match self.items.get(key) {
            Some(v) => Some(*v),
            None => None,
        }
    }
}

fn main() {
    let mut c = Cache { items: HashMap::new() };
    let n = c.get("x").unwrap();
    let double = |x: u32| x * 2;
    let same = n == n;
}
`, cases: []diffCase{
		{pattern: "if $C { $$$ }"},
		{pattern: "for ($K, $V) in $I { $$$ }"},
		{pattern: "match $E { $$$ARMS }"},
		{pattern: "impl $T for $U { $$$ }"},
		{pattern: "fn $F(&self, $$$P) -> $R { $$$ }"},
		{pattern: "$X.unwrap()", rewrite: "$X.expect(\"value\")"},
		{pattern: "$R.items.get($K)"},
		{pattern: "let $X = $Y;"},
		{pattern: "$A == $A"},
		{pattern: "use $P;"},
		{pattern: "#[derive($$$)]"},
		{pattern: "|$X: $T| $E"},
	}},
	{lang: "ruby", ag: "ruby", ext: ".rb", src: `require "json"
require_relative "base"

# if x.nil? then return end  (a comment)
class Cart < Base
  attr_reader :items

  def add(item, count = 1)
    if item.nil?
      raise ArgumentError, "item"
    end
    items.each do |i|
      puts "have #{i.name}"
    end
    case count
    when 0 then puts "none"
    else items << item
    end
    begin
      save(items)
    rescue IOError => e
      puts "puts(e)"
    end
    doubled = items.map { |x| x * 2 }
    count == count ? count : 0
  end
end
`, cases: []diffCase{
		{pattern: "if $C\n  $$$\nend"},
		{pattern: "$X.each do |$V|\n  $$$\nend"},
		{pattern: "case $X\n$$$\nend"},
		{pattern: "class $C < $B\n  $$$\nend", differ: "ast-grep's placeholder for $C is not a Ruby constant, so its parse fails and it finds nothing; we read a class name as a constant",
			want: []string{"class Cart < Base\n  attr_reader :items\n\n  def add(item, count = 1)\n    if item.nil?\n      raise ArgumentError, \"item\"\n    end\n    items.each do |i|\n      puts \"have #{i.name}\"\n    end\n    case count\n    when 0 then puts \"none\"\n    else items << item\n    end\n    begin\n      save(items)\n    rescue IOError => e\n      puts \"puts(e)\"\n    end\n    doubled = items.map { |x| x * 2 }\n    count == count ? count : 0\n  end\nend"}},
		{pattern: "def $M($$$P)\n  $$$\nend"},
		{pattern: "puts $$$ARGS", rewrite: "logger.info $$$ARGS"},
		{pattern: "$R.map { |$X| $$$ }"},
		{pattern: "$X = $Y"},
		{pattern: "$A == $A"},
		{pattern: "require $P"},
		{pattern: "attr_reader $$$"},
		{pattern: "begin\n  $$$\nrescue $E => $V\n  $$$\nend"},
	}},
	{lang: "php", ag: "php", ext: ".php", src: `<?php
namespace App;

use App\Models\User;

// if ($x === null) { return; } in a comment
#[Entity]
class UserRepo extends Repo implements Finder
{
    private array $users = [];

    public function find($id, $strict = false)
    {
        if ($id === null) {
            return null;
        }
        foreach ($this->users as $user) {
            echo "have {$user->name}";
        }
        for ($i = 0; $i < 3; $i++) {
            $this->log("try", $i);
        }
        try {
            $this->load($id);
        } catch (Exception $e) {
            $this->log('$this->log($e)');
        }
        $f = fn($x) => $x * 2;
        return $id === $id ? $f($id) : null;
    }
}

function helper($a, $b) {
    return array_map(fn($v) => $v + $b, $a);
}
`, cases: []diffCase{
		{pattern: "if ($X === null) { $$$ }"},
		{pattern: "foreach ($C as $V) { $$$ }"},
		{pattern: "for ($$$) { $$$ }"},
		{pattern: "try { $$$ } catch (Exception $E) { $$$ }"},
		{pattern: "class $C extends $B implements $I { $$$ }"},
		{pattern: "function $F($$$P) { $$$ }"},
		{pattern: "$this->log($$$ARGS)", rewrite: "$this->logger->info($$$ARGS)"},
		{pattern: "$R->load($X)"},
		{pattern: "$X = $Y", differ: "we read an assignment expression; ast-grep's reading also matches a property's and a parameter's default ($users = [], $strict = false)",
			want: []string{"$i = 0", "$f = fn($x) => $x * 2"}},
		{pattern: "$A === $A"},
		{pattern: "use $P;"},
		{pattern: "fn($X) => $E"},
	}},
	{lang: "lua", ag: "lua", ext: ".lua", src: `local json = require("json")
local M = {}

-- if x == nil then return end (a comment)
function M.load(path, opts)
  if path == nil then
    return nil, "no path"
  end
  for i, line in ipairs(M.lines) do
    print("line", i, line)
  end
  while #M.queue > 0 do
    table.remove(M.queue)
  end
  local ok, err = pcall(function() return json.decode(path) end)
  if not ok then
    print("print(err)", err)
  end
  local same = path == path
  return M
end

return M
`, cases: []diffCase{
		{pattern: "if $C then $$$ end"},
		{pattern: "for $I, $V in ipairs($T) do $$$ end"},
		{pattern: "while $C do $$$ end"},
		{pattern: "function $M.$F($$$P) $$$ end"},
		{pattern: "print($$$ARGS)", rewrite: "log($$$ARGS)"},
		{pattern: "table.remove($T)"},
		{pattern: "local $X = $Y"},
		{pattern: "$A == $A"},
		{pattern: "require($M)"},
		{pattern: "function() $$$ end", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"function() return json.decode(path) end"}},
		{pattern: "$O.decode($X)"},
	}},
	{lang: "haskell", ag: "haskell", ext: ".hs", src: `module Cart where

import qualified Data.Map as Map
import Data.Maybe (fromMaybe)

-- case x of Nothing -> 0 (a comment)
data Item = Item { name :: String, price :: Int }

type Pair a b = (a, b)

newtype Wrap a = Wrap { unwrap :: a }

total :: [Item] -> Int
total items = sum (map price items)

lookupPrice :: String -> Map.Map String Int -> Int
lookupPrice key m =
  case Map.lookup key m of
    Nothing -> 0
    Just p -> p

describe :: Int -> String
describe n = if n == n then "same" else "case n of"

main :: IO ()
main = do
  let xs = map (\x -> x * 2) [1, 2, 3]
  print (total [])
  putStrLn (describe 3)
  putStrLn [str|
  total:
  |]
`, cases: []diffCase{
		{pattern: "case $X of $$$"},
		{pattern: "if $C then $A else $B"},
		{pattern: "map $F $XS"},
		{pattern: "print $X"},
		{pattern: "\\$X -> $E"},
		{pattern: "import qualified $M as $N", differ: "ast-grep cannot parse it (its placeholder is not a module name); we read module names as constants",
			want: []string{"import qualified Data.Map as Map"}},
		{pattern: "$A == $A"},
		{pattern: "Map.lookup $K $M"},
		{pattern: "$F :: $T"},
		{pattern: "let $X = $Y"},
		{pattern: "putStrLn [$Q|\n  total:\n  |]"},
		// A type's name and its variables are told apart by case: $T
		// where the name goes is retried with the language's prefix.
		{pattern: "type $T $A $B = ($A, $B)", differ: "ast-grep reads a metavariable where a type's name goes as a variable (an ERROR) and finds nothing; we retry with the language's prefix on some of the metavariables",
			want: []string{"type Pair a b = (a, b)"}},
		{pattern: "newtype $T $A = $C { $F :: $A }", differ: "ast-grep reads a metavariable where a type's name goes as a variable (an ERROR) and finds nothing; we retry with the language's prefix on some of the metavariables",
			want: []string{"newtype Wrap a = Wrap { unwrap :: a }"}},
	}},
	{lang: "bash", ag: "bash", ext: ".sh", src: `#!/bin/bash
set -euo pipefail

# if [ -z "$x" ]; then exit 1; fi  (a comment)
log() {
  echo "[$(date)] $*" >&2
}

main() {
  local dir="$1"
  if [ -z "$dir" ]; then
    log "no dir"
    exit 1
  fi
  for f in "$dir"/*.txt; do
    echo "file: $f"
  done
  while read -r line; do
    echo "$line"
  done < "$dir/list"
  case "$2" in
    start) log "starting" ;;
    *) echo "echo usage" ;;
  esac
  count=$((count + 1))
}

main "$@"
`, cases: []diffCase{
		{pattern: "if [ $$$ ]; then\n  $$$\nfi"},
		{pattern: "for $V in $$$; do\n  $$$\ndone"},
		{pattern: "while $$$; do\n  $$$\ndone", differ: "bash reads $$$; as $$ then $; ast-grep's parse has that ERROR and finds nothing; we retry with a space before the ';' and read the $$$ as the condition",
			want: []string{"while read -r line; do\n    echo \"$line\"\n  done"}},
		{pattern: "case $X in\n  $$$\nesac"},
		{pattern: "$F() {\n  $$$\n}", differ: "bash reads $F() as a command and a subshell, so ast-grep finds nothing; we retry with a word for the name and read $F as the function's name",
			want: []string{"log() {\n  echo \"[$(date)] $*\" >&2\n}", "main() {\n  local dir=\"$1\"\n  if [ -z \"$dir\" ]; then\n    log \"no dir\"\n    exit 1\n  fi\n  for f in \"$dir\"/*.txt; do\n    echo \"file: $f\"\n  done\n  while read -r line; do\n    echo \"$line\"\n  done < \"$dir/list\"\n  case \"$2\" in\n    start) log \"starting\" ;;\n    *) echo \"echo usage\" ;;\n  esac\n  count=$((count + 1))\n}"}},
		{pattern: "echo $$$ARGS", rewrite: "printf '%s\\n' $$$ARGS"},
		{pattern: "log $M"},
		{pattern: "local $X=$Y"},
		{pattern: "exit $N"},
		{pattern: "set $$$"},
	}},
	{lang: "css", ag: "css", ext: ".css", src: `@import url("base.css");

/* .button { color: red; } in a comment */
.button {
  color: red;
  margin: 0 auto;
  padding: 4px 8px;
}

.button:hover, .link:hover {
  color: blue;
  margin: 0 auto 1px;
}

@media (max-width: 600px) {
  .button {
    display: none;
  }
}

a[href="x { color: red; }"] {
  color: green !important;
}
`, cases: []diffCase{
		{pattern: "$SEL { $$$ }"},
		{pattern: ".button { $$$ }"},
		{pattern: "color: $C;"},
		{pattern: "margin: 0 auto;"},
		{pattern: "@media $Q { $$$ }"},
		{pattern: "$P: $V !important;"},
		{pattern: "@import $U;"},
		{pattern: "padding: $A $B;"},
		{pattern: "$S:hover { $$$ }"},
		{pattern: "display: none;"},
	}},
	{lang: "html", ag: "html", ext: ".html", src: `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Shop</title>
  <script src="app.js"></script>
  <!-- <div class="cart"></div> in a comment -->
</head>
<body>
  <div class="cart">
    <ul>
      <li>one</li>
      <li class="x">two</li>
    </ul>
    <a href="/checkout">Checkout</a>
    <img src="logo.png" alt="logo">
    <p>text with <div> written out: &lt;div&gt;</p>
  </div>
</body>
</html>
`, cases: []diffCase{
		{pattern: "<li>$T</li>"},
		{pattern: "<div class=\"cart\">$$$</div>"},
		{pattern: "<a href=\"$H\">$T</a>"},
		{pattern: "<script src=\"$S\"></script>"},
		{pattern: "<title>$T</title>"},
		{pattern: "<img src=\"$S\" alt=\"$A\">"},
		{pattern: "<ul>$$$</ul>"},
		{pattern: "<meta charset=\"$C\">"},
		{pattern: "<li class=\"$C\">$T</li>"},
		{pattern: "<p>$$$</p>"},
	}},
	{lang: "json", ag: "json", ext: ".json", src: `{
  "name": "shop",
  "version": "1.2.3",
  "description": "\"version\": \"0.0.0\" in a string",
  "scripts": {
    "build": "tsc -p .",
    "test": "jest"
  },
  "dependencies": {
    "react": "^18.2.0",
    "lodash": "^4.17.21"
  },
  "files": ["dist", "README.md"],
  "private": true,
  "nested": [{ "version": 2 }],
  "pattern": "\u003c\\i\\c*\u003e"
}
`, cases: []diffCase{
		{pattern: "\"version\": \"$V\"", differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{"\"version\": \"1.2.3\""}},
		{pattern: "\"version\": $V", differ: "ast-grep cannot parse a metavariable where JSON wants a value (not valid JSON); we read it as any value, as in TOML (issue 23)",
			want: []string{"\"version\": \"1.2.3\"", "\"version\": 2"}},
		{pattern: "{ $$$ }"},
		{pattern: "\"scripts\": { $$$ }", differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{"\"scripts\": {\n    \"build\": \"tsc -p .\",\n    \"test\": \"jest\"\n  }"}},
		{pattern: "\"private\": true", differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{"\"private\": true"}},
		{pattern: "[$$$]"},
		{pattern: "\"dependencies\": { $$$DEPS }", differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{"\"dependencies\": {\n    \"react\": \"^18.2.0\",\n    \"lodash\": \"^4.17.21\"\n  }"}},
		{pattern: "\"react\": $V", differ: "ast-grep cannot parse a metavariable where JSON wants a value (not valid JSON); we read it as any value, as in TOML (issue 23)",
			want: []string{"\"react\": \"^18.2.0\""}},
		{pattern: "[\"dist\", $$$]", differ: "ast-grep's parse of the pattern has an ERROR at the lone $$$ and finds nothing; we read the $$$ as the whole body, header or parameter list",
			want: []string{"[\"dist\", \"README.md\"]"}},
		{pattern: "$K: $V", selector: "pair", peer: "{ $K: $V }", peerSel: "pair", differ: "ast-grep cannot parse a metavariable where JSON wants a value (not valid JSON); we read it as any value, as in TOML (issue 23)",
			want: []string{"\"name\": \"shop\"", "\"version\": \"1.2.3\"", "\"description\": \"\\\"version\\\": \\\"0.0.0\\\" in a string\"",
				"\"scripts\": {\n    \"build\": \"tsc -p .\",\n    \"test\": \"jest\"\n  }", "\"build\": \"tsc -p .\"", "\"test\": \"jest\"",
				"\"dependencies\": {\n    \"react\": \"^18.2.0\",\n    \"lodash\": \"^4.17.21\"\n  }", "\"react\": \"^18.2.0\"", "\"lodash\": \"^4.17.21\"",
				"\"files\": [\"dist\", \"README.md\"]", "\"private\": true", "\"nested\": [{ \"version\": 2 }]", "\"version\": 2",
				"\"pattern\": \"\\u003c\\\\i\\\\c*\\u003e\""}},
		// A metavariable between a string's escapes is that run of its
		// content (the generated differential, seed 58: it was quoted
		// as a value of its own, which split the string).
		{pattern: "\"\\u003c\\\\$A\\\\c*\\u003e\""},
		{pattern: "\"$ref\": $R", differ: "ast-grep cannot parse a metavariable where JSON wants a value (not valid JSON); we read it as any value, as in TOML (issue 23)",
			want: nil},
	}},
	{lang: "yaml", ag: "yaml", ext: ".yaml", src: `name: ci
on:
  push:
    branches: [main]
# - name: Lint  (a comment)
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      GOFLAGS: "-mod=readonly"
    steps:
      - name: Checkout
        uses: actions/checkout@v4
      - name: Setup
        uses: actions/setup-go@v5
        with:
          go-version: "1.26"
      - name: Test
        run: go test ./...
      - run: echo "name: x"
`, cases: []diffCase{
		{pattern: "- name: $N\n  uses: $U"},
		{pattern: "name: $N"},
		{pattern: "runs-on: $R"},
		{pattern: "uses: actions/checkout@v4"},
		{pattern: "with:\n  $$$"},
		{pattern: "steps:\n  $$$"},
		{pattern: "branches: [$$$]"},
		{pattern: "run: $CMD"},
		{pattern: "env:\n  $K: $V"},
		{pattern: "- run: $C"},
	}},
	{lang: "toml", ext: ".toml", src: `[package]
name = "shop"
version = "1.2.3"
description = "version = \"0.0.0\" in a string"
# version = "9.9.9" in a comment

[dependencies]
serde = { version = "1.0", features = ["derive"] }
tokio = "1"

[[bin]]
name = "shop-cli"
path = "src/main.rs"

[profile.release]
lto = true
`, cases: []diffCase{
		{pattern: "version = $V", want: []string{"version = \"1.2.3\"", "version = \"1.0\""}},
		{pattern: "name = $N", want: []string{"name = \"shop\"", "name = \"shop-cli\""}},
		{pattern: "[package]\n$$$", want: []string{"[package]\nname = \"shop\"\nversion = \"1.2.3\"\ndescription = \"version = \\\"0.0.0\\\" in a string\"\n# version = \"9.9.9\" in a comment"}}, // the table's own trailing comment is inside its node
		{pattern: "[[bin]]\n$$$", want: []string{"[[bin]]\nname = \"shop-cli\"\npath = \"src/main.rs\""}},
		{pattern: "$K = { $$$ }", want: []string{"serde = { version = \"1.0\", features = [\"derive\"] }"}},
		{pattern: "features = [$$$]", want: []string{"features = [\"derive\"]"}},
		{pattern: "lto = true", want: []string{"lto = true"}},
		{pattern: "$K = true", want: []string{"lto = true"}},
		{pattern: "tokio = $V", want: []string{"tokio = \"1\""}},
		{pattern: "[profile.release]\n$$$", want: []string{"[profile.release]\nlto = true"}},
	}},
}
