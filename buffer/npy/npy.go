package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// The .npy format (NumPy's format.py): the magic "\x93NUMPY", a major and a minor
// version byte, the header length (2 bytes little-endian in version 1.0, 4 bytes in 2.0
// and 3.0), then a Python dict literal with the keys 'descr', 'fortran_order' and
// 'shape', padded with spaces and ended by '\n', then the data.

const npyMagic = "\x93NUMPY"

// npyMaxHeader bounds the header length that readers accept (NumPy's reader refuses
// more than 10000 bytes by default; we allow more for very high ranks).
const npyMaxHeader = 1 << 20

// Header is the decoded header of a .npy file.
type Header struct {
	Major, Minor int     // format version: 1.0, 2.0 or 3.0
	Descr        string  // the dtype descr as written, e.g. "<f4"
	Fortran      bool    // fortran_order
	Shape        []int64 // dims, C meaning (dimension 0 first)
	DType        layout.DType
	BigEndian    bool  // data bytes are big-endian ('>' descr)
	ItemSize     int   // bytes per element
	DataOffset   int64 // where the data starts in the file
}

// DataBytes is the size of the data the header describes.
func (h *Header) DataBytes() int64 {
	n, _ := npyDataBytes(h.Shape, h.ItemSize)
	return n
}

// BufferShape returns the array shape of the data as stored: dims in C meaning, with
// the row-major layout for C order and the {0,1,…,n-1} layout for Fortran order.
func (h *Header) BufferShape() layout.Shape {
	s := layout.NewShape(h.DType, h.Shape...)
	if h.Fortran {
		for i := range s.Layout.MinorToMajor {
			s.Layout.MinorToMajor[i] = i
		}
	}
	return s
}

// Option adjusts how .npy files are read and written.
type Option func(*npyOptions)

type npyOptions struct {
	u2bf16 bool
}

// BF16AsU2 makes readers take '<u2' data as bf16 bit patterns, and writers store bf16
// as '<u2' instead of the default '<V2' (what NumPy writes for ml_dtypes' bfloat16).
func BF16AsU2() Option { return func(o *npyOptions) { o.u2bf16 = true } }

func npyOpts(opts []Option) npyOptions {
	var o npyOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

// npyTypes maps a descr's kind and size to a type. 'V2' is bf16.
var npyTypes = map[string]layout.DType{
	"f2": layout.F16, "f4": layout.F32, "f8": layout.F64,
	"i1": layout.S8, "i2": layout.S16, "i4": layout.S32, "i8": layout.S64,
	"u1": layout.U8, "u2": layout.U16, "u4": layout.U32, "u8": layout.U64,
	"b1": layout.Pred, "V2": layout.BF16, "c8": layout.C64, "c16": layout.C128,
}

// parseDescr splits a descr such as "<f4" into a type, its size and byte order.
// Accepted byte orders: '<' and '=' (little-endian, as NumPy on every host we run on),
// '>' (big-endian: converted on read), '|' (not applicable: only for 1-byte types and
// void), or none.
func parseDescr(d string, o npyOptions) (dt layout.DType, size int, big bool, err error) {
	code := d
	order := byte('=')
	if len(d) > 0 && strings.IndexByte("<>=|", d[0]) >= 0 {
		order, code = d[0], d[1:]
	}
	switch code {
	case "?":
		code = "b1"
	case "B":
		code = "u1"
	case "b":
		code = "i1"
	}
	dt, ok := npyTypes[code]
	if !ok {
		return 0, 0, false, errorf(buffer.ErrDType, ".npy descr %q", d)
	}
	if dt == layout.U16 && o.u2bf16 {
		dt = layout.BF16
	}
	size, _ = strconv.Atoi(code[1:])
	if order == '|' && size > 1 && code[0] != 'V' {
		return 0, 0, false, errorf(buffer.ErrDType, ".npy descr %q: byte order '|' on a %d-byte type", d, size)
	}
	big = order == '>' && size > 1 && code[0] != 'V'
	return dt, size, big, nil
}

func npyDataBytes(shape []int64, item int) (int64, bool) {
	n := uint64(item)
	for _, d := range shape {
		if d < 0 {
			return -1, false
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return -1, false
		}
		n = lo
	}
	return int64(n), true
}

// ReadHeader reads and checks the header of a .npy stream, leaving r at the first
// data byte. Errors wrap [buffer.ErrFormat] (or [buffer.ErrDType] for an element type without an
// equivalent here) and never panic, whatever the input.
func ReadHeader(r io.Reader, opts ...Option) (*Header, error) {
	o := npyOpts(opts)
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, errorf(buffer.ErrFormat, ".npy header: %w", err)
	}
	if string(pre[:6]) != npyMagic {
		return nil, errorf(buffer.ErrFormat, "not a .npy file (bad magic %q)", pre[:6])
	}
	h := &Header{Major: int(pre[6]), Minor: int(pre[7])}
	var hlen int64
	switch h.Major {
	case 1:
		var l [2]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, errorf(buffer.ErrFormat, ".npy header length: %w", err)
		}
		hlen = int64(binary.LittleEndian.Uint16(l[:]))
		h.DataOffset = 10 + hlen
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, errorf(buffer.ErrFormat, ".npy header length: %w", err)
		}
		hlen = int64(binary.LittleEndian.Uint32(l[:]))
		h.DataOffset = 12 + hlen
	default:
		return nil, errorf(buffer.ErrFormat, ".npy version %d.%d (1.0, 2.0 and 3.0 are supported)", h.Major, h.Minor)
	}
	if h.Minor != 0 {
		return nil, errorf(buffer.ErrFormat, ".npy version %d.%d (1.0, 2.0 and 3.0 are supported)", h.Major, h.Minor)
	}
	if hlen > npyMaxHeader {
		return nil, errorf(buffer.ErrFormat, ".npy header of %d bytes (limit %d)", hlen, npyMaxHeader)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, errorf(buffer.ErrFormat, ".npy header (%d bytes): %w", hlen, err)
	}
	if err := h.parseDict(text, o); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *Header) parseDict(text []byte, o npyOptions) error {
	v, err := parsePyLiteral(text)
	if err != nil {
		return errorf(buffer.ErrFormat, ".npy %w", err)
	}
	d, ok := v.(pyDict)
	if !ok {
		return errorf(buffer.ErrFormat, ".npy header is not a dict")
	}
	for _, k := range d.keys {
		switch k {
		case "descr", "fortran_order", "shape":
		default:
			return errorf(buffer.ErrFormat, ".npy header has an unexpected key %q", k)
		}
	}
	descr, ok := d.vals["descr"].(string)
	if !ok {
		if _, isList := d.vals["descr"].([]any); isList {
			return errorf(buffer.ErrDType, ".npy structured dtype (descr is a list)")
		}
		return errorf(buffer.ErrFormat, ".npy header: 'descr' missing or not a string")
	}
	h.Descr = descr
	fo, ok := d.vals["fortran_order"].(bool)
	if !ok {
		return errorf(buffer.ErrFormat, ".npy header: 'fortran_order' missing or not a bool")
	}
	h.Fortran = fo
	shape, ok := d.vals["shape"].([]any)
	if !ok {
		return errorf(buffer.ErrFormat, ".npy header: 'shape' missing or not a tuple")
	}
	h.Shape = make([]int64, len(shape))
	for i, x := range shape {
		n, ok := x.(int64)
		if !ok || n < 0 {
			return errorf(buffer.ErrFormat, ".npy header: shape entry %d is %v, not a size", i, x)
		}
		h.Shape[i] = n
	}
	if h.DType, h.ItemSize, h.BigEndian, err = parseDescr(descr, o); err != nil {
		return err
	}
	if _, ok := npyDataBytes(h.Shape, h.ItemSize); !ok {
		return errorf(buffer.ErrFormat, ".npy shape %v is too large", h.Shape)
	}
	return nil
}

// Read reads a .npy file into a buffer whose shape is the array's: C-order data gets
// the row-major layout and Fortran-order data the {0,1,…,n-1} layout, with no copy.
// Descrs '<f2 <f4 <f8 |i1 |u1 <i2 <u2 <i4 <u4 <i8 <u8 |b1 <c8 <c16' are read as the
// matching types ('<' and '=' both mean little-endian; 1-byte types take any byte-order
// mark), '<V2' and '|V2' as bf16 (what NumPy writes for ml_dtypes' bfloat16), and '<u2'
// as bf16 too with [BF16AsU2]. Big-endian data ('>f4', …) is converted to little-endian
// in memory (such files are never mapped). Data of at least [buffer.MmapThreshold] bytes is
// mapped read-only; call Close on the buffer.
func Read(path string, opts ...Option) (*buffer.Buffer, error) {
	return ReadNamed(path, path, opts...)
}

// ReadNamed is [Read] of the file path, whose errors call it name (a *fs.PathError
// among them has Path name): for a temporary copy of a file known by another name.
func ReadNamed(path, name string, opts ...Option) (*buffer.Buffer, error) {
	f, size, err := buffer.OpenSized(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", buffer.NamePathError(err, name))
	}
	defer f.Close()
	path = name // what errors call it
	h, err := ReadHeader(bufio.NewReaderSize(f, 4096), opts...)
	if err != nil {
		return nil, &buffer.FileError{Name: path, Err: err}
	}
	want := h.DataBytes()
	if got := size - h.DataOffset; got != want {
		return nil, errorf(buffer.ErrSize, "%s: shape %v of %s needs %d data bytes, the file has %d",
			path, h.Shape, h.Descr, want, max(got, 0))
	}
	if h.BigEndian {
		b, err := buffer.New(h.BufferShape())
		if err != nil {
			return nil, &buffer.FileError{Name: path, Err: err}
		}
		if _, err := f.ReadAt(b.Data, h.DataOffset); err != nil && want > 0 {
			return nil, fmt.Errorf("npy: read %s: %w", path, err)
		}
		swapBytes(b.Data, h.ItemSize, h.DType.IsComplex())
		return b, nil
	}
	b, err := buffer.ReadAt(f, h.DataOffset, size, h.BufferShape())
	if errors.Is(err, buffer.ErrShape) {
		return nil, &buffer.FileError{Name: path, Err: err}
	} else if err != nil {
		return nil, fmt.Errorf("npy: read %s: %w", path, err)
	}
	return b, nil
}

// swapBytes reverses the bytes of each item (each half of a complex item).
func swapBytes(d []byte, item int, complex bool) {
	if complex {
		item /= 2
	}
	if item <= 1 {
		return
	}
	for i := 0; i+item <= len(d); i += item {
		e := d[i : i+item]
		for a, z := 0, item-1; a < z; a, z = a+1, z-1 {
			e[a], e[z] = e[z], e[a]
		}
	}
}

// npyDescr returns the descr written for a type.
func npyDescr(dt layout.DType, o npyOptions) (string, error) {
	switch dt {
	case layout.F16:
		return "<f2", nil
	case layout.F32:
		return "<f4", nil
	case layout.F64:
		return "<f8", nil
	case layout.S8:
		return "|i1", nil
	case layout.U8:
		return "|u1", nil
	case layout.S16:
		return "<i2", nil
	case layout.U16:
		return "<u2", nil
	case layout.S32:
		return "<i4", nil
	case layout.U32:
		return "<u4", nil
	case layout.S64:
		return "<i8", nil
	case layout.U64:
		return "<u8", nil
	case layout.Pred:
		return "|b1", nil
	case layout.C64:
		return "<c8", nil
	case layout.C128:
		return "<c16", nil
	case layout.BF16:
		if o.u2bf16 {
			return "<u2", nil
		}
		return "<V2", nil
	}
	return "", errorf(buffer.ErrDType, "%v has no .npy descr", dt)
}

// HeaderFor returns the header Write writes before the row-major (C order) data of
// an array of type dt and dims: for callers that stream the data themselves.
func HeaderFor(dt layout.DType, dims []int64, opts ...Option) ([]byte, error) {
	descr, err := npyDescr(dt, npyOpts(opts))
	if err != nil {
		return nil, err
	}
	return npyHeaderBytes(descr, false, dims), nil
}

// npyHeaderBytes builds the magic, version, length and padded dict, 64-byte aligned.
func npyHeaderBytes(descr string, fortran bool, shape []int64) []byte {
	var sb strings.Builder
	sb.WriteString("{'descr': '" + descr + "', 'fortran_order': ")
	if fortran {
		sb.WriteString("True")
	} else {
		sb.WriteString("False")
	}
	sb.WriteString(", 'shape': (")
	for i, d := range shape {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.FormatInt(d, 10))
	}
	if len(shape) == 1 {
		sb.WriteByte(',')
	}
	sb.WriteString("), }")
	dict := sb.String()
	pre := 10
	if len(dict)+1+pre+63 > 0xFFFF {
		pre = 12
	}
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	hlen := total - pre
	out := make([]byte, 0, total)
	out = append(out, npyMagic...)
	if pre == 10 {
		out = append(out, 1, 0)
		out = binary.LittleEndian.AppendUint16(out, uint16(hlen))
	} else {
		out = append(out, 2, 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(hlen))
	}
	out = append(out, dict...)
	for len(out) < total-1 {
		out = append(out, ' ')
	}
	return append(out, '\n')
}

// WriteTo writes b as a .npy stream. Dense row-major data is written as is (C order)
// and dense {0,1,…,n-1} data with fortran_order True; any other layout (tiled, padded,
// packed) is written in C order element by element. bf16 is written as '<V2' (as NumPy
// does for ml_dtypes' bfloat16) or '<u2' with [BF16AsU2]. The data starts at a multiple
// of 64 bytes. Types without a .npy descr (sub-byte, f8, …) are an error wrapping
// [buffer.ErrDType].
func WriteTo(w io.Writer, b *buffer.Buffer, opts ...Option) error {
	o := npyOpts(opts)
	descr, err := npyDescr(b.DType(), o)
	if err != nil {
		return err
	}
	fortran := !b.IsRowMajorDense() && b.Rank() > 1 && b.Indexer().IsColumnMajorDense()
	if _, err := w.Write(npyHeaderBytes(descr, fortran, b.Dims())); err != nil {
		return err
	}
	if fortran {
		_, err := w.Write(b.Data)
		return err
	}
	return b.WriteRowMajor(w)
}

// Write writes b to a .npy file atomically (see [WriteTo] and [buffer.WriteFileAtomic]).
func Write(path string, b *buffer.Buffer, opts ...Option) error {
	return buffer.WriteFileAtomic(path, func(w io.Writer) error { return WriteTo(w, b, opts...) })
}

// errorf returns an error of this package of the given kind (buffer.ErrFormat, …):
// "npy: invalid file format: …".
func errorf(kind error, format string, args ...any) error {
	return buffer.Errorf("npy", kind, format, args...)
}
