package simd

// Nibbles is the int4 kernels of a [Kernels]: int4 elements split from and joined into
// bytes two a byte, and the (8,1)E(4) words of a TPU tile read back and written. They
// are batched ([Rows]) and never allocate; all fields are non-nil.
type Nibbles struct {
	// SplitRows splits n bytes of src into their nibbles, one a byte:
	// lo[i] = src[i] & 15, hi[i] = src[i] >> 4 (int4 rows two a byte, read back
	// from (8,1)E(4) tiles).
	SplitRows func(lo, hi, src []byte, n int, r Rows)
	// SplitWordsRows reads back (8,1)E(4) words: n 32-bit words of src, each
	// holding eight rows' 4-bit elements of one column (row 2k in the low nibble of
	// byte k, row 2k+1 in the high), into the eight rows of dst, rowStride bytes
	// apart, one element a byte, zero-extended:
	// dst[m*rowStride + i] = src[4i + m/2] >> (4*(m%2)) & 15 for m < 8. The rows of
	// a batch's call must not overlap each other or another call's.
	SplitWordsRows func(dst []byte, rowStride int, src []byte, n int, r Rows)
	// SplitWordsRowsPair is SplitWordsRows on two batches of the same shape, dst
	// from src and dst2 from src2, a step of each in turn where the assembly has
	// it: the same bytes written in another order, for callers whose stores run
	// faster spread over two places (none of the rows may overlap).
	SplitWordsRowsPair func(dst, dst2 []byte, rowStride int, src, src2 []byte, n int, r Rows)
	// JoinWordsRows is its inverse, (8,1)E(4) words written: n columns of the
	// eight rows of src, rowStride bytes apart, one element a byte (bits above 4
	// dropped), into n 32-bit words of dst:
	// dst[4i + k] = src[2k*rowStride + i]&15 | src[(2k+1)*rowStride + i]<<4 for k < 4.
	JoinWordsRows func(dst, src []byte, rowStride int, n int, r Rows)
	// JoinRows is SplitRows' inverse: out[i] = lo[i]&15 | hi[i]<<4 (int4 rows joined
	// two a byte for (8,1)E(4) tiles; the bits of lo and hi above 4 are dropped).
	JoinRows func(out, lo, hi []byte, n int, r Rows)
	// PackPairsRows packs n neighbouring pairs, out[i] = in[2i]&15 | in[2i+1]<<4
	// (an int4 row into (8,1)E(4) words); UnpackPairsRows is its inverse for n
	// bytes of in, out[2i] = in[i]&15, out[2i+1] = in[i]>>4 (zero-extended).
	PackPairsRows   func(out, in []byte, n int, r Rows)
	UnpackPairsRows func(out, in []byte, n int, r Rows)
}
