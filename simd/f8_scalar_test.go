package simd_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/simd"
)

// f8Specials are f32 bit patterns at the f8 formats' edges: zeros, the smallest
// subnormals and their midpoints, the normal boundaries, the largest finite values and
// the overflow midpoints (448/464/480, 57344/61440/65536) with their neighbours,
// infinities and NaNs of both signs.
var f8Specials = []uint32{
	0, 0x80000000, 1, 0x007fffff, 0x00800000,
	0x3b000000, 0x3b000001, 0x3a800000, 0x3a800001, 0x3b800000, 0x3bc00000, 0x3c000000, 0x3c7fffff, 0x3c800000, 0x3c880000, 0x3c900000,
	0x37000000, 0x37000001, 0x37800000, 0x38000000, 0x38600000, 0x387fffff, 0x38800000, 0x38900000, 0x38a00000,
	0x43e00000, 0x43e7ffff, 0x43e80000, 0x43e80001, 0x43efffff, 0x43f00000, 0x43f00001, 0x44000000,
	0x47600000, 0x476fffff, 0x47700000, 0x47700001, 0x477fffff, 0x47800000, 0x47800001,
	0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff,
}

// checkF8 compares the scalar f32 → f8 conversions with package buffer's (the
// definitions, through float64) on the bits f and -f.
func checkF8(t *testing.T, f uint32) {
	t.Helper()
	for _, x := range []uint32{f, f ^ 0x80000000} {
		v := math.Float32frombits(x)
		if got, want := simd.F32ToF8E4M3FNBits(x), buffer.F32ToF8E4M3FN(v); got != want {
			t.Fatalf("F32ToF8E4M3FNBits(%#08x) = %#02x, want %#02x", x, got, want)
		}
		if got, want := simd.F32ToF8E5M2Bits(x), buffer.F32ToF8E5M2(v); got != want {
			t.Fatalf("F32ToF8E5M2Bits(%#08x) = %#02x, want %#02x", x, got, want)
		}
	}
}

// TestF8Scalar checks the scalar f8 conversions against package buffer over every
// bf16 value (all 2^16 patterns widened to f32), random f32s and the specials, and
// the widening of every f8 pattern.
func TestF8Scalar(t *testing.T) {
	for h := range 1 << 16 {
		checkF8(t, uint32(h)<<16)
	}
	for _, f := range f8Specials {
		checkF8(t, f)
	}
	r := rand.New(rand.NewPCG(81, 82))
	n := 1 << 20
	if testing.Short() {
		n = 1 << 16
	}
	for range n {
		checkF8(t, r.Uint32())
		// Near the formats' range, where the rounding happens in the mantissa.
		checkF8(t, 0x36000000+r.Uint32N(0x12000000))
	}
	for b := range 256 {
		if got, want := simd.F8E4M3FNBitsToF32(uint8(b)), math.Float32bits(buffer.F8E4M3FNToF32(uint8(b))); got != want {
			t.Errorf("F8E4M3FNBitsToF32(%#02x) = %#08x, want %#08x", b, got, want)
		}
		if got, want := simd.F8E5M2BitsToF32(uint8(b)), math.Float32bits(buffer.F8E5M2ToF32(uint8(b))); got != want {
			t.Errorf("F8E5M2BitsToF32(%#02x) = %#08x, want %#08x", b, got, want)
		}
	}
}
