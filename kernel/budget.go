// This file defines the idle budget: a cell's timeout that counts only
// the time the kernel is busy without a pending tool() call.

package kernel

import "time"

// budget is a pausable countdown. Not safe for concurrent use: the cell
// runner owns it.
type budget struct {
	left    time.Duration // remaining while paused; at start of the run otherwise
	started time.Time     // when the current run began; zero while paused
	paused  int           // pending bridged calls
	timer   *time.Timer
}

func newBudget(d time.Duration) *budget {
	return &budget{left: d, started: time.Now(), timer: time.NewTimer(d)}
}

// C fires when the budget is spent.
func (b *budget) C() <-chan time.Time { return b.timer.C }

// pause stops the clock (one more call pending).
func (b *budget) pause() {
	b.paused++
	if b.paused > 1 {
		return
	}
	b.timer.Stop()
	b.left -= time.Since(b.started)
	b.started = time.Time{}
}

// resume restarts the clock once no call is pending.
func (b *budget) resume() {
	if b.paused == 0 {
		return
	}
	b.paused--
	if b.paused > 0 {
		return
	}
	b.started = time.Now()
	b.timer.Reset(max(b.left, 0))
}

func (b *budget) stop() { b.timer.Stop() }
