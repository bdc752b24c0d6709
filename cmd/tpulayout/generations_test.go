package main

import (
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/tpu"
)

// TestGenerationsInHelp checks that the help lists every TPU generation, and the help
// of each verb that takes one.
func TestGenerationsInHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "convert"}, {"help", "validate"}} {
		out := mustRun(t, args...)
		for _, g := range tpu.Generations() {
			if !strings.Contains(out, " "+g.String()+",") && !strings.Contains(out, " "+g.String()+".") {
				t.Errorf("%s does not list generation %s:\n%s", strings.Join(args, " "), g, out)
			}
		}
	}
	if out := mustRun(t, "help", "info"); strings.Contains(out, "generations") {
		t.Errorf("help info lists generations, but info takes none:\n%s", out)
	}
}
