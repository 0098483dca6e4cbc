//go:build !race

package main

import "testing"

// The harness suites exist only in the plain pass: the CLIs drive a
// binary built here without -race, so a race pass would repeat the plain
// pass's runs. (A missing tool is not a reason to leave them out: those
// go through testutil.Needs in setupHarness.)

func TestHarness(t *testing.T) { harnessSuite(t) }

func TestHarnessAnchor(t *testing.T) { harnessAnchor(t) }
