package sharding

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/convert"
)

// TestConvertKnowsOutdir: convert.CheckOwned, which must not import this package, knows
// a sharded conversion's directory by its manifest's format, so convert --all --force
// refuses to replace one.
func TestConvertKnowsOutdir(t *testing.T) {
	dir := t.TempDir()
	m := []byte(`{"format": "` + ManifestFormat + `"}`)
	if err := os.WriteFile(filepath.Join(dir, ManifestName), m, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := convert.CheckOwned(dir); err == nil || !strings.Contains(err.Error(), "is a sharded conversion's directory") {
		t.Errorf("convert.CheckOwned(a sharded conversion's directory): %v", err)
	}
}
