//go:build !linux

package proc

// agent-tools supervises its children with Linux-only facilities: the
// parent-death signal, waitid with WNOWAIT and process groups reaped by a
// helper process. Other systems are not supported; this undefined name
// makes a build there fail with a message that says so.
var _ = agentToolsRunsOnLinuxOnly
