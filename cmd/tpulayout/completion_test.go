package main

import (
	"strings"
	"testing"
)

// TestCompletionNamesEveryFlag walks the verb table: both scripts name every verb
// and every flag of every verb (they are derived from the table, so a new flag shows
// up by itself), and every flag with a value list is a flag of some verb. What the
// scripts complete is testdata/script/completion.txt.
func TestCompletionNamesEveryFlag(t *testing.T) {
	var bash, zsh strings.Builder
	if err := writeBashCompletion(&bash); err != nil {
		t.Fatal(err)
	}
	if err := writeZshCompletion(&zsh); err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for shell, s := range map[string]string{"bash": bash.String(), "zsh": zsh.String()} {
		for _, v := range verbs {
			if !strings.Contains(s, v.name) {
				t.Errorf("the %s script lacks the verb %s", shell, v.name)
			}
			for _, f := range verbFlags(v) {
				all[f.name] = true
				if !strings.Contains(s, "--"+f.name+" ") && !strings.Contains(s, "'--"+f.name+"[") && !strings.Contains(s, "'--"+f.name+"=[") {
					t.Errorf("the %s script lacks %s's flag --%s", shell, v.name, f.name)
				}
			}
		}
	}
	for name := range flagValues() {
		if !all[name] {
			t.Errorf("values are listed for --%s, which no verb has", name)
		}
	}
	if len(verbFlags(convertVerb)) < 5 {
		t.Errorf("convert's flags: %v", verbFlags(convertVerb))
	}
}
