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
