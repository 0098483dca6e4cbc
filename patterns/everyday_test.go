package patterns

// A second differential set against the ast-grep CLI: everyday patterns
// (a log call, an import, a null check, a loop, a throw) on everyday code
// of each language, written apart from the suites the matcher was tuned
// on. Its first runs found five classes: a metavariable where the
// grammar takes only a string (TS import { $$$ } from $M was refused), a
// keyword dropped from the pattern (C# throw new $E($$$) matched every
// new $E(…)), a statement container taken for the pattern's node (C++
// class $C { $$$ }; read as a translation unit, matching only whole
// files), a lone $$$ body no member could stand for (Kotlin's object
// $O { $$$ } refused) and a Go case clause alone (refused: no context
// took it).

import "testing"

func TestDifferentialEveryday(t *testing.T) { runDifferential(t, everydayLangs) }

var everydayLangs = []diffLang{
	{lang: "csharp", ag: "csharp", ext: ".cs", src: `using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;

namespace Shop.Orders
{
    public class OrderService : IOrderService
    {
        private readonly IRepository<Order> _repo;
        private readonly ILogger _logger;

        public OrderService(IRepository<Order> repo, ILogger logger)
        {
            _repo = repo ?? throw new ArgumentNullException(nameof(repo));
            _logger = logger;
        }

        public string Name { get; set; }
        public int Count { get; private set; }

        public async Task<Order> GetAsync(int id)
        {
            var order = await _repo.FindAsync(id);
            if (order == null)
            {
                _logger.LogWarning("order {Id} not found", id);
                return null;
            }
            Console.WriteLine($"found {order.Id}");
            return order;
        }

        public IEnumerable<Order> Open(IEnumerable<Order> all)
        {
            var open = all.Where(o => o.IsOpen).OrderBy(o => o.Created).ToList();
            foreach (var o in open)
            {
                Console.WriteLine(o.Id);
            }
            using (var w = new StreamWriter("log.txt"))
            {
                w.WriteLine(open.Count);
            }
            string path = Path.Combine("data", "orders", "x.json");
            Handler?.Invoke(this, EventArgs.Empty);
            return open;
        }

        public event EventHandler Handler;

        private static int Clamp(int v, int lo, int hi) => v < lo ? lo : v > hi ? hi : v;
    }
}
`, cases: []diffCase{
		{pattern: "Console.WriteLine($A)"},
		{pattern: "Console.WriteLine($$$)"},
		{pattern: "var $A = await $B;"},
		{pattern: "await $X", differ: "ast-grep reads await $X at the top level as a declaration of $X whose type is await, and matches the lone await token; we read an await expression",
			want: []string{"await _repo.FindAsync(id)"}},
		{pattern: "if ($A == null) { $$$ }", differ: "ast-grep's C# parse has an ERROR at each metavariable and finds nothing",
			want: []string{"if (order == null)\n            {\n                _logger.LogWarning(\"order {Id} not found\", id);\n                return null;\n            }"}},
		{pattern: "foreach (var $X in $Y) { $$$ }", differ: "ast-grep's C# parse has an ERROR at each metavariable and finds nothing",
			want: []string{"foreach (var o in open)\n            {\n                Console.WriteLine(o.Id);\n            }"}},
		{pattern: "throw new ArgumentNullException(nameof($A))"},
		{pattern: "$A ?? throw new $E($$$)"},
		{pattern: "$X.Where($A => $B)"},
		{pattern: "$X.OrderBy($$$)"},
		{pattern: "using ($$$) { $$$ }", differ: "ast-grep's C# parse has an ERROR at each metavariable and finds nothing",
			want: []string{"using (var w = new StreamWriter(\"log.txt\"))\n            {\n                w.WriteLine(open.Count);\n            }"}},
		{pattern: "Path.Combine($$$)"},
		{pattern: "$A?.Invoke($$$)"},
		{pattern: "new StreamWriter($P)"},
		{pattern: "_logger.LogWarning($$$)"},
		{pattern: "return null;"},
		{pattern: "$X.ToList()"},
		{pattern: "nameof($A)"},
	}},
	{lang: "kotlin", ag: "kotlin", ext: ".kt", src: `package com.example.app

import kotlinx.coroutines.launch
import android.util.Log

class MainViewModel(private val repo: Repository) : ViewModel() {
    private val _items = MutableLiveData<List<Item>>()
    val items: LiveData<List<Item>> = _items

    fun load(force: Boolean = false) {
        viewModelScope.launch {
            val result = repo.fetch(force)
            if (result.isEmpty()) {
                Log.d("MainViewModel", "no items")
                return@launch
            }
            _items.value = result.filter { it.visible }.sortedBy { it.name }
        }
    }

    fun find(id: String): Item? = _items.value?.firstOrNull { it.id == id }

    override fun onCleared() {
        super.onCleared()
        println("cleared")
    }

    companion object {
        const val TAG = "MainViewModel"
        fun create(repo: Repository) = MainViewModel(repo)
    }
}

data class Item(val id: String, val name: String, val visible: Boolean)

fun greet(name: String?) {
    val n = name ?: "world"
    when (n) {
        "admin" -> println("hi admin")
        else -> println("hello $n")
    }
    listOf(1, 2, 3).forEach { println(it) }
}
`, cases: []diffCase{
		{pattern: "println($A)"},
		{pattern: "Log.d($$$)"},
		{pattern: "val $A = $B"},
		{pattern: "fun $F($$$): $T = $E"},
		{pattern: "$X.filter { $$$ }"},
		{pattern: "if ($C) { $$$ }"},
		{pattern: "$A ?: $B"},
		{pattern: "override fun $F() { $$$ }"},
		{pattern: "data class $C($$$)"},
		{pattern: "when ($X) { $$$ }"},
		{pattern: "$X.forEach { $$$ }"},
		{pattern: "viewModelScope.launch { $$$ }"},
		{pattern: "super.$M()"},
		{pattern: "$A?.firstOrNull { $$$ }"},
		{pattern: "const val $N = $V"},
	}},
	{lang: "swift", ag: "swift", ext: ".swift", src: `import Foundation
import UIKit

final class ProfileViewController: UIViewController {
    @IBOutlet weak var nameLabel: UILabel!
    private var user: User?
    private let service = UserService()

    override func viewDidLoad() {
        super.viewDidLoad()
        guard let user = user else { return }
        nameLabel.text = user.name
        print("loaded \(user.id)")
    }

    func load(id: Int, completion: @escaping (Result<User, Error>) -> Void) {
        service.fetch(id: id) { [weak self] result in
            guard let self = self else { return }
            switch result {
            case .success(let u):
                self.user = u
                completion(.success(u))
            case .failure(let e):
                print(e.localizedDescription)
                completion(.failure(e))
            }
        }
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }
}

struct User: Codable {
    let id: Int
    var name: String
}

func total(_ xs: [Int]) -> Int {
    let sum = xs.reduce(0, +)
    if let first = xs.first {
        print(first)
    }
    return xs.map { $0 * 2 }.filter { $0 > 3 }.count + sum
}
`, cases: []diffCase{
		{pattern: "print($A)"},
		{pattern: "guard let $A = $B else { return }"},
		{pattern: "if let $A = $B { $$$ }"},
		{pattern: "super.viewDidLoad()"},
		{pattern: "override func $F() { $$$ }"},
		{pattern: "let $A = $B"},
		{pattern: "var $A: $T"},
		{pattern: "$X.map { $$$ }"},
		{pattern: "completion($A)"},
		{pattern: "struct $S: Codable { $$$ }"},
		{pattern: "$A.reduce($B, $C)"},
		{pattern: "NotificationCenter.default.removeObserver($X)"},
		{pattern: "func $F($$$) -> $T { $$$ }", differ: "ast-grep's Swift parse has an ERROR at each $$$ and finds nothing",
			want: []string{"func total(_ xs: [Int]) -> Int {\n    let sum = xs.reduce(0, +)\n    if let first = xs.first {\n        print(first)\n    }\n    return xs.map { $0 * 2 }.filter { $0 > 3 }.count + sum\n}"}},
	}},
	{lang: "java", ag: "java", ext: ".java", src: `package com.example.web;

import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@RestController
@RequestMapping("/api/users")
public class UserController {
    private static final Logger log = LoggerFactory.getLogger(UserController.class);
    private final UserRepository repo;

    public UserController(UserRepository repo) {
        this.repo = repo;
    }

    @GetMapping("/{id}")
    public ResponseEntity<User> get(@PathVariable Long id) {
        Optional<User> user = repo.findById(id);
        if (user.isPresent()) {
            log.info("found user {}", id);
            return ResponseEntity.ok(user.get());
        }
        System.out.println("missing " + id);
        return ResponseEntity.notFound().build();
    }

    @PostMapping
    public User create(@RequestBody User u) {
        try {
            return repo.save(u);
        } catch (DataAccessException e) {
            log.error("save failed", e);
            throw new IllegalStateException("save failed", e);
        }
    }

    public List<String> names(List<User> users) {
        return users.stream().map(User::getName).filter(n -> !n.isEmpty()).collect(Collectors.toList());
    }
}
`, cases: []diffCase{
		{pattern: "System.out.println($A)"},
		{pattern: "log.info($$$)"},
		{pattern: "log.$M($$$)"},
		{pattern: "if ($C) { $$$ }"},
		{pattern: "return $X;"},
		{pattern: "throw new $E($$$);"},
		{pattern: "try { $$$ } catch ($T $E) { $$$ }"},
		{pattern: "$X.stream().map($F)"},
		{pattern: "$A -> $B"},
		{pattern: "@GetMapping($P)"},
		{pattern: "this.$F = $V;"},
		{pattern: "private static final $T $N = $V;", peer: "class _ { private static final $T $N = $V; }", peerSel: "field_declaration"},
		{pattern: "Optional<$T> $V = $E;"},
		{pattern: "ResponseEntity.ok($A)"},
	}},
	{lang: "rust", ag: "rust", ext: ".rs", src: `use std::collections::HashMap;
use std::fs;
use anyhow::{Context, Result};

#[derive(Debug, Clone)]
pub struct Config {
    pub name: String,
    pub values: HashMap<String, i64>,
}

impl Config {
    pub fn load(path: &str) -> Result<Self> {
        let text = fs::read_to_string(path).with_context(|| format!("reading {}", path))?;
        let mut values = HashMap::new();
        for line in text.lines() {
            if let Some((k, v)) = line.split_once('=') {
                values.insert(k.trim().to_string(), v.trim().parse().unwrap());
            }
        }
        println!("loaded {} values", values.len());
        Ok(Config { name: path.to_string(), values })
    }

    pub fn get(&self, key: &str) -> Option<i64> {
        match self.values.get(key) {
            Some(v) => Some(*v),
            None => None,
        }
    }
}

fn main() {
    let cfg = Config::load("app.conf").expect("config");
    let total: i64 = cfg.values.values().sum();
    println!("{}", total);
    let v = cfg.get("x").unwrap();
    assert_eq!(v, 3);
}
`, cases: []diffCase{
		{pattern: "$X.unwrap()"},
		{pattern: "println!($$$)"},
		{pattern: "let $A = $B;"},
		{pattern: "let mut $A = $B;"},
		{pattern: "if let Some($P) = $E { $$$ }"},
		{pattern: "match $X { $$$ }"},
		{pattern: "impl $T { $$$ }"},
		{pattern: "pub fn $F($$$) -> $R { $$$ }"},
		{pattern: "$X.expect($M)"},
		{pattern: "Ok($A)"},
		{pattern: "for $X in $Y { $$$ }"},
		{pattern: "#[derive($$$)]"},
		{pattern: "format!($$$)"},
		{pattern: "assert_eq!($A, $B)"},
		{pattern: "$A?"},
	}},
	{lang: "php", ag: "php", ext: ".php", src: `<?php

namespace App\Http\Controllers;

use App\Models\Post;
use Illuminate\Http\Request;

class PostController extends Controller
{
    public function index(Request $request)
    {
        $posts = Post::where('published', true)->orderBy('created_at', 'desc')->get();
        if (count($posts) === 0) {
            return response()->json(['message' => 'none'], 404);
        }
        foreach ($posts as $post) {
            echo $post->title;
        }
        return view('posts.index', ['posts' => $posts]);
    }

    public function store(Request $request)
    {
        $data = $request->validate(['title' => 'required']);
        $post = Post::create($data);
        error_log("created " . $post->id);
        return redirect()->route('posts.show', $post);
    }

    private function isValid($x)
    {
        return isset($x) && !empty($x);
    }
}
`, cases: []diffCase{
		{pattern: "echo $A;"},
		{pattern: "$A->$B"},
		{pattern: "Post::$M($$$)"},
		{pattern: "return view($$$);"},
		{pattern: "foreach ($A as $B) { $$$ }"},
		{pattern: "if ($C) { $$$ }"},
		{pattern: "isset($A)"},
		{pattern: "public function $F($$$) { $$$ }", differ: "ast-grep reads the method at the top level, where PHP has no methods, and finds nothing; we read it in a class",
			want: []string{"public function index(Request $request)\n    {\n        $posts = Post::where('published', true)->orderBy('created_at', 'desc')->get();\n        if (count($posts) === 0) {\n            return response()->json(['message' => 'none'], 404);\n        }\n        foreach ($posts as $post) {\n            echo $post->title;\n        }\n        return view('posts.index', ['posts' => $posts]);\n    }", "public function store(Request $request)\n    {\n        $data = $request->validate(['title' => 'required']);\n        $post = Post::create($data);\n        error_log(\"created \" . $post->id);\n        return redirect()->route('posts.show', $post);\n    }"}},
		{pattern: "count($A)"},
		{pattern: "error_log($A)"},
		{pattern: "$A === $B"},
	}},
	{lang: "ruby", ag: "ruby", ext: ".rb", src: `require 'json'

module Billing
  class Invoice < ApplicationRecord
    belongs_to :customer
    has_many :lines, dependent: :destroy
    validates :number, presence: true

    def total
      lines.sum { |l| l.amount * l.quantity }
    end

    def self.overdue
      where('due_at < ?', Time.now).order(:due_at)
    end

    def to_h
      { number: number, total: total }
    end

    def send_reminder!
      return if paid?
      puts "reminding #{customer.email}"
      Mailer.reminder(self).deliver_later
    rescue StandardError => e
      Rails.logger.error(e.message)
    end
  end
end

items = [1, 2, 3].map { |x| x * 2 }
items.each do |i|
  puts i
end
`, cases: []diffCase{
		{pattern: "puts $A"},
		{pattern: "belongs_to $A"},
		{pattern: "has_many $$$"},
		{pattern: "def $M\n  $$$\nend"},
		{pattern: "$X.map { |$A| $$$ }"},
		{pattern: "$X.each do |$A|\n  $$$\nend"},
		{pattern: "return if $C"},
		{pattern: "Rails.logger.error($A)"},
		{pattern: "validates $$$"},
		{pattern: "$X.deliver_later"},
	}},
	{lang: "typescript", ag: "typescript", ext: ".ts", src: `import { Injectable } from "@angular/core";
import axios, { AxiosResponse } from "axios";

export interface User {
  id: number;
  name?: string;
}

type Handler = (u: User) => void;

@Injectable({ providedIn: "root" })
export class UserService {
  private cache = new Map<number, User>();

  constructor(private readonly http: HttpClient) {}

  async get(id: number): Promise<User | undefined> {
    if (this.cache.has(id)) {
      return this.cache.get(id);
    }
    const res: AxiosResponse<User> = await axios.get(` + "`/api/users/${id}`" + `);
    console.log("fetched", res.data);
    this.cache.set(id, res.data);
    return res.data as User;
  }

  all(): User[] {
    return [...this.cache.values()].filter((u) => u.name !== undefined);
  }
}

export function isUser(x: unknown): x is User {
  return typeof x === "object" && x !== null && "id" in x;
}

export const handlers: Handler[] = [];
export default UserService;
`, cases: []diffCase{
		{pattern: "console.log($$$)"},
		{pattern: "await $X"},
		{pattern: "const $A: $T = $B"},
		{pattern: "$X as $T"},
		{pattern: "if ($C) { $$$ }"},
		{pattern: "export interface $I { $$$ }"},
		{pattern: "$X.filter(($A) => $B)"},
		{pattern: "typeof $X === $Y"},
		{pattern: "new Map<$K, $V>()"},
		{pattern: "export function $F($$$): $R { $$$ }"},
		{pattern: "import { $$$ } from $M"},
		{pattern: "this.cache.$M($$$)"},
		{pattern: "@Injectable($$$)"},
		{pattern: "type $T = $U"},
		{pattern: "[...$X]"},
	}},
	{lang: "python", ag: "python", ext: ".py", src: `import os
import logging
from dataclasses import dataclass, field
from typing import Optional

log = logging.getLogger(__name__)


@dataclass
class Settings:
    name: str
    debug: bool = False
    tags: list = field(default_factory=list)


def load(path: str, default: Optional[str] = None) -> Settings:
    if not os.path.exists(path):
        log.warning("missing %s", path)
        return Settings(name=default or "app")
    with open(path, encoding="utf-8") as fh:
        data = fh.read()
    try:
        name = data.split("=")[1].strip()
    except IndexError as exc:
        log.error("bad file: %s", exc)
        raise ValueError(path) from exc
    print(f"loaded {name}")
    return Settings(name=name, debug=os.environ.get("DEBUG") == "1")


class Cache(dict):
    def get_or(self, key, fn):
        if key not in self:
            self[key] = fn()
        return self[key]

squares = [x * x for x in range(10) if x % 2 == 0]
`, cases: []diffCase{
		{pattern: "print($$$)"},
		{pattern: "log.$M($$$)"},
		{pattern: "with open($$$) as $F:\n    $$$"},
		{pattern: "try:\n    $$$\nexcept $E as $V:\n    $$$"},
		{pattern: "raise $E from $C"},
		{pattern: "os.environ.get($K)"},
		{pattern: "def $F($$$) -> $R:\n    $$$"},
		{pattern: "if not $C:\n    $$$"},
		{pattern: "[$E for $X in $I if $C]"},
		{pattern: "@dataclass"},
		{pattern: "$A or $B"},
		{pattern: "$K not in $D"},
		{pattern: "field(default_factory=$F)"},
		{pattern: "return $X"},
	}},
	{lang: "c", ag: "c", ext: ".c", src: `#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAME 64
#  define DEBUG 1

typedef struct node {
    char name[MAX_NAME];
    struct node *next;
} node_t;

static node_t *node_new(const char *name)
{
    node_t *n = malloc(sizeof(*n));
    if (n == NULL) {
        fprintf(stderr, "out of memory\n");
        return NULL;
    }
    strncpy(n->name, name, MAX_NAME - 1);
    n->next = NULL;
    return n;
}

void list_free(node_t *head)
{
    while (head != NULL) {
        node_t *next = head->next;
        free(head);
        head = next;
    }
}

int main(int argc, char **argv)
{
    node_t *head = NULL;
    for (int i = 1; i < argc; i++) {
        node_t *n = node_new(argv[i]);
        if (!n)
            return 1;
        n->next = head;
        head = n;
    }
    printf("%d nodes\n", argc - 1);
    list_free(head);
    return 0;
}
`, cases: []diffCase{
		{pattern: "malloc($A)", peer: "void _(void) { malloc($A); }", peerSel: "call_expression"},
		{pattern: "free($A);"},
		{pattern: "if ($X == NULL) { $$$ }"},
		{pattern: "printf($$$)", peer: "void _(void) { printf($$$); }", peerSel: "call_expression"},
		{pattern: "fprintf(stderr, $$$)"},
		{pattern: "for ($A; $B; $C) { $$$ }", differ: "the initializer int i = 1; is a declaration that owns its ';', which ast-grep's $A; (an expression and a ';') does not take even in a function; we let the ';' go with the declaration",
			want: []string{"for (int i = 1; i < argc; i++) {\n        node_t *n = node_new(argv[i]);\n        if (!n)\n            return 1;\n        n->next = head;\n        head = n;\n    }"}},
		{pattern: "while ($C) { $$$ }"},
		{pattern: "$A->$B = $C;"},
		{pattern: "#define $N $V"},
		{pattern: "return $X;"},
		{pattern: "sizeof($X)"},
		{pattern: "strncpy($A, $B, $C)"},
		{pattern: "static $T *$F($$$) { $$$ }"},
		{pattern: "if (!$X) return $Y;"},
	}},
	{lang: "go", ag: "go", ext: ".go", src: `package server

import (
	"context"
	"encoding/json"
	"log"
	"net/http"
	"time"
)

type Handler struct {
	db  *DB
	log *log.Logger
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	item, err := h.db.Get(ctx, r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(item); err != nil {
		h.log.Printf("encode: %v", err)
	}
}

func New(db *DB) *Handler {
	return &Handler{db: db, log: log.Default()}
}

func retry(n int, f func() error) (err error) {
	for i := 0; i < n; i++ {
		if err = f(); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i) * time.Second)
	}
	go func() { log.Println("gave up") }()
	return err
}
`, cases: []diffCase{
		{pattern: "if err != nil { $$$ }"},
		{pattern: "if err := $X; err != nil { $$$ }"},
		{pattern: "defer $F()"},
		{pattern: "context.WithTimeout($$$)", peer: "func _() { context.WithTimeout($$$) }", peerSel: "call_expression"},
		{pattern: "$X, err := $Y"},
		{pattern: "http.Error($$$)", peer: "func _() { http.Error($$$) }", peerSel: "call_expression"},
		{pattern: "go func() { $$$ }()"},
		{pattern: "for $I := 0; $I < $N; $I++ { $$$ }"},
		{pattern: "log.Println($A)", peer: "func _() { log.Println($A) }", peerSel: "call_expression"},
		{pattern: "&Handler{$$$}"},
		{pattern: "$W.Header().Set($K, $V)"},
		{pattern: "time.Sleep($D)", peer: "func _() { time.Sleep($D) }", peerSel: "call_expression"},
		{pattern: "return nil"},
	}},
	{lang: "scala", ag: "scala", ext: ".scala", src: `package app

import scala.concurrent.Future
import scala.util.{Failure, Success}

case class User(id: Long, name: String)

object UserService {
  private val users = scala.collection.mutable.Map[Long, User]()

  def find(id: Long): Option[User] = users.get(id)

  def all(): List[User] = users.values.toList.sortBy(_.name)

  def save(u: User): Unit = {
    users(u.id) = u
    println(s"saved ${u.name}")
  }

  def load(id: Long)(implicit ec: ExecutionContext): Future[User] = Future {
    find(id) match {
      case Some(u) => u
      case None => throw new NoSuchElementException(id.toString)
    }
  }
}
`, cases: []diffCase{
		{pattern: "println($A)"},
		{pattern: "case class $C($$$)"},
		{pattern: "def $F($$$): $T = $E"},
		{pattern: "$X match { $$$ }"},
		{pattern: "case Some($A) => $B", differ: "ast-grep cannot parse a case clause alone; we read it in a match (the clause owns the blanks up to the next one in this grammar)",
			want: []string{"case Some(u) => u\n      "}},
		{pattern: "throw new $E($$$)"},
		{pattern: "$X.sortBy($F)"},
		{pattern: "val $A = $B"},
	}},

	{lang: "typescript", ag: "typescript", ext: ".ts", src: `import { Injectable } from "@angular/core";
import axios from "axios";
import * as path from "path";
import type { Foo } from './foo';
export { bar } from "./bar";
const fs = require("fs");
const data = await import("./data.json");
`, cases: []diffCase{
		{pattern: "import { $$$ } from $M"},
		{pattern: "import $X from $M"},
		{pattern: "import * as $X from $M"},
		{pattern: "import type { $$$ } from $M"},
		{pattern: "export { $$$ } from $M", differ: "ast-grep cannot parse the re-export with a metavariable for its module; we read $M as the module string",
			want: []string{"export { bar } from \"./bar\";"}},
		{pattern: "require($M)"},
		{pattern: "import($M)"},
		{pattern: "import { $A } from \"@angular/core\""},
	}},
	{lang: "javascript", ag: "javascript", ext: ".js", src: `import React, { useState } from "react";
import "./styles.css";
const { join } = require("path");
export default function App() { return null; }
`, cases: []diffCase{
		{pattern: "import $X, { $$$ } from $M"},
		{pattern: "import $M"},
		{pattern: "import $M;", differ: "ast-grep cannot parse it; we read a side-effect import of the module string $M (import $M without the ';' matches every import, as in ast-grep)",
			want: []string{"import \"./styles.css\";"}},
		{pattern: "const { $$$ } = require($M)"},
		{pattern: "export default function $F() { $$$ }"},
	}},
	{lang: "python", ag: "python", ext: ".py", src: `import os
import os.path as osp
from typing import List, Optional
from . import util
from .models import User as U
`, cases: []diffCase{
		{pattern: "import $M"},
		{pattern: "from $M import $N"},
		{pattern: "from $M import $$$"},
		{pattern: "import $M as $A"},
		{pattern: "from typing import $$$"},
	}},
	{lang: "rust", ag: "rust", ext: ".rs", src: `use std::fs;
use std::collections::{HashMap, HashSet};
use crate::config::Config as Cfg;
extern crate serde;
`, cases: []diffCase{
		{pattern: "use $P;"},
		{pattern: "use std::collections::{$$$};"},
		{pattern: "use $P as $A;"},
	}},
	{lang: "java", ag: "java", ext: ".java", src: `package a.b;
import java.util.List;
import static org.junit.Assert.assertEquals;
import java.io.*;
class X {}
`, cases: []diffCase{
		{pattern: "import $P;"},
		{pattern: "import static $P;"},
		{pattern: "package $P;"},
	}},
	{lang: "csharp", ag: "csharp", ext: ".cs", src: `using System;
using System.Linq;
using static System.Math;
using Json = Newtonsoft.Json;
namespace A.B { class C {} }
`, cases: []diffCase{
		{pattern: "using $N;"},
		{pattern: "using static $N;"},
		{pattern: "using $A = $B;"},
		{pattern: "namespace $N { $$$ }"},
	}},
	{lang: "go", ag: "go", ext: ".go", src: `package p

import "fmt"

import (
	"os"
	str "strings"
)

var _ = fmt.Sprint(os.Args, str.ToUpper("x"))
`, cases: []diffCase{
		{pattern: "import $P"},
		{pattern: "import ($$$)"},
		{pattern: "package $P"},
		{pattern: "var _ = $X"},
	}},
	{lang: "c", ag: "c", ext: ".c", src: `#include <stdio.h>
#include "util.h"
#  include <stdlib.h>
#define N 10
#ifdef DEBUG
#define LOG(x) printf x
#endif
int main(void) { return N; }
`, cases: []diffCase{
		{pattern: "#include $H"},
		{pattern: "#include <$H>"},
		{pattern: "#include \"$H\""},
		{pattern: "#ifdef $X\n$$$\n#endif"},
		{pattern: "#define $N($A) $B"},
	}},
	{lang: "json", ag: "json", ext: ".json", src: `{
  "name": "demo",
  "version": "1.0.0",
  "scripts": {"build": "tsc", "test": "jest"},
  "dependencies": {"react": "^18.0.0"},
  "private": true,
  "files": ["dist", "src"]
}
`, cases: []diffCase{
		{pattern: `"name": $V`, differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{`"name": "demo"`}},
		{pattern: `"$K": $V`, differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{`"name": "demo"`, `"version": "1.0.0"`, `"scripts": {"build": "tsc", "test": "jest"}`, `"build": "tsc"`, `"test": "jest"`, `"dependencies": {"react": "^18.0.0"}`, `"react": "^18.0.0"`, `"private": true`, `"files": ["dist", "src"]`}},
		{pattern: `"private": true`, differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{`"private": true`}},
		{pattern: `"scripts": { $$$ }`, differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{`"scripts": {"build": "tsc", "test": "jest"}`}},
		{pattern: `"files": [$$$]`, differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{`"files": ["dist", "src"]`}},
		{pattern: `"react": $V`, differ: "ast-grep cannot parse a JSON pair alone; we read it inside an object",
			want: []string{`"react": "^18.0.0"`}},
	}},
	{lang: "yaml", ag: "yaml", ext: ".yaml", src: `name: ci
on:
  push:
    branches: [main]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Test
        run: make test
      - uses: actions/setup-go@v5
        with:
          go-version: "1.26"
`, cases: []diffCase{
		{pattern: "runs-on: $V"},
		{pattern: "uses: $A"},
		{pattern: "- uses: $A"},
		{pattern: "name: $N"},
		{pattern: "go-version: $V"},
		{pattern: "run: $C"},
	}},
	{lang: "css", ag: "css", ext: ".css", src: `.btn { color: red; padding: 4px 8px; }
#main > .title:hover { color: #333; font-weight: bold; }
@media (max-width: 600px) { .btn { display: none; } }
`, cases: []diffCase{
		{pattern: "color: $C", differ: "ast-grep's CSS pattern is read as a selector and finds no declaration; we read a declaration",
			want: []string{"color: red;", "color: #333;"}},
		{pattern: "$P: $V", differ: "ast-grep's CSS pattern is read as a selector (it matches #main > .title:hover); we read a declaration",
			want: []string{"color: red;", "padding: 4px 8px;", "color: #333;", "font-weight: bold;", "display: none;"}},
		{pattern: ".btn { $$$ }"},
		{pattern: "display: none", differ: "ast-grep's CSS pattern is read as a selector and finds no declaration; we read a declaration",
			want: []string{"display: none;"}},
	}},
	{lang: "html", ag: "html", ext: ".html", src: `<!DOCTYPE html>
<html>
<head><title>Demo</title><script src="app.js"></script></head>
<body>
  <a href="/home" class="nav">Home</a>
  <img src="logo.png" alt="logo">
  <div id="main"><p>Hello</p></div>
</body>
</html>
`, cases: []diffCase{
		{pattern: `<a href="$U">$$$</a>`},
		{pattern: `<img src="$S" alt="$A">`},
		{pattern: `<script src="$S"></script>`},
		{pattern: `<p>$$$</p>`},
		{pattern: `<title>$T</title>`},
	}},
	{lang: "bash", ag: "bash", ext: ".sh", src: `#!/bin/bash
set -euo pipefail
NAME="${1:-world}"
if [ -z "$NAME" ]; then
  echo "no name" >&2
  exit 1
fi
for f in *.txt; do
  echo "$f"
done
curl -fsSL "https://example.com" | sh
`, cases: []diffCase{
		{pattern: "echo $A"},
		{pattern: "if [ $$$ ]; then\n  $$$\nfi"},
		{pattern: "for $F in $$$; do\n  $$$\ndone"},
		{pattern: "exit $N"},
		{pattern: "set $$$"},
		{pattern: "curl $$$ | sh"},
	}},
	{lang: "lua", ag: "lua", ext: ".lua", src: `local M = {}
local json = require("json")
function M.load(path)
  local f = io.open(path, "r")
  if not f then
    return nil, "cannot open " .. path
  end
  local text = f:read("*a")
  f:close()
  print("loaded", #text)
  return json.decode(text)
end
for i, v in ipairs({1, 2, 3}) do print(i, v) end
return M
`, cases: []diffCase{
		{pattern: "local $A = require($M)"},
		{pattern: "print($$$)"},
		{pattern: "if not $X then\n  $$$\nend"},
		{pattern: "$F:close()"},
		{pattern: "for $I, $V in ipairs($T) do $$$ end"},
		{pattern: "function $M.$F($$$)\n  $$$\nend"},
		{pattern: "return $$$"},
	}},
	{lang: "dart", ag: "dart", ext: ".dart", src: `import 'package:flutter/material.dart';
import 'package:http/http.dart' as http;

class CounterPage extends StatefulWidget {
  const CounterPage({super.key, required this.title});
  final String title;

  @override
  State<CounterPage> createState() => _CounterPageState();
}

class _CounterPageState extends State<CounterPage> {
  int _count = 0;
  late final TextEditingController _controller;

  @override
  void initState() {
    super.initState();
    _controller = TextEditingController();
  }

  @override
  void dispose() {
    _controller.dispose();
    super.dispose();
  }

  Future<void> _load() async {
    final res = await http.get(Uri.parse('https://example.com/count'));
    if (res.statusCode == 200) {
      setState(() {
        _count = int.parse(res.body);
      });
    } else {
      debugPrint('failed: ${res.statusCode}');
    }
  }

  @override
  Widget build(BuildContext context) {
    return Scaffold(
      appBar: AppBar(title: Text(widget.title)),
      body: Center(child: Text('$_count')),
      floatingActionButton: FloatingActionButton(
        onPressed: () => setState(() => _count++),
        child: const Icon(Icons.add),
      ),
    );
  }
}
`, cases: []diffCase{
		{pattern: "setState(() { $$$ })", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"setState(() {\n        _count = int.parse(res.body);\n      })"}},
		{pattern: "$X.dispose()", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"_controller.dispose()"}},
		{pattern: "super.$M()", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"super.initState()", "super.dispose()"}},
		{pattern: "Text($A)", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"Text(widget.title)", "Text('$_count')"}},
		{pattern: "const Icon($A)", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"const Icon(Icons.add)"}},
		{pattern: "await $X", differ: "ast-grep reads await $X at the top level as a declaration and matches the lone await token; we read an await expression",
			want: []string{"await http.get(Uri.parse('https://example.com/count'))"}},
		{pattern: "debugPrint($A)", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"debugPrint('failed: ${res.statusCode}')"}},
		{pattern: "@override"},
		{pattern: "final $A = $B;", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"final res = await http.get(Uri.parse('https://example.com/count'));"}},
		{pattern: "Navigator.of(context).pop()"},
		{pattern: "int.parse($X)", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"int.parse(res.body)"}},
		{pattern: "if ($A == $B) { $$$ } else { $$$ }", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"if (res.statusCode == 200) {\n      setState(() {\n        _count = int.parse(res.body);\n      });\n    } else {\n      debugPrint('failed: ${res.statusCode}');\n    }"}},
		{pattern: "Uri.parse($U)", differ: "ast-grep reads the pattern at the top level, where Dart allows only declarations, and finds nothing; we read it in a function body",
			want: []string{"Uri.parse('https://example.com/count')"}},
		{pattern: "class $C extends StatefulWidget { $$$ }"},
		{pattern: "Widget build(BuildContext context) { $$$ }"},
	}},
	{lang: "csharp", ag: "csharp", ext: ".cs", src: `using System;
using System.Linq;

[ApiController]
[Route("api/[controller]")]
public class ItemsController : ControllerBase
{
    private readonly AppDb _db;
    public ItemsController(AppDb db) => _db = db;

    [HttpGet("{id}")]
    public async Task<ActionResult<Item>> Get(int id)
    {
        var item = await _db.Items.FindAsync(id);
        return item is null ? NotFound() : Ok(item);
    }

    public record Point(int X, int Y);

    public string Describe(object o) => o switch
    {
        int n when n > 0 => $"positive {n}",
        string s => s.ToUpper(),
        _ => "other",
    };

    public void Log(string msg)
    {
        lock (_db)
        {
            Debug.WriteLine(msg);
        }
        var names = from i in _db.Items where i.Active select i.Name;
        Action<int> a = x => Console.WriteLine(x);
        string.IsNullOrEmpty(msg);
    }
}
`, cases: []diffCase{
		{pattern: "[HttpGet($P)]"},
		{pattern: "Ok($A)"},
		{pattern: "$X is null"},
		{pattern: "string.IsNullOrEmpty($S)"},
		{pattern: "lock ($X) { $$$ }", differ: "ast-grep's C# parse has an ERROR at each metavariable and finds nothing",
			want: []string{"lock (_db)\n        {\n            Debug.WriteLine(msg);\n        }"}},
		{pattern: "Debug.WriteLine($A)"},
		{pattern: "$A => $B", differ: "ast-grep's C# parse has an ERROR at each metavariable and also matches switch-expression arms (string s => …); we read a lambda",
			want: []string{"x => Console.WriteLine(x)"}},
		{pattern: "public record $R($$$);"},
		{pattern: "$X.ToUpper()"},
		{pattern: "await $D.Items.FindAsync($I)"},
		{pattern: "$C ? $A : $B"},
	}},
	{lang: "cpp", ag: "cpp", ext: ".cpp", src: `#include <iostream>
#include <memory>
#include <vector>

namespace app {

class Widget {
public:
    explicit Widget(int id) : id_(id) {}
    virtual ~Widget() = default;
    int id() const { return id_; }
private:
    int id_;
};

std::unique_ptr<Widget> make(int id) {
    return std::make_unique<Widget>(id);
}

int run(const std::vector<int>& xs) {
    int total = 0;
    for (const auto& x : xs) {
        total += x;
    }
    if (total > 10) {
        std::cout << "big " << total << std::endl;
    }
    auto w = make(3);
    delete nullptr;
    return total;
}

}  // namespace app
`, cases: []diffCase{
		{pattern: "std::cout << $$$"},
		{pattern: "std::make_unique<$T>($$$)"},
		{pattern: "for (const auto& $X : $XS) { $$$ }"},
		{pattern: "auto $A = $B;"},
		{pattern: "return $X;"},
		{pattern: "if ($C) { $$$ }"},
		{pattern: "class $C { $$$ };", differ: "ast-grep cannot parse a class and its ';'; we read the class",
			want: []string{"class Widget {\npublic:\n    explicit Widget(int id) : id_(id) {}\n    virtual ~Widget() = default;\n    int id() const { return id_; }\nprivate:\n    int id_;\n}"}},
		{pattern: "namespace $N { $$$ }"},
		{pattern: "#include <$H>"},
		{pattern: "$A += $B"},
	}},
	{lang: "kotlin", ag: "kotlin", ext: ".kt", src: `package demo

import java.io.File

object Config {
    private val props = mutableMapOf<String, String>()

    fun load(path: String) {
        File(path).readLines().forEach { line ->
            val (k, v) = line.split("=", limit = 2)
            props[k.trim()] = v.trim()
        }
        require(props.isNotEmpty()) { "empty config" }
    }

    fun get(key: String): String = props[key] ?: error("missing $key")

    suspend fun refresh() = withContext(Dispatchers.IO) {
        load("app.conf")
    }
}

fun main(args: Array<String>) {
    Config.load(args.firstOrNull() ?: "app.conf")
    val port = Config.get("port").toInt()
    println("port=$port")
    try {
        check(port > 0)
    } catch (e: IllegalStateException) {
        e.printStackTrace()
    }
}
`, cases: []diffCase{
		{pattern: "require($C) { $$$ }"},
		{pattern: "$X ?: error($M)"},
		{pattern: "withContext($D) { $$$ }"},
		{pattern: "try { $$$ } catch ($E: $T) { $$$ }"},
		{pattern: "$E.printStackTrace()"},
		{pattern: "val ($A, $B) = $C"},
		{pattern: "$X.toInt()"},
		{pattern: "mutableMapOf<$K, $V>()"},
		{pattern: "suspend fun $F() = $E"},
		{pattern: "object $O { $$$ }", differ: "ast-grep's parse of the object is all ERROR and finds nothing; we read the object with the $$$ as its body",
			want: []string{"object Config {\n    private val props = mutableMapOf<String, String>()\n\n    fun load(path: String) {\n        File(path).readLines().forEach { line ->\n            val (k, v) = line.split(\"=\", limit = 2)\n            props[k.trim()] = v.trim()\n        }\n        require(props.isNotEmpty()) { \"empty config\" }\n    }\n\n    fun get(key: String): String = props[key] ?: error(\"missing $key\")\n\n    suspend fun refresh() = withContext(Dispatchers.IO) {\n        load(\"app.conf\")\n    }\n}"}},
	}},
	{lang: "rust", ag: "rust", ext: ".rs", src: `use std::sync::{Arc, Mutex};
use std::thread;

async fn fetch(url: &str) -> Result<String, reqwest::Error> {
    let body = reqwest::get(url).await?.text().await?;
    Ok(body)
}

fn spawn_workers(n: usize) -> Vec<thread::JoinHandle<()>> {
    let counter = Arc::new(Mutex::new(0));
    (0..n)
        .map(|i| {
            let c = Arc::clone(&counter);
            thread::spawn(move || {
                let mut g = c.lock().unwrap();
                *g += i;
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_works() {
        let hs = spawn_workers(4);
        for h in hs {
            h.join().unwrap();
        }
        assert!(true, "done");
    }
}
`, cases: []diffCase{
		{pattern: "$X.await?"},
		{pattern: "thread::spawn(move || { $$$ })"},
		{pattern: "Arc::clone(&$X)"},
		{pattern: "$X.lock().unwrap()"},
		{pattern: "#[test]"},
		{pattern: "assert!($$$)"},
		{pattern: "async fn $F($$$) -> $R { $$$ }"},
		{pattern: "|$A| $B"},
		{pattern: "mod $M { $$$ }"},
		{pattern: "use $$$;"},
	}},
	{lang: "haskell", ag: "haskell", ext: ".hs", src: `module Main where

import qualified Data.Map as M
import Data.List (sortBy)

data Shape = Circle Double | Rect Double Double
  deriving (Show, Eq)

area :: Shape -> Double
area (Circle r) = pi * r * r
area (Rect w h) = w * h

main :: IO ()
main = do
  let shapes = [Circle 1, Rect 2 3]
  mapM_ (print . area) shapes
  putStrLn "done"
  case M.lookup "a" (M.fromList [("a", 1)]) of
    Just v -> print v
    Nothing -> return ()
`, cases: []diffCase{
		{pattern: "putStrLn $S"},
		{pattern: "print $X"},
		{pattern: "mapM_ $F $XS"},
		{pattern: "import qualified $M as $N", differ: "ast-grep cannot parse the import (its names must be constructors); we read them as names",
			want: []string{"import qualified Data.Map as M"}},
		{pattern: "area :: $T"},
		{pattern: "let $A = $B"},
	}},
	{lang: "tsx", ag: "tsx", ext: ".tsx", src: `import React, { useEffect, useState } from "react";

type Props = { userId: string; onClose?: () => void };

export function Profile({ userId, onClose }: Props) {
  const [user, setUser] = useState<User | null>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    setLoading(true);
    fetch(` + "`/api/users/${userId}`" + `)
      .then((r) => r.json())
      .then((u) => setUser(u))
      .catch((e) => console.error(e))
      .finally(() => setLoading(false));
  }, [userId]);

  if (loading) return <Spinner />;
  return (
    <div className="profile">
      <h1>{user?.name ?? "unknown"}</h1>
      <button onClick={() => onClose?.()}>Close</button>
      {user && <Avatar src={user.avatar} size={48} />}
    </div>
  );
}
`, cases: []diffCase{
		{pattern: "useState($A)"},
		{pattern: "const [$A, $B] = useState($C)"},
		{pattern: "useEffect(() => { $$$ }, [$$$])"},
		{pattern: "$X.then($F)"},
		{pattern: "console.error($E)"},
		{pattern: "<button onClick={$H}>$$$</button>"},
		{pattern: "<Avatar $$$ />"},
		{pattern: "$A ?? $B"},
		{pattern: "$A?.$B"},
		{pattern: "if ($C) return $X;"},
		{pattern: "<h1>$$$</h1>"},
		{pattern: "fetch($U)"},
	}},
	{lang: "javascript", ag: "javascript", ext: ".js", src: `const express = require("express");
const app = express();

app.use(express.json());

app.get("/items/:id", async (req, res, next) => {
  try {
    const { id } = req.params;
    const item = await db.find({ id, ...req.query });
    if (!item) {
      return res.status(404).json({ error: "not found" });
    }
    res.json(item);
  } catch (err) {
    next(err);
  }
});

module.exports = app;
setTimeout(() => console.log("ready"), 100);
const total = items.reduce((acc, x) => acc + x.price, 0);
export const sum = (a, b) => a + b;
`, cases: []diffCase{
		{pattern: "app.get($P, async ($$$) => { $$$ })"},
		{pattern: "res.status($C).json($B)"},
		{pattern: "const { $$$ } = $X"},
		{pattern: "module.exports = $X"},
		{pattern: "setTimeout($F, $T)"},
		{pattern: "$X.reduce(($A, $B) => $E, $I)"},
		{pattern: "await $X"},
		{pattern: "{ $$$, ...$R }", differ: "ast-grep reads the braces at the top level as a block and finds nothing; we read an object",
			want: []string{"{ id, ...req.query }"}},
		{pattern: "next($E)"},
		{pattern: "export const $N = ($$$) => $E"},
		{pattern: "if (!$X) { $$$ }"},
	}},
	{lang: "python", ag: "python", ext: ".py", src: `import asyncio
from functools import lru_cache

import requests


@lru_cache(maxsize=128)
def fetch(url, timeout=10):
    resp = requests.get(url, timeout=timeout)
    resp.raise_for_status()
    return resp.json()


async def main(urls):
    results = await asyncio.gather(*(run(u) for u in urls))
    for url, res in zip(urls, results):
        print(f"{url}: {len(res)}")
    if (n := len(results)) > 10:
        print("many", n)
    data = {k: v for k, v in results if v}
    assert data, "no data"
    return sorted(data, key=lambda x: x[1], reverse=True)


if __name__ == "__main__":
    asyncio.run(main(["a", "b"]))
`, cases: []diffCase{
		{pattern: "requests.get($$$)"},
		{pattern: "@lru_cache($$$)"},
		{pattern: "async def $F($$$):\n    $$$"},
		{pattern: "await $X"},
		{pattern: "for $A, $B in zip($$$):\n    $$$"},
		{pattern: "lambda $X: $E"},
		{pattern: "sorted($$$, key=$K, reverse=True)"},
		{pattern: "{$K: $V for $K, $V in $I if $C}"},
		{pattern: "assert $C, $M"},
		{pattern: "if __name__ == \"__main__\":\n    $$$"},
		{pattern: "$R.raise_for_status()"},
		{pattern: "($N := $E)"},
	}},
	{lang: "java", ag: "java", ext: ".java", src: `package a;

import java.util.*;
import java.util.concurrent.CompletableFuture;

public class Service<T extends Comparable<T>> {
    private final Map<String, List<T>> index = new HashMap<>();

    @Override
    public String toString() {
        return "Service(" + index.size() + ")";
    }

    @SuppressWarnings("unchecked")
    public synchronized void add(String key, T value) {
        index.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        Objects.requireNonNull(value, "value");
    }

    public CompletableFuture<Integer> countAsync() {
        return CompletableFuture.supplyAsync(() -> index.values().stream().mapToInt(List::size).sum());
    }

    public Optional<T> max(String key) {
        for (var e : index.entrySet()) {
            if (e.getKey().equals(key)) {
                return e.getValue().stream().max(Comparator.naturalOrder());
            }
        }
        return Optional.empty();
    }
}
`, cases: []diffCase{
		{pattern: "@Override"},
		{pattern: "@SuppressWarnings($A)"},
		{pattern: "new HashMap<>()"},
		{pattern: "Objects.requireNonNull($$$)"},
		{pattern: "$M.computeIfAbsent($K, $F)"},
		{pattern: "for (var $E : $C) { $$$ }"},
		{pattern: "$A.equals($B)"},
		{pattern: "Optional.empty()"},
		{pattern: "() -> $E"},
		{pattern: "$T::$M"},
		{pattern: "public synchronized void $F($$$) { $$$ }"},
	}},
	{lang: "go", ag: "go", ext: ".go", src: `package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

var ErrClosed = errors.New("closed")

type Pool struct {
	mu    sync.Mutex
	jobs  chan func()
	done  chan struct{}
	count int
}

func NewPool(n int) *Pool {
	p := &Pool{jobs: make(chan func(), n), done: make(chan struct{})}
	for i := 0; i < n; i++ {
		go p.loop()
	}
	return p
}

func (p *Pool) loop() {
	for {
		select {
		case f := <-p.jobs:
			f()
		case <-p.done:
			return
		}
	}
}

func (p *Pool) Submit(ctx context.Context, f func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case p.jobs <- f:
		p.count++
		return nil
	case <-ctx.Done():
		return fmt.Errorf("submit: %w", ctx.Err())
	}
}

func check(err error) bool {
	return errors.Is(err, ErrClosed)
}
`, cases: []diffCase{
		{pattern: "errors.Is($E, $T)", peer: "func _() { errors.Is($E, $T) }", peerSel: "call_expression"},
		{pattern: "make(chan $T, $N)", peer: "func _() { make(chan $T, $N) }", peerSel: "call_expression"},
		{pattern: "select { $$$ }"},
		{pattern: "case $X := <-$C:", differ: "ast-grep reads the clause at the top level, where Go allows only declarations, and finds nothing; we read it in a select",
			want: []string{"case f := <-p.jobs:\n\t\t\tf()\n"}},
		{pattern: "$M.Lock()"},
		{pattern: "defer $M.Unlock()"},
		{pattern: "fmt.Errorf($F, $$$)", peer: "func _() { fmt.Errorf($F, $$$) }", peerSel: "call_expression"},
		{pattern: "go $X.$M()"},
		{pattern: "var $E = errors.New($M)"},
		{pattern: "func ($R *Pool) $M($$$) $T { $$$ }"},
		{pattern: "$X++"},
		{pattern: "type $T struct { $$$ }"},
	}},
	{lang: "ruby", ag: "ruby", ext: ".rb", src: `class UsersController < ApplicationController
  before_action :set_user, only: %i[show update]

  def index
    @users = User.where(active: true).order(created_at: :desc).limit(20)
    render json: @users
  end

  def update
    if @user.update(user_params)
      redirect_to @user, notice: "Updated"
    else
      render :edit, status: :unprocessable_entity
    end
  end

  private

  def user_params
    params.require(:user).permit(:name, :email)
  end

  def set_user
    @user = User.find(params[:id])
  rescue ActiveRecord::RecordNotFound
    head :not_found
  end
end
`, cases: []diffCase{
		{pattern: "before_action $$$"},
		{pattern: "render json: $X"},
		{pattern: "User.where($$$)"},
		{pattern: "params.require($A).permit($$$)"},
		{pattern: "redirect_to $$$"},
		{pattern: "if $C\n  $$$\nelse\n  $$$\nend"},
		{pattern: "@$V = $E"},
		{pattern: "head $S"},
	}},
	{lang: "php", ag: "php", ext: ".php", src: `<?php
declare(strict_types=1);

function slugify(string $text): string
{
    $text = preg_replace('~[^\pL\d]+~u', '-', $text);
    $text = trim($text, '-');
    return strtolower($text ?? '');
}

$items = array_map(fn($x) => $x * 2, [1, 2, 3]);
$config = ['debug' => true, 'name' => 'app'];
if (!isset($config['debug'])) {
    throw new InvalidArgumentException('missing debug');
}
$db = new PDO($dsn, $user, $pass);
$stmt = $db->prepare('SELECT * FROM users WHERE id = ?');
$stmt->execute([$id]);
echo json_encode($items);
`, cases: []diffCase{
		{pattern: "preg_replace($$$)"},
		{pattern: "array_map($F, $A)"},
		{pattern: "fn($X) => $E"},
		{pattern: "throw new $E($M);"},
		{pattern: "new PDO($$$)"},
		{pattern: "$S->execute($A)"},
		{pattern: "json_encode($X)"},
		{pattern: "function $F($$$): string { $$$ }"},
		{pattern: "isset($X)"},
	}},
}
