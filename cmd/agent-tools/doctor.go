// This file defines the doctor subcommand: what would attach here, and why
// not.

package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

func doctor(cfg *config, stdout io.Writer) int {
	atts := attachAll(cfg)
	fmt.Fprintf(stdout, "%s\nroot: %s\n\n", versionString(), cfg.root)
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CAPABILITY\tSTATE\tTOOLS / WHY NOT")
	for _, a := range atts {
		state, detail := "attached", ""
		for i, t := range a.Tools {
			if i > 0 {
				detail += ", "
			}
			detail += t.Spec().Name
		}
		if !a.Attached() {
			state, detail = "off", a.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Capability, state, detail)
		checks := a.Checks
		if a.Probe != nil {
			checks = append(checks, a.Probe()...)
		}
		for _, c := range checks {
			mark := "found"
			if !c.OK {
				mark = "missing"
			}
			if c.State != "" {
				mark = c.State
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, mark, c.Detail)
		}
	}
	tw.Flush()
	return 0
}
