//go:build unix

package convert

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/hlo"
)

// TestWithModuleTruncated: a module file truncated by another process while its
// mapped text is read is an error naming the file, not a crash (SIGBUS); and a file
// that is mapped is read from the mapping, not copied.
func TestWithModuleTruncated(t *testing.T) {
	var b strings.Builder
	b.WriteString("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n")
	for i := 0; b.Len() < 3*os.Getpagesize(); i++ {
		fmt.Fprintf(&b, "  n%d = f32[8]{0} negate(p)\n", i)
	}
	b.WriteString("  ROOT r = f32[8]{0} copy(p)\n}\n")
	path := filepath.Join(t.TempDir(), "m.hlo")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WithModule(path, func(m *hlo.Module) error {
		if err := os.Truncate(path, 0); err != nil {
			t.Fatal(err)
		}
		_ = strings.Clone(m.Entry.Root.Name) // on the last page, gone now
		return nil
	})
	want := "cannot read MODULE " + path + ": it shrank or failed while it was read (it has 0 bytes now)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
