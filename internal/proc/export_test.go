//go:build linux

package proc

// ReaperPid returns the pid of the running reaper, or 0.
func ReaperPid() int {
	reaper.mu.Lock()
	defer reaper.mu.Unlock()
	return reaper.pid
}
