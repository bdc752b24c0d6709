package sharding

import (
	"strings"
	"testing"
)

// Tensor directories are unique ignoring case, short enough for any file system, and
// never named like the manifests beside them.
func TestDirNameFor(t *testing.T) {
	used := map[string]bool{}
	long := strings.Repeat("block.", 60)
	got := map[string]bool{}
	for _, name := range []string{"W", "w", long + "q", long + "k", "manifest.json", "a/b"} {
		d := dirNameFor(name, used)
		if got[strings.ToLower(d)] || len(d) > 200 || strings.HasPrefix(d, "manifest") || strings.Contains(d, "/") {
			t.Errorf("dirNameFor(%.20q…) = %q", name, d)
		}
		got[strings.ToLower(d)] = true
	}
}
