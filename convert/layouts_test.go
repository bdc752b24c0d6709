package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// TestJobLayouts converts host → device → host over many dtypes and layouts, whole and
// band by band with a mapped input: every element sits where the layout's formula puts
// it (the oracle), the padding is zero, the bands write the bytes of the whole, and the
// way back gives the input converted to the device's type and back.
func TestJobLayouts(t *testing.T) {
	defer func(m int64) { buffer.MmapThreshold = m }(buffer.MmapThreshold)
	buffer.MmapThreshold = 0
	dir := t.TempDir()
	for i, c := range []struct{ host, device string }{
		{"f32[64,256]", "f32[64,256]{1,0:T(8,128)}"},
		{"f32[37,301]", "f32[37,301]{1,0:T(8,128)}"},
		{"f32[64,256]", "bf16[64,256]{1,0:T(8,128)(2,1)}"},
		{"f32[37,301]", "bf16[37,301]{1,0:T(8,128)(2,1)}"},
		{"f32[48,130]", "bf16[48,130]{1,0:T(16,128)(2,1)}"},
		{"bf16[33,257]", "bf16[33,257]{1,0:T(16,128)(2,1)}"},
		{"s8[64,256]", "s8[64,256]{1,0:T(32,128)(4,1)}"},
		{"s8[45,131]", "s8[45,131]{1,0:T(32,128)(4,1)}"},
		{"f16[24,200]", "f16[24,200]{1,0:T(8,128)(2,1)}"},
		{"f32[50,140]", "f32[50,140]{0,1:T(8,128)}"},
		{"bf16[50,140]", "bf16[50,140]{0,1:T(8,128)(2,1)}"},
		{"f32[3,17,260]", "f32[3,17,260]{2,1,0:T(8,128)}"},
		{"f32[3,17,260]", "bf16[3,17,260]{2,1,0:T(8,128)(2,1)}"},
		{"f32[1,5]", "f32[1,5]{1,0:T(8,128)}"},
		{"f32[1000]", "f32[1000]{0:T(1024)}"},
		{"f32[3000]", "bf16[3000]{0:T(1024)(128)(2,1)}"},
		{"s32[19,129]", "s32[19,129]{1,0:T(8,128)}"},
		{"f32[9,5,130]", "f32[9,5,130]{2,0,1:T(8,128)}"},
		{"f32[130,300]", "bf16[130,300]{0,1:T(8,128)(2,1)}"},
		{"s8[3,70,200]", "s8[3,70,200]{0,2,1:T(32,128)(4,1)}"},
	} {
		src := testfiles.RandomBuffer(t, c.host, uint64(i))
		in := testfiles.WriteNPY(t, dir, "in.npy", src)
		dst := layout.MustParse(c.device)
		whole, banded := filepath.Join(dir, "whole.bin"), filepath.Join(dir, "banded.bin")
		if _, err := (&Job{In: in, Out: whole, To: c.device}).Run(); err != nil {
			t.Fatalf("%s ← %s: %v", c.device, c.host, err)
		}
		checkImage(t, whole, dst, src)
		checkPaddingZero(t, whole, dst)
		if _, err := (&Job{In: in, Out: banded, To: c.device, Limits: Limits{BandBytes: 1}}).Run(); err != nil {
			t.Fatal(err)
		}
		a, errA := os.ReadFile(whole)
		b, errB := os.ReadFile(banded)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s ← %s: the bands differ from the whole", c.device, c.host)
		}
		back := filepath.Join(dir, "back.npy")
		if _, err := (&Job{In: whole, Out: back, From: c.device, To: src.DType().String()}).Run(); err != nil {
			t.Fatal(err)
		}
		got, err := npy.Read(back)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := buffer.Compare(src, got, buffer.CompareOptions{In: dst.DType}); err != nil || !r.OK() {
			t.Errorf("%s → %s → host: %v %+v", c.host, c.device, err, r)
		}
	}
}

// checkPaddingZero fails the test unless every padding element of the image in path,
// of shape dst, is zero.
func checkPaddingZero(t *testing.T, path string, dst layout.Shape) {
	t.Helper()
	img, err := buffer.ReadRaw(path, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	ix := img.Indexer()
	idx := make([]int64, ix.Rank())
	for off := range ix.FootprintElements() {
		if !ix.Index(off, idx) && img.BitsAt(off) != 0 {
			t.Fatalf("%s: padding at offset %d is %#x", dst, off, img.BitsAt(off))
		}
	}
}

func TestSizeText(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.00 KiB", 1536: "1.50 KiB", 36 << 10: "36.00 KiB",
		8 << 30: "8.00 GiB", 4 << 40: "4.00 TiB", 1 << 62: "4096.00 PiB",
	} {
		if got := SizeText(n); got != want {
			t.Errorf("SizeText(%d) = %q, want %q", n, got, want)
		}
	}
}
