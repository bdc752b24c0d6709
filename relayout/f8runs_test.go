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
	for _, k := range simd.Available() {
		for _, st := range []string{"bf16", "f16"} {
			for _, dt := range []string{"f8e4m3fn", "f8e5m2"} {
				for _, stores := range []Stores{StoresCache, StoresStream} {
					name := fmt.Sprintf("%s/%s→%s/stores=%d", k.Name, st, dt, stores)
					src := layout.MustParse(st + "[256,257]{1,0}")
					dst := layout.MustParse(dt + "[256,257]{1,0}")
					p, err := NewPlan(dst, src, WithKernel(k.Name), WithStores(stores))
					if err != nil {
						t.Fatal(err)
					}
					s, d := buffer.MustNew(src), buffer.MustNew(dst)
					for i := range 256 * 257 {
						binary.LittleEndian.PutUint16(s.Data[2*i:], uint16(i-3))
					}
					if err := p.Copy(d, s); err != nil {
						t.Fatal(err)
					}
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
						if d.Data[i] != want {
							t.Fatalf("%s: %s 0x%04x (element %d) → 0x%02x, want 0x%02x", name, st, h, i, d.Data[i], want)
						}
					}
				}
			}
		}
	}
}

// Every f8e4m3fn and f8e5m2 value to bf16 and f16 the same way: widened exactly, then
// rounded by the target's scalar rule (f8 values are exact in both; NaN as the rule
// makes it).
func TestF8RunsTo16(t *testing.T) {
	for _, k := range simd.Available() {
		for _, st := range []string{"f8e4m3fn", "f8e5m2"} {
			for _, dt := range []string{"bf16", "f16"} {
				for _, stores := range []Stores{StoresCache, StoresStream} {
					name := fmt.Sprintf("%s/%s→%s/stores=%d", k.Name, st, dt, stores)
					src := layout.MustParse(st + "[37,1031]{1,0}")
					dst := layout.MustParse(dt + "[37,1031]{1,0}")
					p, err := NewPlan(dst, src, WithKernel(k.Name), WithStores(stores))
					if err != nil {
						t.Fatal(err)
					}
					s, d := buffer.MustNew(src), buffer.MustNew(dst)
					for i := range s.Data {
						s.Data[i] = byte(i*7 + i/256)
					}
					if err := p.Copy(d, s); err != nil {
						t.Fatal(err)
					}
					for i, b := range s.Data {
						f := simd.F8E5M2BitsToF32(b)
						if st == "f8e4m3fn" {
							f = simd.F8E4M3FNBitsToF32(b)
						}
						want := simd.F32ToF16Bits(f)
						if dt == "bf16" {
							want = simd.F32ToBF16Bits(f)
						}
						if got := binary.LittleEndian.Uint16(d.Data[2*i:]); got != want {
							t.Fatalf("%s: %s 0x%02x (element %d) → 0x%04x, want 0x%04x", name, st, b, i, got, want)
						}
					}
				}
			}
		}
	}
}
