package tpu

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// An f32 reference against a bf16 image is compared after round-to-nearest-even.
func TestCheckRoundsF32Reference(t *testing.T) {
	dims := []int64{8, 128}
	ref := buffer.MustNew(layout.NewShape(layout.F32, dims...))
	s := layout.MustParse("bf16[8,128]{1,0:T(8,128)(2,1)}")
	rne, trunc := buffer.MustNew(s), buffer.MustNew(s)
	ties := 0
	forEachIndex(dims, func(idx []int64) {
		// 1 + k/2^9: bf16 keeps 7 fraction bits, so odd k are ties or near-ties.
		k := idx[0]*128 + idx[1]
		f := float32(1 + float64(k%512)/512)
		ref.SetF32(idx, f)
		bits := math.Float32bits(f)
		rne.SetBits(idx, uint64((bits+0x7fff+(bits>>16)&1)>>16))
		trunc.SetBits(idx, uint64(bits>>16))
		if bits&0xffff != 0 && (bits+0x7fff+(bits>>16)&1)>>16 != bits>>16 {
			ties++
		}
	})
	rep, err := Check(rne, ref, CheckOptions{})
	if err != nil || !rep.OK() {
		t.Fatalf("RNE image: %v %v", rep, err)
	}
	rep, err = Check(trunc, ref, CheckOptions{})
	if err != nil || rep.Mismatches != int64(ties) || ties == 0 {
		t.Fatalf("truncated image: %d mismatches, want %d (%v)", rep.Mismatches, ties, err)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
	// Incomparable inputs.
	if _, err := Check(rne, buffer.MustNew(layout.NewShape(layout.S8, dims...)), CheckOptions{}); err == nil {
		t.Error("s8 reference accepted for a bf16 image")
	}
	if _, err := Check(rne, buffer.MustNew(layout.NewShape(layout.F32, 8, 129)), CheckOptions{}); err == nil {
		t.Error("different dims accepted")
	}
}

// With Native the report speaks of the native (16,128) vreg even for T(8,128)(2,1)
// memory; the byte offset is the memory one.
func TestCheckNativeCoordinates(t *testing.T) {
	s := layout.MustParse("bf16[16,256]{1,0:T(8,128)(2,1)}")
	ref := buffer.MustNew(layout.NewShape(layout.BF16, 16, 256))
	img := buffer.MustNew(s)
	img.SetBits([]int64{9, 7}, 0x3f80)
	rep, err := Check(img, ref, CheckOptions{Native: true})
	if err != nil || rep.Mismatches != 1 {
		t.Fatalf("%v %v", rep, err)
	}
	m := rep.First[0]
	if !slices.Equal(m.Vreg, []int64{0, 0}) || m.Sublane != 4 || m.Lane != 7 || m.Slot != 1 ||
		m.Word != 1031 || m.ByteOffset != 1031*4+2 || !slices.Equal(m.Tile, []int64{1, 0}) || rep.Vregs != 2 {
		t.Errorf("%s", rep)
	}
	rep, _ = Check(img, ref, CheckOptions{})
	m = rep.First[0]
	if !slices.Equal(m.Vreg, []int64{1, 0}) || m.Sublane != 0 || m.Lane != 7 || m.Slot != 1 || rep.VregLayout != "16-bit (8,128)" {
		t.Errorf("%s", rep)
	}
}

// A 16-sublane target (TPU8t, inferred) changes the vregs, not the memory.
func TestCheckTPU8t(t *testing.T) {
	s, err := DefaultShape(TPU8t, layout.BF16, []int64{64, 256})
	if err != nil {
		t.Fatal(err)
	}
	if s.String() != "bf16[64,256]{1,0:T(32,128)(2,1)}" {
		t.Fatalf("8t default %s", s)
	}
	ref := buffer.MustNew(layout.NewShape(layout.BF16, 64, 256))
	img := layoutImage(t, s, ref)
	img.SetBits([]int64{40, 3}, 1)
	rep, err := Check(img, ref, CheckOptions{Generation: TPU8t})
	if err != nil || rep.Mismatches != 1 || rep.Vregs != 4 {
		t.Fatalf("%v %v", rep, err)
	}
	if m := rep.First[0]; !slices.Equal(m.Vreg, []int64{1, 0}) || m.Sublane != 4 || m.Slot != 0 {
		t.Errorf("%s", m)
	}
}
