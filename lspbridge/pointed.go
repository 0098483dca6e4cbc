// This file lets read actions follow a server's answer out of the root:
// a definition in the Go standard library, a type in node_modules, a C
// system header. DESIGN.md's Paths rule: read tools refuse paths outside
// the root unless a language server itself pointed to the file; writes
// (lsp_rename) always refuse them.

package lspbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/agent-tools/agent-tools/internal/workspace"
)

// pointedCap bounds the files remembered; past it the set starts afresh.
const pointedCap = 10000

// pointedFiles remembers the files outside the run's root that servers
// named in their answers, each with the server that named it (which is
// the one asked about it later).
type pointedFiles struct {
	mu    sync.Mutex           // guards files
	files map[string]serverKey // canonical path → the server that pointed to it
}

// remember records paths outside root that srv's answer named.
func (s *Supervisor) remember(root string, srv *server, paths ...string) {
	root = canonical(root)
	s.pointed.mu.Lock()
	defer s.pointed.mu.Unlock()
	for _, p := range paths {
		if !filepath.IsAbs(p) || workspace.Within(root, p) {
			continue
		}
		if s.pointed.files == nil || len(s.pointed.files) >= pointedCap {
			s.pointed.files = map[string]serverKey{}
		}
		s.pointed.files[p] = serverKey{srv.cfg.Name, srv.root}
	}
}

// fileServer resolves req.File for a read action and returns it with its
// running server: a file inside the root goes to the server its markers
// name; one outside that a server's earlier answer named goes, read-only,
// to that server.
func (s *Supervisor) fileServer(ctx context.Context, req Request) (string, *server, error) {
	path, err := existingFile(req.Root, req.File)
	if err == nil {
		srv, err := s.serverFor(ctx, req.Root, path)
		return path, srv, err
	}
	if !filepath.IsAbs(req.File) {
		return "", nil, err
	}
	real, rerr := filepath.EvalSymlinks(req.File)
	if rerr != nil {
		return "", nil, err
	}
	s.pointed.mu.Lock()
	k, ok := s.pointed.files[real]
	s.pointed.mu.Unlock()
	if !ok {
		return "", nil, fmt.Errorf("%w (a file outside the root can be read only after a server's answer named it: a definition, reference, call or symbol there)", err)
	}
	if st, serr := os.Stat(real); serr != nil || st.IsDir() {
		return "", nil, fmt.Errorf("argument 'file': %s is no longer a file", req.File)
	}
	var cfg *ServerConfig
	for i := range s.opts.Servers {
		if s.opts.Servers[i].Name == k.name {
			cfg = &s.opts.Servers[i]
		}
	}
	if cfg == nil {
		return "", nil, errors.New("the server that named " + req.File + " is no longer configured")
	}
	srv, err := s.get(ctx, cfg, k.root)
	if err != nil {
		return "", nil, err
	}
	if err := srv.refresh(ctx); err != nil {
		return "", nil, err
	}
	return real, srv, nil
}
