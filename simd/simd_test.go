package simd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// Lengths around vector widths, unroll factors and tile sizes.
var testLengths = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65,
	95, 96, 97, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2049, 4099}

// Offsets of destination and source slices from a 64-byte boundary.
var testOffsets = []int{0, 1, 2, 4, 36}

// wraps4 is an element count whose byte size at 4 bytes an element wraps
// around to 64 on this platform's int; hugeStride is a stride no slice spans.
const (
	wraps4     = 1<<(bits.UintSize-2) + 16
	hugeStride = 1 << (bits.UintSize - 2)
)

const (
	guardLen  = 64
	guardByte = 0xa5
)

// guarded is a slice of n bytes at offset off from a 64-byte boundary, with
// guard bytes on both sides to catch out-of-bounds writes.
type guarded struct {
	buf    []byte
	off, n int
}

func newGuarded(n, off int) *guarded {
	// Over-allocate so that the view can be placed at a fixed alignment.
	raw := make([]byte, n+off+2*guardLen+64)
	base := int(-addr64(raw) & 63)
	g := &guarded{buf: raw[base : base+n+off+2*guardLen], off: off, n: n}
	for i := range g.buf {
		g.buf[i] = guardByte
	}
	return g
}

func addr64(b []byte) uintptr {
	if cap(b) == 0 {
		return 0
	}
	return uintptrOf(&b[:1][0])
}

func uintptrOf(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }

// b returns the view; its capacity equals its length, so a kernel that
// re-slices it beyond n panics.
func (g *guarded) b() []byte {
	s := guardLen + g.off
	return g.buf[s : s+g.n : s+g.n]
}

func (g *guarded) checkGuards(t testing.TB, what string) {
	t.Helper()
	s := guardLen + g.off
	for i, c := range g.buf {
		if (i < s || i >= s+g.n) && c != guardByte {
			t.Fatalf("%s: guard byte at %d (view [%d,%d)) overwritten: %#x", what, i, s, s+g.n, c)
		}
	}
}

// checkDst fills two guarded destinations of len(fill) bytes at offset off with
// fill, writes one with ref and the other with got, and fails t at the first byte
// where they differ or where got wrote outside its destination.
func checkDst(t testing.TB, what string, fill []byte, off int, ref, got func(dst []byte)) {
	t.Helper()
	wg, gg := newGuarded(len(fill), off), newGuarded(len(fill), off)
	copy(wg.b(), fill)
	copy(gg.b(), fill)
	ref(wg.b())
	got(gg.b())
	gg.checkGuards(t, what)
	if !bytes.Equal(gg.b(), wg.b()) {
		i := 0
		for gg.b()[i] == wg.b()[i] {
			i++
		}
		t.Fatalf("%s: differs from the reference at byte %d", what, i)
	}
}

// randBytes returns n random bytes; for f32 data it mixes in special values.
func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var specialF32 = []uint32{
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, // ±0, ±Inf
	0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fa00000, 0x7f80ffff, 0x7fbfffff, 0x7fff0000, // NaNs
	0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x7f7f7fff, 0x7f7f8001, // near max, bf16 overflow ties
	0x00000001, 0x807fffff, 0x00800000, // subnormal, min normal
	0x3f808000, 0x3f818000, 0x3f808001, 0x3f807fff, // bf16 ties (even, odd) and neighbours
	0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0xc77ff000, // f16 max and overflow
	0x38800000, 0x387fc000, 0x387fe000, 0x33000000, 0x33000001, 0x337fffff, 0x33800000, // f16 subnormals
	0x3f801000, 0x3f803000, 0x3f800fff, // f16 ties
}

// randF32 returns n f32 values as bytes: random bit patterns, random
// "ordinary" floats and special values.
func randF32(r *rand.Rand, n int) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		var v uint32
		switch r.IntN(4) {
		case 0:
			v = r.Uint32()
		case 1:
			v = math.Float32bits(float32(r.NormFloat64() * 1000))
		case 2:
			v = specialF32[r.IntN(len(specialF32))]
		default:
			// Random value with a tie or near-tie in its low bits.
			v = r.Uint32()&0xffff0000 | []uint32{0x8000, 0x7fff, 0x8001, 0x1000, 0x0fff, 0x1001, 0x3000}[r.IntN(7)]
		}
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// vectorImpls returns the non-generic implementations, skipping the test if
// there are none.
func vectorImpls(t testing.TB) []*Kernels {
	impls := Available()[1:]
	if len(impls) == 0 {
		t.Skip("no vector implementation on this CPU/build")
	}
	return impls
}

// withNT runs f twice: with the default non-temporal threshold and with
// non-temporal stores forced on wherever the destinations allow them.
func withNT(t *testing.T, f func(t *testing.T)) {
	for _, mode := range []string{"default", "forcedNT"} {
		t.Run("nt="+mode, func(t *testing.T) {
			if mode == "forcedNT" {
				old := ntThreshold
				ntThreshold = 0
				defer func() { ntThreshold = old }()
			}
			f(t)
		})
	}
}

// kernelCase describes one call of a kernel with nIn inputs and nOut outputs
// whose sizes in bytes depend on n.
type kernelCase struct {
	name   string
	inLen  []func(n int) int
	outLen []func(n int) int
	f32In  bool // inputs are f32 (use special values)
	run    func(k *Kernels, out, in [][]byte, n int)
}

func mul(c int) func(int) int { return func(n int) int { return c * n } }

var kernelCases = []kernelCase{
	{"Copy", []func(int) int{mul(1)}, []func(int) int{mul(1)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.Copy(o[0], i[0]) }},
	{"CopyNT", []func(int) int{mul(1)}, []func(int) int{mul(1)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.CopyNT(o[0], i[0]) }},
	{"Interleave16", []func(int) int{mul(2), mul(2)}, []func(int) int{mul(4)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.pack2[Bits16][Bits16](o[0], i[0], i[1], n) }},
	{"Deinterleave16", []func(int) int{mul(4)}, []func(int) int{mul(2), mul(2)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.unpack2[Bits16][Bits16](o[0], o[1], i[0], n) }},
	{"Interleave8x4", []func(int) int{mul(1), mul(1), mul(1), mul(1)}, []func(int) int{mul(4)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.pack4[Bits8][Bits8](o[0], i[0], i[1], i[2], i[3], n) }},
	{"Deinterleave8x4", []func(int) int{mul(4)}, []func(int) int{mul(1), mul(1), mul(1), mul(1)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.unpack4[Bits8][Bits8](o[0], o[1], o[2], o[3], i[0], n) }},
	{"F32ToBF16", []func(int) int{mul(4)}, []func(int) int{mul(2)}, true,
		func(k *Kernels, o, i [][]byte, n int) { k.one.conv[F32][BF16](o[0], i[0], n) }},
	{"F32ToF16", []func(int) int{mul(4)}, []func(int) int{mul(2)}, true,
		func(k *Kernels, o, i [][]byte, n int) { k.one.conv[F32][F16](o[0], i[0], n) }},
	{"BF16ToF32", []func(int) int{mul(2)}, []func(int) int{mul(4)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.conv[BF16][F32](o[0], i[0], n) }},
	{"F16ToF32", []func(int) int{mul(2)}, []func(int) int{mul(4)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.conv[F16][F32](o[0], i[0], n) }},
	{"F32ToBF16Interleave", []func(int) int{mul(4), mul(4)}, []func(int) int{mul(4)}, true,
		func(k *Kernels, o, i [][]byte, n int) { k.one.pack2[F32][BF16](o[0], i[0], i[1], n) }},
	{"F32ToF16Interleave", []func(int) int{mul(4), mul(4)}, []func(int) int{mul(4)}, true,
		func(k *Kernels, o, i [][]byte, n int) { k.one.pack2[F32][F16](o[0], i[0], i[1], n) }},
	{"BF16DeinterleaveToF32", []func(int) int{mul(4)}, []func(int) int{mul(4), mul(4)}, false,
		func(k *Kernels, o, i [][]byte, n int) { k.one.unpack2[BF16][F32](o[0], o[1], i[0], n) }},
}

// runCase runs kc with implementation k and with the generic one on the same
// random inputs (at offsets offIn/offOut, with guards) and compares.
func runCase(t testing.TB, kc kernelCase, k *Kernels, r *rand.Rand, n, offIn, offOut int) {
	t.Helper()
	in := make([][]byte, len(kc.inLen))
	for j, l := range kc.inLen {
		if kc.f32In {
			in[j] = randF32(r, l(n)/4)
		} else {
			in[j] = randBytes(r, l(n))
		}
	}
	runCaseData(t, kc, k, in, n, offIn, offOut)
}

// runCaseData is runCase with given input contents. Different outputs get different
// offsets so that the multi-destination non-temporal paths see both cases.
func runCaseData(t testing.TB, kc kernelCase, k *Kernels, data [][]byte, n, offIn, offOut int) {
	t.Helper()
	compareOn(t, kc, Generic(), k, data, n,
		func(int) int { return offIn }, func(j int) int { return (offOut + j*offOut) % 64 })
}

// compareOn runs kc with ref and with k on the same data, input j at inOff(j) bytes
// from a line and output j at outOff(j), and fails t where k's outputs differ from
// ref's, where either writes outside its outputs, or where either changes its inputs.
func compareOn(t testing.TB, kc kernelCase, ref, k *Kernels, data [][]byte, n int, inOff, outOff func(j int) int) {
	t.Helper()
	in := make([][]byte, len(data))
	for j, d := range data {
		g := newGuarded(len(d), inOff(j))
		copy(g.b(), d)
		in[j] = g.b()
	}
	outs := func() ([]*guarded, [][]byte) {
		gs := make([]*guarded, len(kc.outLen))
		bs := make([][]byte, len(kc.outLen))
		for j, l := range kc.outLen {
			gs[j] = newGuarded(l(n), outOff(j))
			bs[j] = gs[j].b()
		}
		return gs, bs
	}
	wantG, want := outs()
	kc.run(ref, want, in, n)
	gotG, got := outs()
	kc.run(k, got, in, n)
	for j := range got {
		gotG[j].checkGuards(t, fmt.Sprintf("%s/%s n=%d out%d", kc.name, k.Name, n, j))
		wantG[j].checkGuards(t, fmt.Sprintf("%s/%s n=%d out%d", kc.name, ref.Name, n, j))
		if !bytes.Equal(got[j], want[j]) {
			i := 0
			for i < len(got[j]) && got[j][i] == want[j][i] {
				i++
			}
			t.Fatalf("%s/%s n=%d offIn=%d offOut=%d: out%d differs from %s at byte %d: got % x, want % x",
				kc.name, k.Name, n, inOff(0), outOff(0), j, ref.Name, i, got[j][i:min(i+8, len(got[j]))], want[j][i:min(i+8, len(want[j]))])
		}
	}
	for j, g := range in {
		if !bytes.Equal(g, data[j]) {
			t.Fatalf("%s/%s n=%d: input %d modified", kc.name, k.Name, n, j)
		}
	}
}

func TestKernelsAgainstGeneric(t *testing.T) {
	impls := vectorImpls(t)
	withNT(t, func(t *testing.T) {
		for _, kc := range kernelCases {
			t.Run(kc.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(1, 2))
				for _, k := range impls {
					for _, n := range testLengths {
						for _, oi := range testOffsets {
							runCase(t, kc, k, r, n, oi, (oi*7+4)%64)
						}
					}
				}
			})
		}
	})
}

// The NT paths with the real threshold: one call large enough to cross it.
func TestKernelsLarge(t *testing.T) {
	impls := vectorImpls(t)
	if testing.Short() {
		t.Skip("short")
	}
	n := ntThreshold/2 + 37
	r := rand.New(rand.NewPCG(3, 4))
	for _, kc := range kernelCases {
		for _, k := range impls {
			runCase(t, kc, k, r, n, 0, 0)
		}
	}
}

func TestGenericDefinitions(t *testing.T) {
	// The generic kernels against the per-element definitions of the API.
	r := rand.New(rand.NewPCG(5, 6))
	const n = 300
	g := Generic()
	a, b := randBytes(r, 2*n), randBytes(r, 2*n)
	d := make([]byte, 4*n)
	g.one.pack2[Bits16][Bits16](d, a, b, n)
	for i := 0; i < n; i++ {
		if !bytes.Equal(d[4*i:4*i+2], a[2*i:2*i+2]) || !bytes.Equal(d[4*i+2:4*i+4], b[2*i:2*i+2]) {
			t.Fatalf("Interleave16 at %d", i)
		}
	}
	q := [4][]byte{randBytes(r, n), randBytes(r, n), randBytes(r, n), randBytes(r, n)}
	g.one.pack4[Bits8][Bits8](d, q[0], q[1], q[2], q[3], n)
	for i := 0; i < n; i++ {
		for k := 0; k < 4; k++ {
			if d[4*i+k] != q[k][i] {
				t.Fatalf("Interleave8x4 at %d,%d", i, k)
			}
		}
	}
	f := randF32(r, n)
	g.one.conv[F32][BF16](d, f, n)
	for i := 0; i < n; i++ {
		if got, want := le.Uint16(d[2*i:]), F32ToBF16Bits(le.Uint32(f[4*i:])); got != want {
			t.Fatalf("F32ToBF16 at %d: %#x want %#x", i, got, want)
		}
	}
}

func TestTransposeAgainstGeneric(t *testing.T) {
	impls := vectorImpls(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, w := range []int{4, 2, 1} {
		dims := []int{0, 1, 3, 4, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 47, 64, 65, 100, 128}
		pads := []int{0, 3}
		if w == 1 {
			// Around multiples of the 64×64 AVX-512 block and of the 16×16
			// AVX2 one, and of the 8 rows of the 8×16 kernel below them; pads 3
			// and 5 pick other strides, see below.
			pads = []int{0, 3, 5}
			dims = []int{0, 1, 8, 15, 16, 17, 24, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200}
			if testing.Short() {
				dims = []int{0, 1, 8, 17, 24, 63, 64, 65, 129}
			}
		}
		t.Run(fmt.Sprintf("w=%d", w), func(t *testing.T) {
			for _, k := range impls {
				gen := Generic().transpose(w, false)
				for _, mode := range []string{"plain", "nt", "stream"} {
					nt := mode != "plain"
					tr := k.transpose(w, nt)
					if mode == "stream" { // without the fence: one Fence after the call
						tr = func(dst []byte, ds int, src []byte, ss int, rows, cols int) {
							k.transposeStream(w)(dst, ds, src, ss, rows, cols)
							k.Fence()
						}
					}
					for _, rows := range dims {
						for _, cols := range dims {
							for _, pad := range pads {
								ss, ds := cols*w+pad*w+r.IntN(2)*w, rows*w+pad*w
								switch {
								case pad == 0 && r.IntN(2) == 0: // aligned rows: the non-temporal kernels run
									ds = (rows*w + 63) &^ 63
								case w == 1 && pad == 3: // 64-byte multiple dstStride, unaligned dst start
									ss, ds = cols+r.IntN(70), (rows+63)&^63+64*r.IntN(2)
								case w == 1 && pad == 5: // any strides
									ss, ds = cols+r.IntN(70), rows+r.IntN(70)
								}
								srcLen, dstLen := 0, 0
								if rows > 0 && cols > 0 {
									srcLen = (rows-1)*ss + cols*w
									dstLen = (cols-1)*ds + rows*w
								}
								sg := newGuarded(srcLen, pad)
								copy(sg.b(), randBytes(r, srcLen))
								wg, gg := newGuarded(dstLen, 2*pad), newGuarded(dstLen, 2*pad)
								gen(wg.b(), ds, sg.b(), ss, rows, cols)
								tr(gg.b(), ds, sg.b(), ss, rows, cols)
								gg.checkGuards(t, fmt.Sprintf("%s %dx%d", k.Name, rows, cols))
								if !bytes.Equal(gg.b(), wg.b()) {
									t.Fatalf("%s w=%d %s rows=%d cols=%d ss=%d ds=%d: differs from generic", k.Name, w, mode, rows, cols, ss, ds)
								}
							}
						}
					}
				}
			}
		})
	}
}

func TestGenericTranspose(t *testing.T) {
	const rows, cols = 37, 21
	src := make([]byte, rows*cols*4)
	for i := range src {
		src[i] = byte(i * 7)
	}
	for _, k := range Available() {
		dst := make([]byte, rows*cols*4)
		k.Transpose(4, Ordinary)(dst, rows*4, src, cols*4, rows, cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				if !bytes.Equal(dst[j*rows*4+4*i:][:4], src[i*cols*4+4*j:][:4]) {
					t.Fatalf("%s: Transpose32 (%d,%d)", k.Name, i, j)
				}
			}
		}
	}
}

func TestFill(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, k := range Available() {
		for _, pl := range []int{1, 2, 4, 8, 16} {
			pat := randBytes(r, pl)
			for _, n := range testLengths {
				n *= pl
				for _, off := range testOffsets {
					g := newGuarded(n, off)
					k.Fill(g.b(), pat)
					g.checkGuards(t, "Fill")
					for i := 0; i < n; i++ {
						if g.b()[i] != pat[i%pl] {
							t.Fatalf("%s: Fill(len=%d, pattern %d) byte %d = %#x, want %#x", k.Name, n, pl, i, g.b()[i], pat[i%pl])
						}
					}
				}
			}
		}
	}
}

// Prefetch reads nothing it may not and changes nothing, at any length and alignment,
// with either hint.
func TestPrefetch(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	defer func(l2 bool) { prefetchToL2 = l2 }(prefetchToL2)
	for _, prefetchToL2 = range []bool{false, true} {
		for _, k := range Available() {
			for _, n := range append(testLengths, 4096, 4097) {
				for _, off := range testOffsets {
					g := newGuarded(n, off)
					want := randBytes(r, n)
					copy(g.b(), want)
					k.Prefetch(g.b())
					g.checkGuards(t, "Prefetch")
					if !bytes.Equal(g.b(), want) {
						t.Fatalf("%s (to L2 %v): Prefetch(len=%d, off=%d) changed its bytes", k.Name, prefetchToL2, n, off)
					}
				}
			}
			k.Prefetch(nil)
		}
	}
}

func TestPanics(t *testing.T) {
	for _, k := range Available() {
		b := make([]byte, 100)
		testenv.MustPanic(t, k.Name+" Interleave16 short dst", func() { k.one.pack2[Bits16][Bits16](b[:99], b, b, 25) })
		testenv.MustPanic(t, k.Name+" Interleave16 short src", func() { k.one.pack2[Bits16][Bits16](b, b[:49], b, 25) })
		testenv.MustPanic(t, k.Name+" Copy short dst", func() { k.Copy(b[:10], b[:20]) })
		testenv.MustPanic(t, k.Name+" F32ToBF16 negative", func() { k.one.conv[F32][BF16](b, b, -1) })
		testenv.MustPanic(t, k.Name+" F32ToBF16Interleave huge n", func() { k.one.pack2[F32][BF16](b[:64], b[:64], b[:64], wraps4) })
		testenv.MustPanic(t, k.Name+" Fill pattern 3", func() { k.Fill(b[:99], b[:3]) })
		testenv.MustPanic(t, k.Name+" Fill not multiple", func() { k.Fill(b[:99], b[:2]) })
		testenv.MustPanic(t, k.Name+" Transpose32 short src", func() { k.Transpose(4, Ordinary)(make([]byte, 4096), 64, b, 40, 3, 10) })
		testenv.MustPanic(t, k.Name+" Transpose32 short dst", func() { k.Transpose(4, Ordinary)(b, 12, make([]byte, 4096), 40, 10, 10) })
		big := make([]byte, 1<<14)
		testenv.MustPanic(t, k.Name+" Transpose16 short dst", func() { k.Transpose(2, Ordinary)(big[:2000], 64, big, 64, 32, 32) })
	}
}

func TestRegistry(t *testing.T) {
	av := Available()
	if len(av) == 0 || av[0] != Generic() || av[0].Name != "generic" {
		t.Fatalf("Available()[0] is not generic")
	}
	for _, k := range av {
		if got, ok := Lookup(k.Name); !ok || got != k {
			t.Errorf("Lookup(%q) = %v, %v", k.Name, got, ok)
		}
	}
	if _, ok := Lookup("sse9"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
	best := av[len(av)-1]
	for _, c := range []struct {
		env  string
		want *Kernels
	}{{"", best}, {"generic", Generic()}, {"sse9", best}, {best.Name, best}} {
		if got := choose(c.env); got != c.want {
			t.Errorf("with %s=%q the default is %s, want %s", EnvVar, c.env, got.Name, c.want.Name)
		}
	}
	// The process may run with TPULAYOUT_SIMD set (to force an implementation).
	want := choose(os.Getenv(EnvVar))
	if Default() != want {
		t.Errorf("Default() = %s, want %s", Default().Name, want.Name)
	}
	restore, ok := Use("generic")
	if !ok || Default() != Generic() {
		t.Fatal("Use(generic) did not take effect")
	}
	restore()
	if Default() != want {
		t.Error("restore did not restore")
	}
	if !asmEnabled && len(av) != 1 {
		t.Errorf("purego/noasm build registers %d implementations", len(av))
	}
	t.Logf("implementations: %d, default %s, features %q", len(av), Default().Name, Features())
}

// TestScalarRounding checks the scalar conversions against an independent
// oracle: the result must be the nearest representable value (ties to even),
// with values at or beyond the overflow midpoint becoming Inf.
func TestScalarRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	bf := func(h uint16) float64 { // |value|, Inf as 2^128
		if h&0x7fff == 0x7f80 {
			return math.Ldexp(1, 128)
		}
		return math.Abs(float64(math.Float32frombits(uint32(h) << 16)))
	}
	f16 := func(h uint16) float64 {
		h &= 0x7fff
		if h == 0x7c00 {
			return 65536
		}
		e, m := int(h>>10), float64(h&0x3ff)
		if e == 0 {
			return math.Ldexp(m, -24)
		}
		return math.Ldexp(1024+m, e-25)
	}
	check := func(name string, x uint32, h uint16, val func(uint16) float64, inf uint16) {
		xf := math.Float32frombits(x)
		if math.IsNaN(float64(xf)) {
			return
		}
		if (h&0x8000 != 0) != (x&0x80000000 != 0) {
			t.Fatalf("%s(%#x) = %#x: wrong sign", name, x, h)
		}
		ax := math.Abs(float64(xf))
		if math.IsInf(ax, 0) {
			if h&0x7fff != inf {
				t.Fatalf("%s(%#x) = %#x, want Inf", name, x, h)
			}
			return
		}
		v := val(h)
		d := math.Abs(ax - v)
		for _, nb := range []uint16{h&0x7fff - 1, h&0x7fff + 1} {
			if nb > inf || h&0x7fff == 0 && nb == 0xffff {
				continue
			}
			dn := math.Abs(ax - val(nb))
			if dn < d || (dn == d && h&1 == 1) {
				t.Fatalf("%s(%#x = %g) = %#x (%g), but %#x (%g) is nearer or even", name, x, xf, h, v, nb, val(nb))
			}
		}
	}
	for i := 0; i < 2000000; i++ {
		var x uint32
		if i < len(specialF32) {
			x = specialF32[i]
		} else {
			x = r.Uint32()
			if i%2 == 0 { // concentrate on the f16 range
				x = x&0x80ffffff | uint32(100+r.IntN(45))<<23
			}
		}
		check("F32ToBF16Bits", x, F32ToBF16Bits(x), bf, 0x7f80)
		check("F32ToF16Bits", x, F32ToF16Bits(x), f16, 0x7c00)
	}
	// NaNs stay NaN, keep their sign and become quiet.
	for _, x := range []uint32{0x7f800001, 0xff800001, 0x7fc00000, 0x7fbfffff, 0xffffffff, 0x7f80ffff} {
		if h := F32ToBF16Bits(x); h&0x7f80 != 0x7f80 || h&0x0040 == 0 || h>>15 != uint16(x>>31) {
			t.Errorf("F32ToBF16Bits(%#x) = %#x: not a quiet NaN with the sign", x, h)
		}
		if h := F32ToF16Bits(x); h&0x7c00 != 0x7c00 || h&0x0200 == 0 || h>>15 != uint16(x>>31) {
			t.Errorf("F32ToF16Bits(%#x) = %#x: not a quiet NaN with the sign", x, h)
		}
	}
	// Widening is exact: every non-NaN 16-bit value round-trips.
	for h := 0; h < 1<<16; h++ {
		if v := F16BitsToF32(uint16(h)); !math.IsNaN(float64(math.Float32frombits(v))) {
			if back := F32ToF16Bits(v); back != uint16(h) {
				t.Fatalf("f16 %#x -> %#x -> %#x", h, v, back)
			}
			if float64(math.Float32frombits(v)) != math.Copysign(f16(uint16(h)), float64(1-2*(h>>15))) && h&0x7fff != 0x7c00 {
				t.Fatalf("F16BitsToF32(%#x) = %g, want %g", h, math.Float32frombits(v), f16(uint16(h)))
			}
		}
		if v := BF16BitsToF32(uint16(h)); v != uint32(h)<<16 {
			t.Fatalf("BF16BitsToF32(%#x) = %#x", h, v)
		}
	}
}
