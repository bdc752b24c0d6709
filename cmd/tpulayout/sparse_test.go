package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// TestSparseEqualsWhole: an OUT that is mostly padding is written element by element
// over its padding (sparse.go) instead of whole in memory; its bytes must equal the
// whole-image path's for every dtype pair, layout and pad.
func TestSparseEqualsWhole(t *testing.T) {
	dir := t.TempDir()
	saved := sparseMinBytes
	defer func() { sparseMinBytes = saved }()
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
		in := filepath.Join(dir, "in.raw")
		buf := buffer.MustNew(src)
		for i := range buf.Data {
			buf.Data[i] = byte(i*37 + 11)
		}
		if err := os.WriteFile(in, buf.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, _ := layout.Compile(dst)
		sparseMinBytes = 1
		if !sparseWorth(ix, buf, nil) {
			t.Fatalf("%s: not written sparsely", c.to)
		}
		a, b := filepath.Join(dir, "sparse.bin"), filepath.Join(dir, "whole.bin")
		mustRun(t, "convert", in, a, "--from", c.from, "--to", c.to, "--pad", c.pad)
		sparseMinBytes = 1 << 62
		mustRun(t, "convert", in, b, "--from", c.from, "--to", c.to, "--pad", c.pad)
		if x, y := readFile(t, a), readFile(t, b); !bytes.Equal(x, y) {
			i := 0
			for x[i] == y[i] {
				i++
			}
			t.Errorf("%s → %s --pad %s: byte %d of %d differs: sparse %#x, whole %#x", c.from, c.to, c.pad, i, len(y), x[i], y[i])
		}
	}
}

// TestPaddingOnlyHugeOut: bf16[5] into one tile of 2^28 elements (512 MiB of padding)
// held the whole OUT in memory; it is written around the data now (a sparse file for
// zero padding), with the data at the front and zeros after.
func TestPaddingOnlyHugeOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.raw")
	writeText(t, in, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a")
	out := filepath.Join(dir, "out.bin")
	savedFree := freeDiskSpace
	defer func() { freeDiskSpace = savedFree }()
	freeDiskSpace = func(string) (int64, bool) { return 0, false } // a hole takes no space
	savedMem := availableMemory
	defer func() { availableMemory = savedMem }()
	availableMemory = func() (int64, bool) { return 64 << 20, true } // the whole image is 512 MiB
	mustRun(t, "convert", in, out, "--from", "bf16[5]", "--to", "bf16[5]{0:T(268435456)}")
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if st.Size() != 1<<29 {
		t.Fatalf("OUT has %d bytes, want %d", st.Size(), 1<<29)
	}
	head := make([]byte, 16)
	f.ReadAt(head, 0)
	if !bytes.Equal(head, []byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x00\x00\x00\x00\x00\x00")) {
		t.Errorf("OUT starts % x", head)
	}
	tail := make([]byte, 4096)
	f.ReadAt(tail, st.Size()-4096)
	if bytes.Count(tail, []byte{0}) != len(tail) {
		t.Error("OUT's padding is not zero")
	}
}
