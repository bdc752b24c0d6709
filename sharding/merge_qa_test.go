package sharding

import (
	"errors"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"path/filepath"
	"strings"
	"testing"
)

// QA: "tpulayout manifest merge" said only "tensor … differs between partial
// manifests": neither the field nor the two files.
func TestMergeNamesWhatDiffers(t *testing.T) {
	p0, p1 := manifest.PartialName(0, 2), manifest.PartialName(1, 2)
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"dtype", `"dtype": "f32"`, `"dtype": "bf16"`,
			[]string{`tensor "x" differs between partial manifests ` + p0 + ` and ` + p1 + `: dtype f32 in the first, bf16 in the second`}},
		{"layout", `"layout": "f32[8,256]{1,0}"`, `"layout": "f32[8,256]{0,1}"`,
			[]string{"layout f32[8,256]{1,0} in the first, f32[8,256]{0,1} in the second"}},
		{"shape", `"shape": [16,256]`, `"shape": [16,128]`,
			[]string{"shape [16 256] in the first, [16 128] in the second"}},
		{"checksum", `"crc32c": "b4b3`, `"crc32c": "04b3`,
			[]string{`shard x/0_0.bin (tensor "x", shard [0 0]) was written with different contents by two processes, ` + p0 + ` and ` + p1 + `: crc32c b4b3`, "in the first, 04b3"}},
		{"target", `"to": "f32"`, `"to": "bf16"`,
			[]string{p0 + ` and ` + p1 + ` describe different conversions: to f32 in the first, bf16 in the second`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := partials(t)
			edit(t, filepath.Join(dir, p1), c.old, c.new)
			_, err := Merge(dir)
			var me *manifest.MismatchError
			if !errors.As(err, &me) || me.First != p0 || me.Second != p1 || len(me.Diffs) == 0 {
				t.Fatalf("Merge = %#v, want a *manifest.MismatchError of %s and %s", err, p0, p1)
			}
			for _, w := range c.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("Merge = %v, want an error with %q", err, w)
				}
			}
		})
	}
}
