// This file holds how a server is learnt to echo document versions in
// its diagnostics or not: a server that does not (configured so, or seen
// publishing without a version for an open document) gets answers that
// may rest on silence (see wait.go) and is never sent a close and reopen
// in a row (see sync.go).

package lspbridge

// unversionedLocked reports whether the server's publications cannot be
// tied to a document version: its config says so (cfg.Unversioned), or
// it was seen publishing without a version for an open document. The
// caller holds mu.
func (s *server) unversionedLocked() bool {
	return s.cfg.Unversioned || s.unversioned
}

// unversionedNow is unversionedLocked for a caller that does not hold mu.
func (s *server) unversionedNow() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unversionedLocked()
}

// learnVersionsLocked records what a publication for path says of the
// server's versions. Only an open document's publication tells whether
// the server echoes versions: gopls and pyright publish for files they
// were never sent (other files of a package, of the workspace) without
// one, as the protocol allows, and those say nothing about the versions
// of open documents. The caller holds mu.
func (s *server) learnVersionsLocked(path string, version *int32) {
	if _, open := s.docs[path]; open && version == nil {
		s.unversioned = true
	}
}
