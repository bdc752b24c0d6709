package simd

// The keyed kernels every set has: their types, operand shapes, the elements an
// assembly iteration takes, and the generic code, which is the reference and runs
// wherever a set has no assembly. Adding a conversion is a row here, its
// generator (simd/_asm) and its per-element definition.

// rowKernel is one keyed batched kernel: from and to are its key, sh its operands,
// and an iteration of its assembly takes num/den of the vector width in elements.
// single says the kernel has a single-call form (which its batches run on rows too
// long to batch): Go's own in the generic set, the assembly's in the others.
type rowKernel struct {
	from, to DType
	sh       *shape
	num, den int
	single   bool
}

// blk is the kernel's block for vector width vw, or 0 without assembly.
func (c *rowKernel) blk(asm bool, vw int) int {
	if !asm {
		return 0
	}
	return vw * c.num / c.den
}

var convKernels = []struct {
	rowKernel
	gen func(dst, src []byte, n int)
}{
	{rowKernel{F32, BF16, &shNarrow, 1, 2, true}, genericF32ToBF16},
	{rowKernel{F32, F16, &shNarrow, 1, 2, true}, genericF32ToF16},
	{rowKernel{BF16, F32, &shWiden, 1, 2, true}, genericBF16ToF32},
	{rowKernel{F16, F32, &shWiden, 1, 2, true}, genericF16ToF32},
	{rowKernel{F32, F8E4M3FN, &shToF8, 1, 1, false}, func(dst, src []byte, n int) { genericF32ToF8(e4m3fn, dst, src, n) }},
	{rowKernel{F32, F8E5M2, &shToF8, 1, 1, false}, func(dst, src []byte, n int) { genericF32ToF8(e5m2, dst, src, n) }},
	{rowKernel{F8E4M3FN, F32, &shFromF8, 1, 4, false}, func(dst, src []byte, n int) { genericF8ToF32(&f8e4m3fnToF32, dst, src, n) }},
	{rowKernel{F8E5M2, F32, &shFromF8, 1, 4, false}, func(dst, src []byte, n int) { genericF8ToF32(&f8e5m2ToF32, dst, src, n) }},
	{rowKernel{F8E4M3FN, BF16, &shFromF8To16, 1, 2, false}, func(dst, src []byte, n int) { genericF8To16(&f8e4m3fnToBF16, dst, src, n) }},
	{rowKernel{F8E4M3FN, F16, &shFromF8To16, 1, 2, false}, func(dst, src []byte, n int) { genericF8To16(&f8e4m3fnToF16, dst, src, n) }},
	{rowKernel{F8E5M2, BF16, &shFromF8To16, 1, 2, false}, func(dst, src []byte, n int) { genericF8To16(&f8e5m2ToBF16, dst, src, n) }},
	{rowKernel{F8E5M2, F16, &shFromF8To16, 1, 2, false}, func(dst, src []byte, n int) { genericF8To16(&f8e5m2ToF16, dst, src, n) }},
	{rowKernel{BF16, F8E4M3FN, &shFrom16ToF8, 1, 1, false}, func(dst, src []byte, n int) { genericF16ToF8(e4m3fn, BF16BitsToF32, dst, src, n) }},
	{rowKernel{BF16, F8E5M2, &shFrom16ToF8, 1, 1, false}, func(dst, src []byte, n int) { genericF16ToF8(e5m2, BF16BitsToF32, dst, src, n) }},
	{rowKernel{F16, F8E4M3FN, &shFrom16ToF8, 1, 1, false}, func(dst, src []byte, n int) { genericF16ToF8(e4m3fn, F16BitsToF32, dst, src, n) }},
	{rowKernel{F16, F8E5M2, &shFrom16ToF8, 1, 1, false}, func(dst, src []byte, n int) { genericF16ToF8(e5m2, F16BitsToF32, dst, src, n) }},
}

var pack2Kernels = []struct {
	rowKernel
	gen func(dst, a, b []byte, n int)
}{
	{rowKernel{Bits16, Bits16, &shPack16, 1, 1, true}, genericInterleave16},
	{rowKernel{F32, BF16, &shPackF32, 1, 2, true}, genericF32ToBF16Interleave},
	{rowKernel{F32, F16, &shPackF32, 1, 2, true}, genericF32ToF16Interleave},
}

// unpack2Kernels' half is the shape of one of the two destinations, for the
// batches that run as two (see deinterleaveSplit).
var unpack2Kernels = []struct {
	rowKernel
	half *shape
	gen  func(a, b, src []byte, n int)
}{
	{rowKernel{Bits16, Bits16, &shUnpack16, 1, 1, true}, &shExtract16, genericDeinterleave16},
	{rowKernel{BF16, F32, &shUnpackToF32, 1, 2, true}, &shExtractToF32, genericBF16DeinterleaveToF32},
}

var pack4Kernels = []struct {
	rowKernel
	gen func(dst, r0, r1, r2, r3 []byte, n int)
}{
	{rowKernel{Bits8, Bits8, &shPack8x4, 1, 1, true}, genericInterleave8x4},
	{rowKernel{F32, F8E4M3FN, &shPackF8x4, 1, 4, false}, func(dst, r0, r1, r2, r3 []byte, n int) {
		genericF32ToF8Interleave8x4(e4m3fn, dst, r0, r1, r2, r3, n)
	}},
	{rowKernel{F32, F8E5M2, &shPackF8x4, 1, 4, false}, func(dst, r0, r1, r2, r3 []byte, n int) {
		genericF32ToF8Interleave8x4(e5m2, dst, r0, r1, r2, r3, n)
	}},
	{rowKernel{BF16, F8E4M3FN, &shPack16F8x4, 1, 4, false}, func(dst, r0, r1, r2, r3 []byte, n int) {
		genericF16ToF8Interleave8x4(e4m3fn, BF16BitsToF32, dst, r0, r1, r2, r3, n)
	}},
	{rowKernel{BF16, F8E5M2, &shPack16F8x4, 1, 4, false}, func(dst, r0, r1, r2, r3 []byte, n int) {
		genericF16ToF8Interleave8x4(e5m2, BF16BitsToF32, dst, r0, r1, r2, r3, n)
	}},
	{rowKernel{F16, F8E4M3FN, &shPack16F8x4, 1, 4, false}, func(dst, r0, r1, r2, r3 []byte, n int) {
		genericF16ToF8Interleave8x4(e4m3fn, F16BitsToF32, dst, r0, r1, r2, r3, n)
	}},
	{rowKernel{F16, F8E5M2, &shPack16F8x4, 1, 4, false}, func(dst, r0, r1, r2, r3 []byte, n int) {
		genericF16ToF8Interleave8x4(e5m2, F16BitsToF32, dst, r0, r1, r2, r3, n)
	}},
}

// unpack4Kernels' long says that rows too long to batch run the assembly on
// their whole blocks too, rather than the generic code.
var unpack4Kernels = []struct {
	rowKernel
	long bool
	gen  func(r0, r1, r2, r3, src []byte, n int)
}{
	{rowKernel{Bits8, Bits8, &shUnpack8x4, 1, 1, true}, false, genericDeinterleave8x4},
	{rowKernel{F8E4M3FN, F32, &shUnpackF8x4, 1, 4, false}, false, func(r0, r1, r2, r3, src []byte, n int) {
		genericF8Deinterleave8x4ToF32(&f8e4m3fnToF32, r0, r1, r2, r3, src, n)
	}},
	{rowKernel{F8E5M2, F32, &shUnpackF8x4, 1, 4, false}, false, func(r0, r1, r2, r3, src []byte, n int) {
		genericF8Deinterleave8x4ToF32(&f8e5m2ToF32, r0, r1, r2, r3, src, n)
	}},
	{rowKernel{F8E4M3FN, BF16, &shUnpackF8x4To16, 1, 2, false}, true, func(r0, r1, r2, r3, src []byte, n int) {
		genericF8Deinterleave8x4To16(&f8e4m3fnToBF16, r0, r1, r2, r3, src, n)
	}},
	{rowKernel{F8E4M3FN, F16, &shUnpackF8x4To16, 1, 2, false}, true, func(r0, r1, r2, r3, src []byte, n int) {
		genericF8Deinterleave8x4To16(&f8e4m3fnToF16, r0, r1, r2, r3, src, n)
	}},
	{rowKernel{F8E5M2, BF16, &shUnpackF8x4To16, 1, 2, false}, true, func(r0, r1, r2, r3, src []byte, n int) {
		genericF8Deinterleave8x4To16(&f8e5m2ToBF16, r0, r1, r2, r3, src, n)
	}},
	{rowKernel{F8E5M2, F16, &shUnpackF8x4To16, 1, 2, false}, true, func(r0, r1, r2, r3, src []byte, n int) {
		genericF8Deinterleave8x4To16(&f8e5m2ToF16, r0, r1, r2, r3, src, n)
	}},
}

// genericSingles returns the generic set's single-call kernels.
func genericSingles() single {
	var s single
	for _, c := range convKernels {
		if c.single {
			s.conv[c.from][c.to] = c.gen
		}
	}
	for _, c := range pack2Kernels {
		s.pack2[c.from][c.to] = c.gen
	}
	for _, c := range unpack2Kernels {
		s.unpack2[c.from][c.to] = c.gen
	}
	for _, c := range pack4Kernels {
		if c.single {
			s.pack4[c.from][c.to] = c.gen
		}
	}
	for _, c := range unpack4Kernels {
		if c.single {
			s.unpack4[c.from][c.to] = c.gen
		}
	}
	return s
}

// transposes fills k's transposes by width and stores: f(w, s) for w = 1, 2, 4.
func (k *Kernels) transposes(f func(w int, s Stores) TransposeFunc) {
	for i, w := range [3]int{1, 2, 4} {
		for s := range nStores {
			k.trans[i][s] = f(w, s)
		}
	}
}
