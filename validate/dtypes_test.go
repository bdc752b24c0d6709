package validate

import (
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// TestCompareEveryDTypePair compares random dumps of every array type, in their v5e
// default layout where there is one, against references of every type: a report or an
// error, never a panic, and a report's diagnosis for every pair the dump's type allows.
func TestCompareEveryDTypePair(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dims := []int64{9, 130}
	if testing.Short() {
		dims = []int64{3, 5}
	}
	random := func(s layout.Shape) *buffer.Buffer {
		b := buffer.MustNew(s)
		for i := range b.Data {
			b.Data[i] = byte(rng.Uint32())
		}
		return b
	}
	for _, dt := range layout.DTypes() {
		if !dt.IsArray() {
			continue
		}
		s := layout.NewShape(dt, dims...)
		if d, err := tpu.DefaultShape(tpu.V5e, dt, dims); err == nil {
			s = d
		}
		dump := random(s)
		for _, rt := range layout.DTypes() {
			if !rt.IsArray() {
				continue
			}
			ref := random(layout.NewShape(rt, dims...))
			r, err := Compare(dump, ref, Options{CheckPadding: true})
			if err != nil {
				if buffer.CanConvert(dt, rt) && dt.Bits() <= 64 && dt != layout.C64 {
					t.Errorf("%s dump, %s ref: %v", dt, rt, err)
				}
				continue
			}
			_ = r.String()
			if r.Mismatches > 0 && r.Diagnosis == nil && r.DiagnosisProblem == "" {
				t.Errorf("%s dump, %s ref: mismatches without a diagnosis", dt, rt)
			}
		}
	}
}
