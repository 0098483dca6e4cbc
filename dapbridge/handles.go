// This file defines the ids an agent refers back to while the program is
// stopped: frame ids and variable references, both ours, and the stack
// frames fetched at this stop, kept so that no op asks the adapter twice.
//
// Adapters hand out their own ids: delve numbers frames from 1000 again
// for every stackTrace request, and its variable references from 1000
// too, so the same frame had a new id in launch, status and stack, and a
// frame id could equal a variable reference. Ours are one counter per
// session: a frame keeps its id (keyed by thread and depth) for as long
// as the program stays stopped, a frame id is never a reference, and an
// id from an earlier stop is never reused, so a stale one is an error
// that says so, not another frame.

package dapbridge

import (
	"context"

	"github.com/google/go-dap"
)

// frameKey is a frame's place at this stop: its thread and depth.
type frameKey struct{ thread, depth int }

// stackCache is what one thread's stackTrace answers gave at this stop.
type stackCache struct {
	frames   []dap.StackFrame
	total    int  // totalFrames, or len(frames) when complete
	complete bool // every frame is in frames
}

// handles is the session's id table. Its owner serializes access (the
// session's mutex); reset empties it at every stop and resume but keeps
// the counter.
type handles struct {
	next     int
	frameIDs map[frameKey]int    // our frame id by place
	frames   map[int]frameKey    // place by our frame id
	stacks   map[int]*stackCache // thread → its frames at this stop
	refIDs   map[int]int         // our reference by the adapter's
	refs     map[int]adapterRef  // the adapter's reference by ours
}

// adapterRef is an adapter's variables reference and its known child
// count (-1 unknown).
type adapterRef struct{ ref, count int }

func (h *handles) reset() {
	h.frameIDs, h.frames = map[frameKey]int{}, map[int]frameKey{}
	h.stacks = map[int]*stackCache{}
	h.refIDs, h.refs = map[int]int{}, map[int]adapterRef{}
}

func (h *handles) newID() int {
	h.next++
	return h.next
}

// frameID is the id of the frame at place k, made on first use.
func (h *handles) frameID(k frameKey) int {
	if id, ok := h.frameIDs[k]; ok {
		return id
	}
	id := h.newID()
	h.frameIDs[k], h.frames[id] = id, k
	return id
}

// adapterFrame is the adapter's id for our frame id, or false when the id
// is not a frame of this stop.
func (h *handles) adapterFrame(id int) (int, bool) {
	k, ok := h.frames[id]
	if !ok {
		return 0, false
	}
	c := h.stacks[k.thread]
	if c == nil || k.depth >= len(c.frames) {
		return 0, false
	}
	return c.frames[k.depth].Id, true
}

// ref is our reference for an adapter's (0 stays 0: no children).
func (h *handles) ref(adapter, count int) int {
	if adapter == 0 {
		return 0
	}
	if id, ok := h.refIDs[adapter]; ok {
		return id
	}
	id := h.newID()
	h.refIDs[adapter], h.refs[id] = id, adapterRef{adapter, count}
	return id
}

// framesOf returns up to levels frames of thread tid at this stop, asking
// the adapter only when the frames seen so far do not cover them.
func (s *session) framesOf(ctx context.Context, tid, levels int) (*stackCache, error) {
	s.mu.Lock()
	c, gen := s.ids.stacks[tid], s.gen
	s.mu.Unlock()
	if c != nil && (c.complete || len(c.frames) >= levels) {
		return c, nil
	}
	var body dap.StackTraceResponseBody
	args := map[string]any{"threadId": tid, "startFrame": 0, "levels": levels}
	if err := s.conn.call(ctx, "stackTrace", args, requestTimeout, &body); err != nil {
		return nil, err
	}
	c = &stackCache{frames: body.StackFrames}
	c.complete = len(body.StackFrames) < levels || (body.TotalFrames > 0 && body.TotalFrames <= len(body.StackFrames))
	c.total = max(body.TotalFrames, len(body.StackFrames))
	s.mu.Lock()
	if s.gen == gen && s.state == stateStopped {
		s.ids.stacks[tid] = c
	}
	s.mu.Unlock()
	return c, nil
}
