package sharding

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexDuplicateTensor: a sharded checkpoint's index that maps a tensor twice took
// the last file silently.
func TestIndexDuplicateTensor(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "model.safetensors.index.json")
	if err := os.WriteFile(p, []byte(`{"metadata": {}, "weight_map": {"w": "a.safetensors", "w": "b.safetensors"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenCheckpoint(p)
	if err == nil || !strings.Contains(err.Error(), `key "weight_map.w" is given twice`) {
		t.Errorf("OpenCheckpoint: %v", err)
	}
}
