package sharding

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexReadAlike: an index read from a file and one read by ranges from a bucket
// (the store's file bucket here) are parsed alike, and refused with the same words
// but for the name: an index that mapped a tensor twice (to the same file or to two),
// or to a name with a backslash, was taken.
func TestIndexReadAlike(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(fixtureDir, "rows_x4.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ index, want string }{
		{`{"weight_map": {"x": "a.safetensors"}}`, ""},
		{`{"weight_map": {"x": "a.safetensors", "x": "a.safetensors"}}`, `key "weight_map.x" is given twice`},
		{`{"metadata": {}, "weight_map": {"w": "a.safetensors", "w": "b.safetensors"}}`, `key "weight_map.w" is given twice`},
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
		b, key := openURL(t, p)
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
