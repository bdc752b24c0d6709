package relayout

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// Every bf16 and f16 value converted to f8e4m3fn and f8e5m2 by each kernel set's runs
// (widened to f32 in scratch, then narrowed), cached and streamed, is the scalar rule's:
// the f32 conversion of the value's exact f32. Rows of 257 elements, so runs end off
// the vector width and the chunks of scratch.
func TestF8RunsFrom16(t *testing.T) {
	forF8Runs(t, []string{"bf16", "f16"}, []string{"f8e4m3fn", "f8e5m2"}, "[256,257]{1,0}",
		func(s []byte) {
			for i := range 256 * 257 {
				binary.LittleEndian.PutUint16(s[2*i:], uint16(i-3))
			}
		},
		func(name, st, dt string, s, d []byte) {
			for i := range 256 * 257 {
				h := uint16(i - 3)
				f := uint32(h) << 16
				if st == "f16" {
					f = simd.F16BitsToF32(h)
				}
				want := simd.F32ToF8E5M2Bits(f)
				if dt == "f8e4m3fn" {
					want = simd.F32ToF8E4M3FNBits(f)
				}
				if d[i] != want {
					t.Fatalf("%s: %s 0x%04x (element %d) → 0x%02x, want 0x%02x", name, st, h, i, d[i], want)
				}
			}
		})
}

// Every f8e4m3fn and f8e5m2 value to bf16 and f16 the same way: widened exactly, then
// rounded by the target's scalar rule (f8 values are exact in both; NaN as the rule
// makes it).
func TestF8RunsTo16(t *testing.T) {
	forF8Runs(t, []string{"f8e4m3fn", "f8e5m2"}, []string{"bf16", "f16"}, "[37,1031]{1,0}",
		func(s []byte) {
			for i := range s {
				s[i] = byte(i*7 + i/256)
			}
		},
		func(name, st, dt string, s, d []byte) {
			for i, b := range s {
				f := simd.F8E5M2BitsToF32(b)
				if st == "f8e4m3fn" {
					f = simd.F8E4M3FNBitsToF32(b)
				}
				want := simd.F32ToF16Bits(f)
				if dt == "bf16" {
					want = simd.F32ToBF16Bits(f)
				}
				if got := binary.LittleEndian.Uint16(d[2*i:]); got != want {
					t.Fatalf("%s: %s 0x%02x (element %d) → 0x%04x, want 0x%04x", name, st, b, i, got, want)
				}
			}
		})
}

// forF8Runs copies a source of each type in from, filled by fill, into the same dims
// and layout (dims, after the dtype) of each type in to, with each kernel set, cached
// and streamed, and has check judge the bytes.
func forF8Runs(t *testing.T, from, to []string, dims string, fill func(src []byte), check func(name, st, dt string, src, dst []byte)) {
	t.Helper()
	for _, k := range simd.Available() {
		for _, st := range from {
			for _, dt := range to {
				for _, stores := range []Stores{StoresCache, StoresStream} {
					name := fmt.Sprintf("%s/%s→%s/stores=%d", k.Name, st, dt, stores)
					src, dst := layout.MustParse(st+dims), layout.MustParse(dt+dims)
					p, err := NewPlan(dst, src, WithKernel(k.Name), WithStores(stores))
					if err != nil {
						t.Fatal(err)
					}
					s, d := buffer.MustNew(src), buffer.MustNew(dst)
					fill(s.Data)
					if err := p.Copy(d, s); err != nil {
						t.Fatal(err)
					}
					check(name, st, dt, s.Data, d.Data)
				}
			}
		}
	}
}
