// This file gives clangd a compilation database when the project has only
// a compile_flags.txt: clangd's background index (what references,
// rename and workspace symbols across files rely on) only indexes the
// translation units a compilation database lists; with compile_flags.txt
// alone it knows the files that are open, so a function used in 20 places
// across 5 files shows "1 of 1" references and a rename changes one file.

package lspbridge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-tools/agent-tools/internal/atomicfile"
)

// translationUnitCap bounds the generated database.
const translationUnitCap = 5000

var translationUnitExts = map[string]string{".c": "cc", ".cc": "c++", ".cpp": "c++", ".cxx": "c++", ".c++": "c++"}

// clangdDatabase returns clangd's arguments: unchanged when root has a
// compile_commands.json, no compile_flags.txt, or the user passes a
// --compile-commands-dir; else with --compile-commands-dir pointing at a
// database generated from compile_flags.txt and every translation unit
// (.c, .cc, .cpp, .cxx) under root. The database, and the index clangd
// keeps beside it (.cache/clangd/index), are written outside the user's
// tree, in the user cache directory (agent-tools/clangd/<hash of root>).
// note says what was done, for status.
func clangdDatabase(root string, args []string) ([]string, string, error) {
	if exists(filepath.Join(root, "compile_commands.json")) || slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--compile-commands-dir") }) {
		return args, "", nil
	}
	data, err := os.ReadFile(filepath.Join(root, "compile_flags.txt"))
	if err != nil {
		return args, "", nil
	}
	var flags []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			flags = append(flags, l)
		}
	}
	cmds := compileCommands(root, flags)
	if len(cmds) == 0 {
		return args, "", nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "agent-tools", "clangd", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("creating the directory for clangd's compilation database: %w", err)
	}
	out, _ := json.MarshalIndent(cmds, "", "  ")
	file := filepath.Join(dir, "compile_commands.json")
	if err := atomicfile.Write(file, out, 0o644); err != nil {
		return nil, "", fmt.Errorf("writing clangd's compilation database: %w", err)
	}
	note := fmt.Sprintf("compilation database generated from compile_flags.txt for %d translation units in %s (the background index is kept there too)", len(cmds), dir)
	return append(args, "--compile-commands-dir="+dir), note, nil
}

// compileCommand is one entry of a compilation database.
// https://clang.llvm.org/docs/JSONCompilationDatabase.html
type compileCommand struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
}

// compileCommands lists a command with flags for each translation unit
// under root (up to translationUnitCap), skipping hidden and vendored
// directories.
func compileCommands(root string, flags []string) []compileCommand {
	var cmds []compileCommand
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		cc, ok := translationUnitExts[strings.ToLower(filepath.Ext(p))]
		if !ok {
			return nil
		}
		if len(cmds) == translationUnitCap {
			return filepath.SkipAll
		}
		argv := append(append([]string{cc}, flags...), "-c", p)
		cmds = append(cmds, compileCommand{Directory: root, File: p, Arguments: argv})
		return nil
	})
	return cmds
}

// clangdFlags are the compile flags every file clangd compiles gets on top
// of its own: clang stops after 20 errors by default, and clangd then
// publishes those 20 and "too many errors emitted". In a file with many
// errors a new one past the limit would not be seen, and an old one that
// moved back under it would look new; with no limit every error is
// listed (the answers cap what they show per file themselves).
var clangdFlags = []string{"-ferror-limit=0"}

// clangdConfigHome returns a directory to hand clangd as XDG_CONFIG_HOME:
// its clangd/config.yaml adds clangdFlags, then holds the user's own
// clangd config (from XDG_CONFIG_HOME or ~/.config) unchanged as a later
// document, so a setting of theirs still applies and wins where the two
// meet. It lives in the user cache directory, named by a hash of its
// content, so runs with different user configs do not share one.
func clangdConfigHome() (string, error) {
	var b strings.Builder
	b.WriteString("# written by agent-tools for the clangd it starts; the user's own config follows\n")
	b.WriteString("CompileFlags:\n  Add: [" + strings.Join(clangdFlags, ", ") + "]\n")
	if own, err := os.ReadFile(userClangdConfig()); err == nil && len(strings.TrimSpace(string(own))) > 0 {
		b.WriteString("---\n")
		b.Write(own)
		if !strings.HasSuffix(string(own), "\n") {
			b.WriteString("\n")
		}
	}
	text := b.String()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(text))
	home := filepath.Join(cache, "agent-tools", "clangd", "config-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(filepath.Join(home, "clangd"), 0o755); err != nil {
		return "", fmt.Errorf("creating the directory for clangd's config: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(home, "clangd", "config.yaml"), []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("writing clangd's config: %w", err)
	}
	return home, nil
}

// userClangdConfig is where clangd looks for the user's config on Linux
// and the BSDs; "" when there is no home to look in.
func userClangdConfig() string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "clangd", "config.yaml")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", "clangd", "config.yaml")
	}
	return ""
}

// withEnv returns env with name set to value (replacing an earlier one).
func withEnv(env []string, name, value string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	return append(out, name+"="+value)
}
