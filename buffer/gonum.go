package buffer

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// FromGeneral sets the elements of the rank-2 buffer dst, whose dims must be
// [src.Rows, src.Cols], to those of the gonum matrix src (row i at src.Data[i*src.Stride:]),
// converted from f64 to dst's type as [FromSlice] converts.
func FromGeneral(dst *Buffer, src blas64.General) error {
	if err := matchMatrix(dst, src.Rows, src.Cols, src.Stride, len(src.Data)); err != nil {
		return err
	}
	dt, enc, _ := f64Codecs(src.Data, matrixAt(src.Cols, src.Stride))
	return dst.fill(dt, src.Rows*src.Cols, enc)
}

// ToGeneral sets the gonum matrix dst to the elements of the rank-2 buffer src, whose
// dims must be [dst.Rows, dst.Cols], converted to f64 (exactly, for every real type up
// to 53-bit integers). Elements of dst.Data between rows (stride padding) are not
// written.
func ToGeneral(dst blas64.General, src *Buffer) error {
	if err := matchMatrix(src, dst.Rows, dst.Cols, dst.Stride, len(dst.Data)); err != nil {
		return err
	}
	dt, _, dec := f64Codecs(dst.Data, matrixAt(dst.Cols, dst.Stride))
	return src.read(dt, dst.Rows*dst.Cols, dec)
}

// FromDense is [FromGeneral] for a gonum matrix such as *mat.Dense.
func FromDense(dst *Buffer, src mat.RawMatrixer) error { return FromGeneral(dst, src.RawMatrix()) }

// ToDense returns a new *mat.Dense holding the elements of the rank-2 buffer src,
// converted to f64 as [ToGeneral] converts.
func ToDense(src *Buffer) (*mat.Dense, error) {
	if src.Rank() != 2 || src.dims[0] == 0 || src.dims[1] == 0 {
		return nil, fmt.Errorf("%w: %v is not a non-empty matrix", ErrShape, src.Shape)
	}
	r, c := src.dims[0], src.dims[1]
	if r*c > maxAlloc/8 {
		return nil, fmt.Errorf("%w: %v is too large for a matrix in memory", ErrShape, src.Shape)
	}
	m := mat.NewDense(int(r), int(c), nil)
	if err := ToGeneral(m.RawMatrix(), src); err != nil {
		return nil, err
	}
	return m, nil
}

// matchMatrix checks a rows×cols matrix with the given stride and data length against
// the buffer's dims.
func matchMatrix(b *Buffer, rows, cols, stride, n int) error {
	if b.Rank() != 2 || b.dims[0] != int64(rows) || b.dims[1] != int64(cols) {
		return fmt.Errorf("%w: %v does not have the matrix's dims [%d,%d]", ErrSize, b.Shape, rows, cols)
	}
	if rows > 0 && cols > 0 && (stride < cols || int64(n) < int64(rows-1)*int64(stride)+int64(cols)) {
		return fmt.Errorf("%w: a %d×%d matrix with stride %d needs %d values, its data has %d", ErrSize,
			rows, cols, stride, int64(rows-1)*int64(stride)+int64(cols), n)
	}
	return nil
}

// matrixAt maps logical element k of a row-major rows×cols matrix to its place in Data.
func matrixAt(cols, stride int) func(k int) int {
	return func(k int) int { return k/cols*stride + k%cols }
}
