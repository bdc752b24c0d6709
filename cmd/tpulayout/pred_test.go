package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPredNonzeroIsTrue: packing pred into E(1) kept only each byte's low bit, so
// 00 01 02 ff became 0x0a (element 2 false). Any nonzero pred byte is true on every
// path that narrows it: packed into 1, 2 or 4 bits, transposed, tiled, and read back.
func TestPredNonzeroIsTrue(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.raw")
	src := []byte{0x00, 0x01, 0x02, 0xff, 0x80, 0x00, 0x7e, 0x01}
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, len(src))
	for i, b := range src {
		if b != 0 {
			want[i] = 1
		}
	}
	img := filepath.Join(dir, "img.bin")
	back := filepath.Join(dir, "back.raw")
	for _, c := range []struct{ from, to, wantImg string }{
		{"pred[8]", "pred[8]{0:E(1)}", "\xde"},
		{"pred[8]", "pred[8]{0:E(2)}", "\x54\x51"},
		{"pred[8]", "pred[8]{0:E(4)}", "\x10\x11\x01\x11"},
		{"pred[2,4]", "pred[2,4]{0,1:E(1)}", ""},
		{"pred[2,4]", "pred[2,4]{1,0:T(2,128)E(1)}", ""},
		{"pred[2,4]{0,1}", "pred[2,4]{1,0:T(2,128)E(1)}", ""},
	} {
		mustRun(t, "convert", in, img, "--from", c.from, "--to", c.to)
		if c.wantImg != "" {
			if got := readFile(t, img); !bytes.Equal(got, []byte(c.wantImg)) {
				t.Errorf("%s → %s: image % x, want % x", c.from, c.to, got, []byte(c.wantImg))
			}
		}
		// Read back unpacked, in the source's own order: the file's.
		mustRun(t, "convert", img, back, "--from", c.to, "--to", c.from)
		if got := readFile(t, back); !bytes.Equal(got, want) {
			t.Errorf("%s → %s → back: % x, want % x", c.from, c.to, got, want)
		}
	}
}
