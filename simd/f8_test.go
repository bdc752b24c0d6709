package simd

import (
	"math/rand/v2"
	"testing"
)

// TestF8Kernels runs every implementation's f8 kernels over every bf16 value widened
// to f32, the formats' edges and random f32s, and compares each element with the
// scalar definitions (which TestF8Scalar checks against package buffer).
func TestF8Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	var in []uint32
	for h := range 1 << 16 {
		in = append(in, uint32(h)<<16)
	}
	for _, f := range []uint32{0x3b000000, 0x3b000001, 0x3a800000, 0x3c7fffff, 0x3c800000, 0x38600000, 0x387fffff, 0x38800000,
		0x43e7ffff, 0x43e80000, 0x43e80001, 0x43efffff, 0x43f00001, 0x476fffff, 0x47700000, 0x47700001, 0x477fffff,
		0x47800001, 0x7f7fffff, 0x7f800001, 0x7fffffff, 1, 0x007fffff} {
		in = append(in, f, f|0x80000000)
	}
	for range 1 << 16 {
		in = append(in, r.Uint32(), 0x36000000+r.Uint32N(0x12000000)|r.Uint32N(2)<<31)
	}
	for len(in)%64 != 0 {
		in = append(in, r.Uint32())
	}
	n := len(in) / 4 // elements a row: four rows
	src := make([]byte, 4*len(in))
	for i, f := range in {
		le.PutUint32(src[4*i:], f)
	}
	rows := [4][]byte{src[:4*n], src[4*n : 8*n], src[8*n : 12*n], src[12*n:]}
	for _, k := range Available() {
		for _, c := range []struct {
			name   string
			packed func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
			to     func(dst, src []byte, n int, r Rows)
			scalar func(uint32) uint8
		}{
			{"e4m3fn", k.Pack4(F32, F8E4M3FN), k.Convert(F32, F8E4M3FN), F32ToF8E4M3FNBits},
			{"e5m2", k.Pack4(F32, F8E5M2), k.Convert(F32, F8E5M2), F32ToF8E5M2Bits},
		} {
			for _, stream := range []bool{false, true} {
				dst := make([]byte, 4*n+64)
				off := 64 - int(addr64(dst)%64) // line-aligned, so streaming can be taken
				d := dst[off%64:][: 4*n : 4*n]
				c.packed(d, rows[0], rows[1], rows[2], rows[3], n, Rows{N: 1, Hints: Hints{Stream: stream}})
				k.Fence()
				for i := range n {
					for q := range 4 {
						if got, want := d[4*i+q], c.scalar(in[q*n+i]); got != want {
							t.Fatalf("%s %s Interleave8x4 (stream %v): f32 %#08x → %#02x, want %#02x", k.Name, c.name, stream, in[q*n+i], got, want)
						}
					}
				}
			}
			// Every f8 pattern in every place of a quad, widened back.
			quads := make([]byte, 4*256)
			for i := range 256 {
				copy(quads[4*i:], []byte{byte(i), byte(255 - i), byte(i ^ 0x55), byte(i ^ 0xaa)})
			}
			var outs [4][]byte
			for q := range outs {
				outs[q] = make([]byte, 4*256)
			}
			widen, deint := F8E4M3FNBitsToF32, k.Unpack4(F8E4M3FN, F32)
			if c.name == "e5m2" {
				widen, deint = F8E5M2BitsToF32, k.Unpack4(F8E5M2, F32)
			}
			deint(outs[0], outs[1], outs[2], outs[3], quads, 256, Rows{N: 1})
			for i := range 256 {
				for q := range 4 {
					if got, want := le.Uint32(outs[q][4*i:]), widen(quads[4*i+q]); got != want {
						t.Fatalf("%s %s Deinterleave8x4ToF32: f8 %#02x → %#08x, want %#08x", k.Name, c.name, quads[4*i+q], got, want)
					}
				}
			}
			d := make([]byte, len(in))
			c.to(d, src, len(in), Rows{N: 1})
			for i, f := range in {
				if got, want := d[i], c.scalar(f); got != want {
					t.Fatalf("%s %s: f32 %#08x → %#02x, want %#02x", k.Name, c.name, f, got, want)
				}
			}
		}
	}
}

// TestF8To16 widens every f8 pattern of both formats to bf16 and f16 with every
// implementation, streamed or not, at every offset of a 64-element block (so that the
// vector loop, the narrower set's half block and the generic tail each see every
// pattern), and compares each element with the scalar definitions: the f8's f32 value
// narrowed by F32ToBF16Bits or F32ToF16Bits (exact; NaNs the quiet NaN of the sign).
func TestF8To16(t *testing.T) {
	for _, k := range Available() {
		checkF8To16(t, k)
	}
}

func checkF8To16(t *testing.T, k *Kernels) {
	t.Helper()
	src := make([]byte, 256+64)
	for i := range src {
		src[i] = byte(i * 7) // 7 is odd: every pattern in the first 256
	}
	{
		for _, c := range []struct {
			name   string
			kern   func(dst, src []byte, n int, r Rows)
			quads  func(r0, r1, r2, r3, src []byte, n int, r Rows)
			widen  func(uint8) uint32
			narrow func(uint32) uint16
		}{
			{"e4m3fn→bf16", k.Convert(F8E4M3FN, BF16), k.Unpack4(F8E4M3FN, BF16), F8E4M3FNBitsToF32, F32ToBF16Bits},
			{"e4m3fn→f16", k.Convert(F8E4M3FN, F16), k.Unpack4(F8E4M3FN, F16), F8E4M3FNBitsToF32, F32ToF16Bits},
			{"e5m2→bf16", k.Convert(F8E5M2, BF16), k.Unpack4(F8E5M2, BF16), F8E5M2BitsToF32, F32ToBF16Bits},
			{"e5m2→f16", k.Convert(F8E5M2, F16), k.Unpack4(F8E5M2, F16), F8E5M2BitsToF32, F32ToF16Bits},
		} {
			// Quads: every pattern in every place of a quad, 256+37 quads (the
			// kernel's blocks and a tail), streamed or not.
			for _, stream := range []bool{false, true} {
				const n = 256 + 37
				quads := make([]byte, 4*n)
				for i := range n {
					copy(quads[4*i:], []byte{byte(i), byte(255 - i), byte(i ^ 0x55), byte(i*7 + 3)})
				}
				var outs [4][]byte
				for q := range outs {
					buf := make([]byte, 2*n+64)
					a := 64 - int(addr64(buf)%64)
					outs[q] = buf[a%64:][: 2*n : 2*n]
				}
				c.quads(outs[0], outs[1], outs[2], outs[3], quads, n, Rows{N: 1, Hints: Hints{Stream: stream}})
				k.Fence()
				for i := range n {
					for q := range 4 {
						b := quads[4*i+q]
						if got, want := le.Uint16(outs[q][2*i:]), c.narrow(c.widen(b)); got != want {
							t.Fatalf("%s %s Deinterleave8x4 (stream %v): quad %d f8 %#02x → %#04x, want %#04x", k.Name, c.name, stream, i, b, got, want)
						}
					}
				}
			}
			for _, stream := range []bool{false, true} {
				for off := 0; off < 64; off += 5 {
					n := 256 + 64 - off
					buf := make([]byte, 2*n+128)
					a := 64 - int(addr64(buf)%64) // line-aligned, so streaming can be taken
					d := buf[a%64:][: 2*n : 2*n]
					c.kern(d, src[off:], n, Rows{N: 1, Hints: Hints{Stream: stream}})
					k.Fence()
					for i, b := range src[off:] {
						if got, want := le.Uint16(d[2*i:]), c.narrow(c.widen(b)); got != want {
							t.Fatalf("%s %s (stream %v, offset %d): f8 %#02x → %#04x, want %#04x", k.Name, c.name, stream, off, b, got, want)
						}
					}
				}
			}
		}
	}
}

// TestF16ToF8 converts every bf16 and every f16 value to both f8 formats with every
// implementation, streamed or not, from several offsets (the vector loop, the narrower
// set's half block and the generic tail each see most values), and compares each
// element with the scalar definitions: the value widened exactly to f32, then
// F32ToF8E4M3FNBits or F32ToF8E5M2Bits.
func TestF16ToF8(t *testing.T) {
	src := make([]byte, 2<<16+128)
	for i := range (len(src)) / 2 {
		le.PutUint16(src[2*i:], uint16(i))
	}
	for _, k := range Available() {
		for _, c := range []struct {
			name  string
			kern  func(dst, src []byte, n int, r Rows)
			quads func(dst, r0, r1, r2, r3 []byte, n int, r Rows)
			widen func(uint16) uint32
			f     f8Format
		}{
			{"bf16→e4m3fn", k.Convert(BF16, F8E4M3FN), k.Pack4(BF16, F8E4M3FN), BF16BitsToF32, e4m3fn},
			{"bf16→e5m2", k.Convert(BF16, F8E5M2), k.Pack4(BF16, F8E5M2), BF16BitsToF32, e5m2},
			{"f16→e4m3fn", k.Convert(F16, F8E4M3FN), k.Pack4(F16, F8E4M3FN), F16BitsToF32, e4m3fn},
			{"f16→e5m2", k.Convert(F16, F8E5M2), k.Pack4(F16, F8E5M2), F16BitsToF32, e5m2},
		} {
			// Quads: every value in every place of a quad (four rows of 2^14 values).
			for _, stream := range []bool{false, true} {
				const n = 1 << 14
				rows := [4][]byte{src[:2*n], src[2*n : 4*n], src[4*n : 6*n], src[6*n : 8*n]}
				buf := make([]byte, 4*n+64)
				a := 64 - int(addr64(buf)%64)
				d := buf[a%64:][: 4*n : 4*n]
				c.quads(d, rows[0], rows[1], rows[2], rows[3], n, Rows{N: 1, Hints: Hints{Stream: stream}})
				k.Fence()
				for i := range n {
					for q := range 4 {
						h := le.Uint16(rows[q][2*i:])
						if got, want := d[4*i+q], c.f.encode(c.widen(h)); got != want {
							t.Fatalf("%s %s Interleave8x4 (stream %v): %#04x → %#02x, want %#02x", k.Name, c.name, stream, h, got, want)
						}
					}
				}
			}
			for _, stream := range []bool{false, true} {
				for _, off := range []int{0, 1, 33, 64} {
					s := src[2*off:]
					n := len(s) / 2
					buf := make([]byte, n+64)
					a := 64 - int(addr64(buf)%64) // line-aligned, so streaming can be taken
					d := buf[a%64:][:n:n]
					c.kern(d, s, n, Rows{N: 1, Hints: Hints{Stream: stream}})
					k.Fence()
					for i := range n {
						h := le.Uint16(s[2*i:])
						if got, want := d[i], c.f.encode(c.widen(h)); got != want {
							t.Fatalf("%s %s (stream %v, offset %d): %#04x → %#02x, want %#02x", k.Name, c.name, stream, off, h, got, want)
						}
					}
				}
			}
		}
	}
}
