// This file holds which version of a language server runs (from its
// initialize answer, else the npm package that installed it), for the
// messages that name it.

package lspbridge

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agent-tools/agent-tools/internal/proc"
)

// describe names the server with its version for messages: "gopls
// v0.23.0", "clangd 14.0.6", "pyright 1.1.407"; or with "(which reports
// no version)".
func (s *server) describe() string {
	if v := s.version(); v != "" {
		return s.cfg.Name + " " + v
	}
	return s.cfg.Name + " (which reports no version)"
}

var (
	versionRE = regexp.MustCompile(`v?\d+\.\d+(\.\d+)?`)
	versions  sync.Map // binary path → version found next to it ("" for none)
)

// version is the server's version: from its initialize answer (gopls
// sends its build info as JSON there, clangd a sentence), else from the
// package.json of an npm-installed binary (pyright and
// typescript-language-server send no serverInfo); "" when neither says.
func (s *server) version() string {
	if v := s.info.Version; v != "" {
		var bi struct {
			Version string
			Main    struct{ Version string }
		}
		if strings.HasPrefix(v, "{") && json.Unmarshal([]byte(v), &bi) == nil {
			return cmp.Or(bi.Main.Version, bi.Version)
		}
		if m := versionRE.FindString(v); m != "" {
			return m
		}
		return v
	}
	bin, err := proc.LookPath(s.cfg.Command[0])
	if err != nil {
		return ""
	}
	if v, ok := versions.Load(bin); ok {
		return v.(string)
	}
	v := npmVersion(bin)
	versions.Store(bin, v)
	return v
}

// npmVersion reads the version of the npm package that holds bin (a
// symlink into node_modules/<pkg>/…), from the nearest package.json with
// a name and a version, up to four directories above the real file.
func npmVersion(bin string) string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	dir := filepath.Dir(real)
	for range 4 {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var p struct{ Name, Version string }
			if json.Unmarshal(data, &p) == nil && p.Name != "" && p.Version != "" {
				return p.Version
			}
		}
		dir = filepath.Dir(dir)
	}
	return ""
}
