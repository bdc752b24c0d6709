package simd_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpulayout/tpulayout/simd"
)

// Pack two f32 rows into bf16 (2,1) pairs: every 32-bit word of the result
// holds the element of the even row in its low half and the element of the
// odd row in its high half.
func Example() {
	even := []float32{1, 2.5, -3, float32(math.Inf(1))}
	odd := []float32{0.1, 1e-40, 3.4e38, float32(math.NaN())}
	a := make([]byte, 4*len(even))
	b := make([]byte, 4*len(odd))
	for i := range even {
		binary.LittleEndian.PutUint32(a[4*i:], math.Float32bits(even[i]))
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(odd[i]))
	}
	dst := make([]byte, 4*len(even))
	simd.Default().Pack2(simd.F32, simd.BF16)(dst, a, b, len(even), simd.Rows{N: 1})
	for i := 0; i < len(dst); i += 4 {
		fmt.Printf("%#04x %#04x\n", binary.LittleEndian.Uint16(dst[i:]), binary.LittleEndian.Uint16(dst[i+2:]))
	}
	// Output:
	// 0x3f80 0x3dcd
	// 0x4020 0x0001
	// 0xc040 0x7f80
	// 0x7f80 0x7fc0
}
