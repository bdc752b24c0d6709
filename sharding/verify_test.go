package sharding

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// TestVerifyFindsElement converts each NumPy fixture (the f32 ones to bf16 images as
// well), changes one element of the last shard's image and writes its new checksum into
// the manifest, and checks that Verify names that element, in whole images and in
// bands, read whole and mapped (hashed in a read of its own); and that a changed byte
// with the old checksum is reported as a checksum.
func TestVerifyFindsElement(t *testing.T) {
	saved, savedMap := BandBytes, buffer.MmapThreshold
	defer func() { BandBytes, buffer.MmapThreshold = saved, savedMap }()
	checked := map[bool]int{} // by whether the image's dtype is the source's
	for k, band := range []int64{saved, 1024, 1024} {
		BandBytes = band
		if k == 2 {
			buffer.MmapThreshold = 1 // every image mapped
		}
		for _, c := range readFixtures(t) {
			dst, err := layout.Parse(c.Layout)
			if err != nil {
				t.Fatal(err)
			}
			targets := []layout.Shape{dst}
			if dst.DType == layout.F32 {
				bf, err := layout.Parse(strings.Replace(strings.Replace(c.Layout, "f32", "bf16", 1), ")}", ")(2,1)}", 1))
				if err != nil {
					t.Fatal(err)
				}
				targets = append(targets, bf)
			}
			for _, to := range targets {
				name := fmt.Sprintf("%s to %s, bands of %d, mapped from %d bytes", c.Name, to, band, buffer.MmapThreshold)
				n, same := verifyChanged(t, name, c, to)
				checked[same] += n
			}
		}
	}
	if checked[true] == 0 || checked[false] == 0 {
		t.Errorf("changed elements checked: %d in the source's dtype, %d converted; want both", checked[true], checked[false])
	}
}

// verifyChanged runs one case of TestVerifyFindsElement; it returns how many changes
// it checked and whether the image's dtype is the source's.
func verifyChanged(t *testing.T, name string, c fixtureCase, dst layout.Shape) (int, bool) {
	mesh, spec, _ := c.parse(t)
	src := filepath.Join(fixtureDir, c.Name+".safetensors")
	ckpt, err := OpenCheckpoint(src)
	if err != nil {
		t.Fatal(err)
	}
	same := ckpt.Tensors[0].DType == dst.DType
	if len(dst.Dims) == 0 {
		return 0, same
	}
	out := filepath.Join(t.TempDir(), "out")
	m, err := convertDir(ckpt, out, jobOptions{Mesh: mesh, SpecFor: specAll(spec), Target: targetAll(dst)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if r, err := Verify(out, src); err != nil || len(r.Problems) > 0 {
		t.Fatalf("%s: unchanged: %v %v", name, err, r.Problems)
	}
	mt := &m.Tensors[0]
	ms := &mt.Shards[len(mt.Shards)-1]
	shape, err := layout.Parse(mt.Layout)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := layout.Compile(shape)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, ms.File)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := make([]int64, len(ms.Ranges))
	for d, r := range ms.Ranges {
		start[d] = r[0]
	}
	n := 0
	// The last element, and one in the middle of every dim.
	last, mid := make([]int64, len(shape.Dims)), make([]int64, len(shape.Dims))
	for d, x := range shape.Dims {
		last[d], mid[d] = x-1, x/2
	}
	for _, idx := range [][]int64{last, mid} {
		img := slices.Clone(orig)
		img[ix.ByteOffset(idx)] ^= 0x10
		if err := os.WriteFile(path, img, 0o644); err != nil {
			t.Fatal(err)
		}
		// With the old checksum: the checksum is what is wrong.
		r, err := Verify(out, src)
		if err != nil || len(r.Problems) != 1 || !strings.Contains(r.Problems[0].Msg, "crc32c") {
			t.Errorf("%s: element %v changed, old checksum: %v %v", name, idx, err, r.Problems)
		}
		// With its checksum: the element.
		m2 := *m
		m2.Tensors = slices.Clone(m.Tensors)
		m2.Tensors[0].Shards = slices.Clone(mt.Shards)
		crc, _ := manifest.ChecksumNamed(manifest.CRC32C)
		m2.Tensors[0].Shards[len(mt.Shards)-1].SetSum(crc, crc.Of(img))
		rewrite(t, out, &m2)
		want := fmt.Sprintf("element %v of the shard (global %v) differs from the source", idx, addInts(idx, start))
		r, err = Verify(out, src)
		if err != nil || len(r.Problems) != 1 || r.Problems[0].Msg != want {
			t.Errorf("%s: element %v changed: %v %v; want %q", name, idx, err, r.Problems, want)
		}
		n++
	}
	return n, same
}
