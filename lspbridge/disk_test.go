package lspbridge

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestStampTrust pins the file identity rule: a stamp whose modification
// time was under stampTrust old when it was taken never vouches for the
// content, because a second write in the same clock tick (or within a
// coarse file system's granularity) can keep size and mtime.
func TestStampTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.go")
	stat := func() stamp {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return stampOf(fi)
	}
	if err := os.WriteFile(path, []byte("package a // one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := stat()
	// A second write of the same size, with the mtime put back to the
	// first one's: what a fast double write looks like on a coarse clock.
	if err := os.WriteFile(path, []byte("package a // two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fresh.mtime, fresh.mtime); err != nil {
		t.Fatal(err)
	}
	now := stat()
	if now.size != fresh.size || !now.mtime.Equal(fresh.mtime) {
		t.Fatalf("the test did not reproduce equal stamps: %+v vs %+v", now, fresh)
	}
	if fresh.trusted || fresh.same(now) {
		t.Errorf("a stamp taken right after the write is trusted (%+v): the second write would be missed", fresh)
	}

	// An mtime older than stampTrust is trusted, and equal stamps then
	// mean the same file.
	old := time.Now().Add(-2 * stampTrust)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	settled := stat()
	if !settled.trusted || !settled.same(stat()) {
		t.Errorf("an old stamp is not trusted: %+v", settled)
	}
	// A trusted stamp still sees a change of size or mtime.
	if err := os.WriteFile(path, []byte("package a // three, longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if settled.same(stat()) {
		t.Error("a trusted stamp takes a rewritten file for the same")
	}
}
