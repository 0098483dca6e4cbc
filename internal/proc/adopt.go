//go:build linux

// This file defines Adopt: handing the reaper a process group that one of
// our children created for a process of its own.

package proc

import "sync"

// Adopt registers pgid with the reaper, so that the group is SIGKILLed if
// agent-tools dies, like the groups of the children it started. It is for
// groups a child made itself: delve, for one, puts the program it debugs in
// a process group of its own, out of reach of its own group's kill. Call
// release once the group is gone or stopped; it is safe to call twice.
//
// Adopt does nothing when no reaper runs (no child was started yet, or the
// reaper could not start: see [ReaperErr]).
func Adopt(pgid int) (release func()) {
	if pgid <= 1 {
		return func() {}
	}
	reaper.notify('+', pgid)
	var once sync.Once
	return func() { once.Do(func() { reaper.notify('-', pgid) }) }
}
