package sharding

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/store"
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

// TestIndexReadAlike: an index read from a file and one read by ranges from a bucket
// (the store's file bucket here) are parsed alike, and refused with the same words
// but for the name: a bucket's index that mapped a tensor twice, or to a name with a
// backslash, was taken.
func TestIndexReadAlike(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "rows_x4.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ index, want string }{
		{`{"weight_map": {"x": "a.safetensors"}}`, ""},
		{`{"weight_map": {"x": "a.safetensors", "x": "a.safetensors"}}`, `key "weight_map.x" is given twice`},
		{`{"weight_map": {"x": "sub\\a.safetensors"}}`, `maps tensor "x" to "sub\\a.safetensors", which is not a file name beside it`},
		{`{"weight_map": {"x": "/a.safetensors"}}`, "which is not a file name beside it"},
		{`{"weight_map": {"x": "../a.safetensors"}}`, "which is not a file name beside it"},
		{`{"weight_map": {}}`, `has no "weight_map"`},
		{`{"weight_map": `, "is not valid JSON"},
		{`{"weight_map": {"y": "a.safetensors"}}`, `maps tensor "y" to a.safetensors, which does not hold it`},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "model.safetensors.index.json")
		os.WriteFile(filepath.Join(dir, "a.safetensors"), data, 0o644)
		if err := os.WriteFile(p, []byte(c.index), 0o644); err != nil {
			t.Fatal(err)
		}
		_, lerr := OpenCheckpoint(p)
		b, key, err := store.Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		_, berr := openBucketCheckpoint(ctx, b, key)
		for _, e := range []error{lerr, berr} {
			if (e == nil) != (c.want == "") || e != nil && !strings.Contains(e.Error(), c.want) {
				t.Errorf("%d: %s: %v, want %q", i, c.index, e, c.want)
			}
		}
		if lerr != nil && berr != nil && strings.ReplaceAll(berr.Error(), b.URL(key), p) != lerr.Error() {
			t.Errorf("%d: from a file %q, from a bucket %q", i, lerr, berr)
		}
	}
}
