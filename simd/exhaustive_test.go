package simd

import (
	"encoding/binary"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// exhaustive runs conv (a vector kernel) over all 2^32 f32 bit patterns, in
// chunks of 2^16 spread over all CPUs, and compares each result with the
// scalar conversion (F32ToBF16Bits if bf16, else F32ToF16Bits). The source
// chunks are built with the vector kernels too (Fill and Interleave16), and
// the comparison loops call the scalar functions directly so that they can
// be inlined.
func exhaustive(t *testing.T, k *Kernels, conv func(dst, src []byte, n int), bf16 bool, skip func(hi uint16) bool) {
	const chunk = 1 << 16
	const chunks = 1 << 32 / chunk
	lo := make([]byte, 2*chunk)
	for i := 0; i < chunk; i++ {
		binary.LittleEndian.PutUint16(lo[2*i:], uint16(i))
	}
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hi := make([]byte, 2*chunk)
			src := make([]byte, 4*chunk)
			dst := make([]byte, 2*chunk)
			var pat [2]byte
			for !failed.Load() {
				c := next.Add(1) - 1
				if c >= chunks {
					return
				}
				if skip != nil && skip(uint16(c)) {
					continue
				}
				binary.LittleEndian.PutUint16(pat[:], uint16(c))
				k.Fill(hi, pat[:])
				k.one.pack2[Bits16][Bits16](src, lo, hi, chunk) // src[i] = c<<16 | i
				conv(dst, src, chunk)
				base := uint32(c) << 16
				bad := -1
				if bf16 {
					for i := 0; i < chunk; i++ {
						if binary.LittleEndian.Uint16(dst[2*i:]) != F32ToBF16Bits(base|uint32(i)) {
							bad = i
							break
						}
					}
				} else {
					for i := 0; i < chunk; i++ {
						if binary.LittleEndian.Uint16(dst[2*i:]) != F32ToF16Bits(base|uint32(i)) {
							bad = i
							break
						}
					}
				}
				if bad >= 0 && !failed.Swap(true) {
					x := base | uint32(bad)
					want := F32ToF16Bits(x)
					if bf16 {
						want = F32ToBF16Bits(x)
					}
					t.Errorf("input %#08x: got %#04x, want %#04x", x, binary.LittleEndian.Uint16(dst[2*bad:]), want)
				}
			}
		}()
	}
	wg.Wait()
}

// TestF32ToBF16Exhaustive checks the fastest F32ToBF16 kernel (the generic
// one in purego and noasm builds) on every f32 input against F32ToBF16Bits.
func TestF32ToBF16Exhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive test skipped in -short mode")
	}
	k := Default() // Generic in purego and noasm builds: its SWAR loop is checked too
	t.Logf("implementation %s", k.Name)
	var skip func(hi uint16) bool
	if !testenv.Long() {
		skip = func(hi uint16) bool { return hi%64 != 0 && !slices.Contains(bf16Exps, hi>>7&0xff) }
	}
	exhaustive(t, k, k.one.conv[F32][BF16], true, skip)
}

// bf16Exps are the f32 exponents where bf16 rounds to zero, goes subnormal or
// overflows: outside the long run (testenv.Long), TestF32ToBF16Exhaustive takes them
// and every 64th block of 2^16 inputs.
var bf16Exps = []uint16{0, 1, 254, 255}

// TestF32ToF16Exhaustive does the same for F32ToF16 (VCVTPS2PH), which also
// validates F32ToF16Bits against the hardware. The scalar binary16 conversion
// is slower, so the long run (testenv.Long) covers every input whose magnitude can
// give a finite non-zero binary16 result or is Inf/NaN (upper 16 bits of
// |x| in [0x3300, 0x4780) or >= 0x7f80, about a sixth of all inputs) and
// every 16th block of 2^16 inputs elsewhere; SIMD_EXHAUSTIVE=all checks all
// 2^32. The default run takes of that range its edges (rounding to zero and to the
// least subnormal, [0x3300, 0x3400); subnormal to normal, [0x3870, 0x3890);
// overflow, [0x4770, 0x4780)) and every 16th block, Inf/NaN, and every 256th block
// elsewhere.
func TestF32ToF16Exhaustive(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive test skipped in -short mode")
	}
	k := Default() // Generic in purego and noasm builds: its SWAR loop is checked too
	var skip func(hi uint16) bool
	switch {
	case os.Getenv("SIMD_EXHAUSTIVE") == "all":
	case testenv.Long():
		skip = func(hi uint16) bool {
			a := hi & 0x7fff
			return !(a >= 0x3300 && a < 0x4780 || a >= 0x7f80 || hi%16 == 0)
		}
	default:
		skip = func(hi uint16) bool {
			a := hi & 0x7fff
			edge := a >= 0x3300 && a < 0x3400 || a >= 0x3870 && a < 0x3890 || a >= 0x4770 && a < 0x4780
			return !(edge || a >= 0x3300 && a < 0x4780 && hi%16 == 0 || a >= 0x7f80 || hi%256 == 0)
		}
	}
	exhaustive(t, k, k.one.conv[F32][F16], false, skip)
}

// All 2^16 inputs of the widening conversions.
func TestWidenExhaustive(t *testing.T) {
	src := make([]byte, 2<<16)
	for i := 0; i < 1<<16; i++ {
		binary.LittleEndian.PutUint16(src[2*i:], uint16(i))
	}
	for _, k := range Available() {
		dst := make([]byte, 4<<16)
		for _, c := range []struct {
			name   string
			conv   func(dst, src []byte, n int)
			scalar func(uint16) uint32
		}{{"BF16ToF32", k.one.conv[BF16][F32], BF16BitsToF32}, {"F16ToF32", k.one.conv[F16][F32], F16BitsToF32}} {
			c.conv(dst, src, 1<<16)
			for i := 0; i < 1<<16; i++ {
				if got, want := binary.LittleEndian.Uint32(dst[4*i:]), c.scalar(uint16(i)); got != want {
					t.Fatalf("%s %s(%#04x) = %#08x, want %#08x", k.Name, c.name, i, got, want)
				}
			}
		}
	}
}
