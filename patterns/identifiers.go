// This file finds where a name is written as an identifier in one file,
// read with the file's grammar: strings and comments do not count. The
// language-server bridge uses it to check a rename against the uses a
// server did not see.

package patterns

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// identifierKinds caches, per language, the rule matching any named
// identifier leaf of its grammar (nil: the grammar has none).
var identifierKinds sync.Map // *Language → []string

// IdentifierUses returns the positions (1-based line, column in
// characters) where name is written as an identifier in the file at path:
// a named node of a kind the grammar calls identifier (identifier,
// property_identifier, field_identifier, type_identifier, …; Ruby's
// constant, PHP's name) whose text is exactly name. ok is false when no
// built-in grammar reads the file, or its grammar has no identifier kind.
func IdentifierUses(ctx context.Context, path, name string) (uses []Position, ok bool, err error) {
	lang := LanguageForPath(path)
	if lang == nil {
		return nil, false, nil
	}
	if avail, _ := lang.Available(); !avail {
		return nil, false, nil
	}
	kinds := identifierKindsOf(lang)
	if len(kinds) == 0 {
		return nil, false, nil
	}
	alts := make([]map[string]string, len(kinds))
	for i, k := range kinds {
		alts[i] = map[string]string{"kind": k}
	}
	rule, _ := json.Marshal(map[string]any{"any": alts, "regex": "^" + regexp.QuoteMeta(name) + "$"})
	spec, err := ParseRule(rule, nil, nil)
	if err != nil {
		return nil, true, err
	}
	res, err := SearchRule(ctx, filepath.Dir(path), spec, SearchOptions{Path: path, Language: lang.ID, Workers: 1})
	if err != nil {
		return nil, true, err
	}
	for _, f := range res.Files {
		for _, m := range f.Matches {
			uses = append(uses, m.From)
		}
	}
	return uses, true, nil
}

// identifierKindsOf lists lang's named kinds that are identifier leaves.
func identifierKindsOf(lang *Language) []string {
	if v, ok := identifierKinds.Load(lang); ok {
		return v.([]string)
	}
	var kinds []string
	seen := map[string]bool{}
	for sym, k := range lang.kinds {
		n := lang.kindNames[k]
		if lang.namedSyms[sym] != 1 || seen[n] {
			continue
		}
		if n == "identifier" || strings.HasSuffix(n, "_identifier") && !strings.HasPrefix(n, "scoped_") && !strings.HasPrefix(n, "qualified_") ||
			n == "constant" && lang.ID == "ruby" || n == "name" && lang.ID == "php" {
			seen[n] = true
			kinds = append(kinds, n)
		}
	}
	identifierKinds.Store(lang, kinds)
	return kinds
}
