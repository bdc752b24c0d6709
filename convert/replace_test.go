package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestReplaceDirFailures makes each step of replaceDir fail in turn: OUT must then hold
// the old tree, and nothing may be left beside it but the new tree that runAll removes.
func TestReplaceDirFailures(t *testing.T) {
	boom := errors.New("boom")
	savedX, savedR := exchangeFn, renameFn
	defer func() { exchangeFn, renameFn = savedX, savedR }()
	noExchange := func(a, b string) error { return errNoExchange }
	// The old tree is one --all wrote: replaceDir removes only such a tree.
	oldM := `{"format": "tpulayout-all-1", "source": "m.safetensors", "to": "tpu:v5e", "tensors": [{"name": "a", "file": "a.bin"}]}`
	old := map[string]string{"manifest.json": oldM, "a.bin": "A"}
	nu := map[string]string{"manifest.json": "new", "b.bin": "B"}

	for _, c := range []struct {
		name     string
		exchange func(a, b string) error
		failAt   int // the renameFn call that fails (1-based; 0: none)
		wantNew  bool
	}{
		{"exchange", savedX, 0, true},
		{"aside", noExchange, 0, true},
		{"aside fails", noExchange, 1, false},
		{"rename in fails", noExchange, 2, false},
	} {
		dir := t.TempDir()
		out, tmp := filepath.Join(dir, "images"), filepath.Join(dir, ".images.tmp1")
		testfiles.Tree(t, out, old)
		testfiles.Tree(t, tmp, nu)
		calls := 0
		exchangeFn = c.exchange
		renameFn = func(a, b string) error {
			calls++
			if calls == c.failAt {
				return boom
			}
			return os.Rename(a, b)
		}
		err := (&Job{}).replaceDir(tmp, out)
		if c.name == "exchange" && calls > 0 {
			t.Logf("no RENAME_EXCHANGE on this filesystem: replaced by renames")
		}
		got := testfiles.TreeOf(t, out)
		if c.wantNew {
			if err != nil || got["manifest.json"] != "new" || len(got) != 2 {
				t.Errorf("%s: err %v, OUT %q", c.name, err, got)
			}
			if names := testfiles.DirNames(t, dir); len(names) != 1 {
				t.Errorf("%s: left %q", c.name, names)
			}
			continue
		}
		if !errors.Is(err, boom) || got["manifest.json"] != oldM || len(got) != 2 {
			t.Errorf("%s: err %v, OUT %q; want boom and the old tree", c.name, err, got)
		}
		// Beside OUT: only the new tree, which runAll removes on the error.
		if names := testfiles.DirNames(t, dir); strings.Join(names, " ") != ".images.tmp1 images" {
			t.Errorf("%s: left %q", c.name, names)
		}
	}
}
