package sharding

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/tpulayout/tpulayout/store"
)

// oldFingerprint is the fingerprint as first written (the head copied through a
// SectionReader, then 256 blocks read at their offsets), kept here so that the
// block list stays the same definition: partial manifests of earlier runs merge.
func oldFingerprint(r io.ReaderAt, size int64) string {
	h := sha256.New()
	head := int64(fingerprintSamples * fingerprintBlock)
	io.Copy(h, io.NewSectionReader(r, 0, min(head, size)))
	if size > head {
		buf := make([]byte, fingerprintBlock)
		span := size - head - fingerprintBlock
		for i := range int64(fingerprintSamples) {
			off := head
			if span > 0 {
				off += span * i / (fingerprintSamples - 1)
			}
			n, _ := r.ReadAt(buf, off)
			h.Write(buf[:n])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestFingerprintBlocksUnchanged(t *testing.T) {
	data := make([]byte, 3<<20+5)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	head := fingerprintSamples * fingerprintBlock
	for _, n := range []int{0, 100, head, head + 1, head + 4095, head + 4096, head + 4097, head + 300000, len(data)} {
		r := bytes.NewReader(data[:n])
		got, err := fingerprint(r, int64(n))
		if err != nil {
			t.Fatal(err)
		}
		if want := oldFingerprint(r, int64(n)); got != want {
			t.Errorf("%d bytes: fingerprint %s, first definition %s", n, got, want)
		}
		// From reads that hold some blocks (in any order), the rest read at the end.
		s := newFPSampler(int64(n), new(atomic.Int64))
		for _, off := range []int{2 << 20, 0, head + 8000, 1 << 20} {
			if off < n {
				s.observe(int64(off), data[off:min(off+300000, n)])
			}
		}
		if got, err := s.sum(tempObject(t, data[:n])); err != nil || got != oldFingerprint(r, int64(n)) {
			t.Errorf("%d bytes: sampled fingerprint %s, %v; want %s", n, got, err, oldFingerprint(r, int64(n)))
		}
	}
}

// tempObject writes data to a new file and returns it as an object of the store's
// file bucket.
func tempObject(t *testing.T, data []byte) *store.Object {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.bin")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, key := openURL(t, p)
	o, err := b.Object(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestFingerprintFromReads: a conversion of a checkpoint in a bucket (the store's
// file bucket here, reads of 64 KiB) fingerprints its source from the reads it makes
// anyway, reading few blocks of it again, and the fingerprint is the file's. A
// process that converts half the shards reads the blocks it did not see.
func TestFingerprintFromReads(t *testing.T) {
	defer setSpans(64<<10, maxGap, RemoteAheadBytes)()
	in := writeRandomCheckpoint(t, t.TempDir(), 7, 8, "f32[512,512]", "f32[256,1024]", "bf16[64,96]")
	want, _, err := fingerprintFile(in)
	if err != nil {
		t.Fatal(err)
	}
	opt := gridOptions("data=2,model=2", rowMajorBF16)
	ctx := context.Background()
	b, key := openURL(t, in)
	for _, processes := range []int{0, 2} {
		ckpt, err := openBucketCheckpoint(ctx, b, key)
		if err != nil {
			t.Fatal(err)
		}
		o := opt
		o.Processes = processes
		late := fpLate.Load()
		m, err := convertDir(ckpt, filepath.Join(t.TempDir(), "out"), o)
		if err != nil {
			t.Fatal(err)
		}
		late = fpLate.Load() - late
		if len(m.Sources) != 1 || m.Sources[0].Fingerprint != want {
			t.Errorf("processes %d: sources %+v; want fingerprint %s", processes, m.Sources, want)
		}
		// All of the data read: only blocks that straddle two reads are read again
		// (at most one a read past the first MiB: the 1.1 MiB there are about 20
		// reads of 64 KiB or to a band's end); half of it: about half the 256.
		if processes == 0 && late > 24 || processes == 2 && (late < 64 || late > 192) {
			t.Errorf("processes %d: %d of the fingerprint's blocks read again", processes, late)
		}
	}
}

// TestFingerprintHeldBound: blocks that come out of order are held only within the
// checkpoint's budget; past it they are read again at the end, the fingerprint the
// same, and the budget is whole again once the fingerprint is taken.
func TestFingerprintHeldBound(t *testing.T) {
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 31 >> 5)
	}
	o := tempObject(t, data)
	want := oldFingerprint(bytes.NewReader(data), int64(len(data)))
	budget := new(atomic.Int64)
	budget.Store(fpHeldMost - 3*fingerprintBlock) // room for three blocks
	s := newFPSampler(int64(len(data)), budget)
	s.observe(2<<20, data[2<<20:]) // out of order: the head is not in yet
	if held := budget.Load() - (fpHeldMost - 3*fingerprintBlock); held != 3*fingerprintBlock {
		t.Errorf("%d bytes held; want the three blocks the budget has room for", held)
	}
	late := fpLate.Load()
	if got, err := s.sum(o); err != nil || got != want {
		t.Errorf("fingerprint %s, %v; want %s", got, err, want)
	}
	if n := fpLate.Load() - late; n != 257-3 {
		t.Errorf("%d blocks read at the end; want all but the three held", n)
	}
	if budget.Load() != fpHeldMost-3*fingerprintBlock {
		t.Errorf("budget %d after the fingerprint; want %d back", budget.Load(), fpHeldMost-3*fingerprintBlock)
	}
}
