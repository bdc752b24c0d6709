package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// TestSparseEqualsWhole: an OUT that is mostly padding is written element by element
// over its padding (sparse.go) instead of whole in memory; its bytes must equal the
// whole-image path's for every dtype pair, layout and pad.
func TestSparseEqualsWhole(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ from, to, pad string }{
		{"bf16[5]", "bf16[5]{0:T(4096)}", "zero"},
		{"bf16[5]", "bf16[5]{0:T(4096)}", "1.5"},
		{"f32[5]", "bf16[5]{0:T(4096)}", "-2"},
		{"f32[3,5]", "bf16[3,5]{1,0:T(8,128)(2,1)}", "zero"},
		{"f32[3,5]", "f32[3,5]{0,1:T(8,128)}", "7"},
		{"s8[2,3,4]", "f32[2,3,4]{0,2,1:T(8,128)}", "leave"},
		{"f32[7,9]", "s32[7,9]{1,0:T(8,128)}", "-3"},
		{"pred[6]", "pred[6]{0:T(1024)}", "1"},
		{"f64[4]", "f64[4]{0:T(256)L(4096)}", "0.25"},
		{"f32[3,3]{0,1}", "bf16[3,3]{1,0:T(8,128)}", "zero"},
		{"s4[5]", "s8[5]{0:T(1024)}", "-1"},
		{"s4[8]{0:E(4)}", "s4[8]{0:T(1024)}", "-1"},
		{"pred[8]{0:E(1)}", "pred[8]{0:T(1024)}", "zero"},
	} {
		src := layout.MustParse(c.from)
		dst := layout.MustParse(c.to)
		buf := buffer.MustNew(src)
		for i := range buf.Data {
			buf.Data[i] = byte(i*37 + 11)
		}
		in := testfiles.WriteFile(t, dir, "in.raw", buf.Data)
		ix, _ := layout.Compile(dst)
		if !sparseWorth(ix, buf, nil, 1) {
			t.Fatalf("%s: not written sparsely", c.to)
		}
		a, b := filepath.Join(dir, "sparse.bin"), filepath.Join(dir, "whole.bin")
		for out, min := range map[string]int64{a: 1, b: 1 << 62} {
			j := &Job{In: in, Out: out, From: c.from, To: c.to, Pad: c.pad, Limits: Limits{SparseMinBytes: min}}
			if _, err := j.Run(); err != nil {
				t.Fatalf("%s → %s: %v", c.from, c.to, err)
			}
		}
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if !bytes.Equal(x, y) {
			i := 0
			for x[i] == y[i] {
				i++
			}
			t.Errorf("%s → %s --pad %s: byte %d of %d differs: sparse %#x, whole %#x", c.from, c.to, c.pad, i, len(y), x[i], y[i])
		}
	}
}
