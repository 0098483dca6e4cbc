//go:build linux

// This file defines the spawner: the one goroutine, locked to one OS thread,
// that forks every child.

package proc

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
)

// spawnReq asks the spawner to start cmd for p.
type spawnReq struct {
	cmd   *exec.Cmd
	p     *Process
	reply chan error // buffered: the spawner never waits on it
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq // never closed
)

// spawn starts cmd on the spawner's thread and registers p as live.
func spawn(cmd *exec.Cmd, p *Process) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go spawner(spawnCh)
	})
	reply := make(chan error, 1)
	spawnCh <- spawnReq{cmd: cmd, p: p, reply: reply}
	return <-reply
}

// spawner runs for the life of the process. Pdeathsig is tied to the thread
// that forked the child, so this goroutine locks its thread and never unlocks
// it or returns: the thread, and with it every child's parent-death signal,
// lasts exactly as long as we do.
func spawner(reqs <-chan spawnReq) {
	runtime.LockOSThread()
	for req := range reqs {
		req.reply <- spawnOne(req)
	}
}

// spawnOne runs on the spawner goroutine. A panic becomes an error so that the
// spawner (and its thread) keeps running.
func spawnOne(req spawnReq) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic while starting: %v", r)
		}
	}()
	reaper.ensure()
	if err := req.cmd.Start(); err != nil {
		return err
	}
	req.p.pid = req.cmd.Process.Pid
	register(req.p)
	reaper.notify('+', req.p.pid)
	return nil
}
