// Package proc is the one place in agent-tools where child processes are
// started and stopped. Language servers, debug adapters, kernels and worker
// commands all go through [Start] and [Process.Stop].
//
// The rule it enforces: every child runs in its own process group, dies with
// us (also when agent-tools itself is SIGKILLed), and so do the child's own
// children. Nothing a child prints reaches our stdout: stdout is a pipe or
// /dev/null, and stderr is always captured into a bounded ring
// ([Process.StderrTail]).
//
// Call [RunReaperIfAsked] first thing in main (and in TestMain), then
// [Start] children and [Process.Stop] them; at shutdown call [StopAll].
// A short command whose output is wanted (a checker, git show, a probe)
// runs through [Output], bounded by a timeout at which its whole group is
// killed; [Describe] says in words how any child ended. No other package
// imports os/exec: [LookPath] resolves a program name for them.
//
// # What a child inherits
//
// A child's environment is ours (or Spec.Env) less every variable whose
// name looks like a credential ([IsCredential]): the harness's API keys and
// tokens must not reach code the model runs. [SetEnvPolicy] names ones to
// pass to every child and a hook that logs what was withheld;
// Spec.Credentials names the ones a single child needs (a worker's agent
// CLI its model key).
//
// # Two traps, and how they are handled
//
// Linux's parent-death signal (Pdeathsig) fires when the OS thread that forked
// the child exits, not when the process does. Go destroys a thread whenever a
// goroutine exits while locked to it, so a child forked from such a thread
// would die at random. Every fork therefore happens on one spawner goroutine
// that locks its OS thread and never returns.
//
// Pdeathsig never reaches grandchildren. At the first [Start] we launch a
// reaper: this same executable (/proc/self/exe) re-run with
// AGENT_TOOLS_REAPER=1, in its own process group, holding the read end of a
// pipe from us. We write "+<pgid>" when a child starts and "-<pgid>" once it
// has been reaped. When the pipe reaches EOF (we died, however) the reaper
// SIGKILLs every group still listed and exits. If the reaper cannot be
// started, children still get Pdeathsig; [ReaperErr] says what went wrong.
//
// A process group lives exactly as long as its leader: when the child we
// started exits, by itself or through Stop, whatever is left of its group is
// SIGKILLed before the child is reaped (the zombie leader keeps the group id
// from being reused meanwhile).
//
// # Goroutines
//
//   - spawner (one per process, started at the first Start): locked to its OS
//     thread for the life of the process; owns every fork (exec.Cmd.Start),
//     launches the reaper, and writes "+<pgid>" lines.
//   - reap (one per child): waits for the child to exit (waitid WNOWAIT),
//     SIGKILLs the rest of its group, reaps it (exec.Cmd.Wait), writes
//     "-<pgid>", records [Process.Err], removes it from [Live] and closes
//     [Process.Done]. It owns the exec.Cmd after Start.
//   - stderr drain (one per child): owns the read end of the child's stderr
//     pipe and copies it into the ring until EOF, so a chatty child never
//     blocks on a full pipe. Once the child has exited, reap gives it a short
//     deadline (only a process outside the group could still hold the pipe);
//     Done waits for it, so [Process.StderrTail] is final after Done.
//   - reaper waiter (one per reaper process): reaps the reaper and records
//     its death in [ReaperErr]; the next Start launches a new one.
//   - goodbye (one per Stop that has a goodbye func): runs the protocol's own
//     shutdown, so Stop can give up on it after Timeouts.Goodbye.
//
// The package has no logger and never writes to stdout or stderr. It is
// Linux only: it needs Pdeathsig, waitid and Linux process groups.
package proc
