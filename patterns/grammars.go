// This file links the grammars that are Go modules. Each one is a cgo
// package compiling its generated parser.c; the first build is slow, later
// builds come from the Go cache.

package patterns

import (
	"unsafe"

	swift "github.com/alex-pinkus/tree-sitter-swift/bindings/go"
	kotlin "github.com/tree-sitter-grammars/tree-sitter-kotlin/bindings/go"
	lua "github.com/tree-sitter-grammars/tree-sitter-lua/bindings/go"
	toml "github.com/tree-sitter-grammars/tree-sitter-toml/bindings/go"
	yaml "github.com/tree-sitter-grammars/tree-sitter-yaml/bindings/go"
	bash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	csharp "github.com/tree-sitter/tree-sitter-c-sharp/bindings/go"
	c "github.com/tree-sitter/tree-sitter-c/bindings/go"
	cpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	css "github.com/tree-sitter/tree-sitter-css/bindings/go"
	golang "github.com/tree-sitter/tree-sitter-go/bindings/go"
	haskell "github.com/tree-sitter/tree-sitter-haskell/bindings/go"
	html "github.com/tree-sitter/tree-sitter-html/bindings/go"
	java "github.com/tree-sitter/tree-sitter-java/bindings/go"
	javascript "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	json "github.com/tree-sitter/tree-sitter-json/bindings/go"
	php "github.com/tree-sitter/tree-sitter-php/bindings/go"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
	ruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	rust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	scala "github.com/tree-sitter/tree-sitter-scala/bindings/go"
	typescript "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// moduleGrammars maps a language id to its grammar constructor and the Go
// module that provides it (for doctor's version line).
var moduleGrammars = map[string]struct {
	load   func() unsafe.Pointer
	module string
}{
	"bash":       {bash.Language, "github.com/tree-sitter/tree-sitter-bash"},
	"c":          {c.Language, "github.com/tree-sitter/tree-sitter-c"},
	"c-sharp":    {csharp.Language, "github.com/tree-sitter/tree-sitter-c-sharp"},
	"cpp":        {cpp.Language, "github.com/tree-sitter/tree-sitter-cpp"},
	"css":        {css.Language, "github.com/tree-sitter/tree-sitter-css"},
	"go":         {golang.Language, "github.com/tree-sitter/tree-sitter-go"},
	"haskell":    {haskell.Language, "github.com/tree-sitter/tree-sitter-haskell"},
	"html":       {html.Language, "github.com/tree-sitter/tree-sitter-html"},
	"java":       {java.Language, "github.com/tree-sitter/tree-sitter-java"},
	"javascript": {javascript.Language, "github.com/tree-sitter/tree-sitter-javascript"},
	"json":       {json.Language, "github.com/tree-sitter/tree-sitter-json"},
	"kotlin":     {kotlin.Language, "github.com/tree-sitter-grammars/tree-sitter-kotlin"},
	"lua":        {lua.Language, "github.com/tree-sitter-grammars/tree-sitter-lua"},
	"php":        {php.LanguagePHP, "github.com/tree-sitter/tree-sitter-php"},
	"python":     {python.Language, "github.com/tree-sitter/tree-sitter-python"},
	"ruby":       {ruby.Language, "github.com/tree-sitter/tree-sitter-ruby"},
	"rust":       {rust.Language, "github.com/tree-sitter/tree-sitter-rust"},
	"scala":      {scala.Language, "github.com/tree-sitter/tree-sitter-scala"},
	"swift":      {swift.Language, "github.com/alex-pinkus/tree-sitter-swift"},
	"toml":       {toml.Language, "github.com/tree-sitter-grammars/tree-sitter-toml"},
	"tsx":        {typescript.LanguageTSX, "github.com/tree-sitter/tree-sitter-typescript"},
	"typescript": {typescript.LanguageTypescript, "github.com/tree-sitter/tree-sitter-typescript"},
	"yaml":       {yaml.Language, "github.com/tree-sitter-grammars/tree-sitter-yaml"},
}
