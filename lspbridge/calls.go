// This file holds how requests and document changes reach a server:
// calls bounded by the caller's context, the request timeout and the
// server's exit; the send lock that keeps versions in order; and the stop
// of a server that hangs.

package lspbridge

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// hung stops a server that did not answer or read within RequestTimeout
// and says so. A hung server would not honour a goodbye or SIGTERM, so
// its group is killed at once; the reaping goes on in the background (the
// caller returns at once).
func (s *server) hung(what string) error {
	s.hangs.Store(true)
	s.log.Warn().Str("request", what).Dur("timeout", s.opts.RequestTimeout).Msg("language server did not answer in time: killing it")
	s.proc.Signal(syscall.SIGKILL)
	go s.proc.Stop(context.Background(), nil)
	return fmt.Errorf("%s did not %s within %s: it was stopped and starts afresh on next use%s",
		s.cfg.Name, what, s.opts.RequestTimeout, stderrNote(s.proc))
}

// call is conn.call bounded by the caller's ctx, RequestTimeout and the
// server's exit, whichever comes first. A server that does not answer
// within RequestTimeout is taken to hang: it is stopped (the next call
// starts a fresh one). A cancelled call returns at once; the server gets
// $/cancelRequest and stays usable.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	// conn.call only watches its context: make the server's exit cancel it.
	go func() {
		select {
		case <-s.proc.Done():
			cancel()
		case <-rctx.Done():
		}
	}()
	err := s.conn.call(rctx, method, params, result)
	if err == nil || ctx.Err() != nil {
		return err
	}
	select {
	case <-s.conn.disconnected():
		// The server closed its end: it is exiting, but proc may not have
		// reaped it yet. Wait a little so the error can say it exited.
		select {
		case <-s.proc.Done():
		case <-time.After(500 * time.Millisecond):
		}
	default:
	}
	switch {
	case s.exited():
		return s.exitErr()
	case rctx.Err() != nil:
		return s.hung("answer " + method)
	}
	return err
}

// exclusive runs fn holding the send lock, on a goroutine of its own, and
// waits for it, ctx, RequestTimeout or the server's exit, whichever comes
// first. fn keeps the lock until it returns, so what it sends reaches the
// server in order even when its caller gave up; fn must update the
// documents before it writes, so that they describe what is in flight. A
// write that does not finish within RequestTimeout means a server that no
// longer reads its input: it is stopped, which also ends the write.
func (s *server) exclusive(ctx context.Context, fn func() error) error {
	select {
	case s.sendLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.proc.Done():
		return s.exitErr()
	}
	done := make(chan error, 1)
	go func() {
		defer func() { <-s.sendLock }()
		done <- fn()
	}()
	t := time.NewTimer(s.opts.RequestTimeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-s.proc.Done():
		return s.exitErr()
	case <-t.C:
		return s.hung("read what was sent to it")
	}
}

// notify sends a notification; used only inside exclusive (a write may
// block while the server does not read).
func (s *server) notify(method string, params any) error {
	return s.conn.notify(context.Background(), method, params)
}
