package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"sort"
	"strconv"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// The safetensors format: an 8-byte little-endian header length N, N bytes of JSON
// mapping tensor names to {"dtype", "shape", "data_offsets": [begin, end]} (offsets
// relative to the data section that follows the header) plus an optional
// "__metadata__" object of strings, then the data, row-major and little-endian.

// MaxHeader is the largest header accepted, as in the reference
// implementation (100 MB).
const MaxHeader = 100_000_000

var safeTypes = map[string]layout.DType{
	"BOOL": layout.Pred, "U8": layout.U8, "I8": layout.S8, "I16": layout.S16,
	"U16": layout.U16, "I32": layout.S32, "U32": layout.U32, "I64": layout.S64,
	"U64": layout.U64, "F16": layout.F16, "BF16": layout.BF16, "F32": layout.F32,
	"F64": layout.F64, "F8_E4M3": layout.F8E4M3FN, "F8_E5M2": layout.F8E5M2,
	"F8_E8M0": layout.F8E8M0FNU, "C64": layout.C64,
}

func safeTypeName(dt layout.DType) (string, bool) {
	for k, v := range safeTypes {
		if v == dt {
			return k, true
		}
	}
	return "", false
}

// TensorInfo describes one tensor of a safetensors file.
type TensorInfo struct {
	Name     string
	DType    layout.DType // F8_E4M3 is f8e4m3fn, BOOL is pred
	SafeType string       // the dtype as written ("F32", "BF16", …)
	Shape    []int64
	Begin    int64 // data_offsets, relative to the start of the data section
	End      int64
	Offset   int64 // absolute file offset of the first byte (data start + Begin)
}

// BufferShape is the tensor's shape with the row-major layout.
func (t TensorInfo) BufferShape() layout.Shape { return layout.NewShape(t.DType, t.Shape...) }

// File is the parsed header of a safetensors file.
type File struct {
	Path      string
	Tensors   []TensorInfo      // in data order (by Begin)
	Metadata  map[string]string // "__metadata__", nil when absent
	DataStart int64             // 8 + header length
	byName    map[string]int
	file      string // the file that Read opens, when it is not Path
}

// Tensor returns the named tensor's description.
func (s *File) Tensor(name string) (TensorInfo, bool) {
	i, ok := s.byName[name]
	if !ok {
		return TensorInfo{}, false
	}
	return s.Tensors[i], true
}

// Open reads and validates the header of a safetensors file. It rejects
// headers over [MaxHeader], malformed JSON, unknown dtypes, and tensors whose
// offsets are out of the file, disagree with dtype×shape, or overlap another tensor;
// errors name the tensor and wrap [buffer.ErrFormat] or [buffer.ErrDType]. Gaps between tensors and
// trailing bytes are allowed (the reference implementation refuses them).
func Open(path string) (*File, error) {
	return OpenNamed(path, path)
}

// OpenNamed is [Open] of the file path, which the File's Path and errors call name (a
// *fs.PathError among them has Path name): for a temporary copy of a file known by
// another name. [File.Read] reads path.
func OpenNamed(path, name string) (*File, error) {
	f, size, err := buffer.OpenSized(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", buffer.NamePathError(err, name))
	}
	defer f.Close()
	s, err := readHeader(f, size)
	if err != nil {
		return nil, &buffer.FileError{Name: name, Err: err}
	}
	s.Path = name
	if path != name {
		s.file = path
	}
	return s, nil
}

func readHeader(r io.Reader, size int64) (*File, error) {
	var l [8]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, errorf(buffer.ErrFormat, "header length: %w", err)
	}
	n := binary.LittleEndian.Uint64(l[:])
	if n > MaxHeader {
		return nil, errorf(buffer.ErrFormat, "header of %d bytes (limit %d)", n, MaxHeader)
	}
	if int64(n) > size-8 {
		return nil, errorf(buffer.ErrFormat, "header of %d bytes in a file of %d", n, size)
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, errorf(buffer.ErrFormat, "header: %w", err)
	}
	return parseHeader(hdr, size-8-int64(n))
}

type safeEntry struct {
	DType       string        `json:"dtype"`
	Shape       []json.Number `json:"shape"`
	DataOffsets []json.Number `json:"data_offsets"`
}

// parseHeader parses the JSON header; dataLen is the size of the data section.
func parseHeader(hdr []byte, dataLen int64) (*File, error) {
	s := &File{DataStart: 8 + int64(len(hdr)), byName: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.UseNumber()
	bad := func(format string, args ...any) error {
		return errorf(buffer.ErrFormat, "header: "+format, args...)
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, bad("%v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, bad("not a JSON object")
	}
	seenMeta := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad("%v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return nil, bad("key %v is not a string", tok)
		}
		if name == "__metadata__" {
			if seenMeta {
				return nil, bad("duplicate __metadata__")
			}
			seenMeta = true
			var m map[string]string
			if err := dec.Decode(&m); err != nil {
				return nil, bad("__metadata__: %v", err)
			}
			s.Metadata = m
			continue
		}
		if _, dup := s.byName[name]; dup {
			return nil, bad("tensor %q appears twice", name)
		}
		var e safeEntry
		if err := dec.Decode(&e); err != nil {
			return nil, bad("tensor %q: %v", name, err)
		}
		t, err := e.check(name, dataLen)
		if err != nil {
			return nil, err
		}
		t.Offset = s.DataStart + t.Begin
		s.byName[name] = len(s.Tensors)
		s.Tensors = append(s.Tensors, t)
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, bad("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("data after the JSON object")
	}
	sort.SliceStable(s.Tensors, func(i, j int) bool {
		a, b := s.Tensors[i], s.Tensors[j]
		return a.Begin < b.Begin || a.Begin == b.Begin && a.End < b.End
	})
	for i := range s.Tensors {
		s.byName[s.Tensors[i].Name] = i
		if i > 0 {
			p, t := s.Tensors[i-1], s.Tensors[i]
			if t.Begin < p.End {
				return nil, errorf(buffer.ErrFormat, "tensor %q [%d, %d) overlaps tensor %q [%d, %d)",
					t.Name, t.Begin, t.End, p.Name, p.Begin, p.End)
			}
		}
	}
	return s, nil
}

func (e *safeEntry) check(name string, dataLen int64) (TensorInfo, error) {
	t := TensorInfo{Name: name, SafeType: e.DType}
	bad := func(format string, args ...any) error {
		return errorf(buffer.ErrFormat, "tensor %q: "+format, append([]any{name}, args...)...)
	}
	if e.DType == "" {
		return t, bad("no dtype")
	}
	dt, ok := safeTypes[e.DType]
	if !ok {
		return t, errorf(buffer.ErrDType, "tensor %q: dtype %q", name, e.DType)
	}
	t.DType = dt
	if e.Shape == nil {
		return t, bad("no shape")
	}
	t.Shape = make([]int64, len(e.Shape))
	for i, x := range e.Shape {
		v, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil || v < 0 {
			return t, bad("shape entry %d is %s, not a size", i, x)
		}
		t.Shape[i] = v
	}
	if len(e.DataOffsets) != 2 {
		return t, bad("data_offsets must hold 2 numbers, not %d", len(e.DataOffsets))
	}
	var off [2]int64
	for i, x := range e.DataOffsets {
		v, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil || v < 0 {
			return t, bad("data_offsets entry %d is %s, not an offset", i, x)
		}
		off[i] = v
	}
	t.Begin, t.End = off[0], off[1]
	if t.End < t.Begin {
		return t, bad("data_offsets [%d, %d] end before they begin", t.Begin, t.End)
	}
	if t.End > dataLen {
		return t, bad("data_offsets [%d, %d] beyond the %d data bytes of the file", t.Begin, t.End, dataLen)
	}
	want := uint64(dt.StorageBits() / 8)
	for _, d := range t.Shape {
		hi, lo := bits.Mul64(want, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return t, bad("shape %v is too large", t.Shape)
		}
		want = lo
	}
	if int64(want) != t.End-t.Begin {
		return t, bad("data_offsets [%d, %d] hold %d bytes, %s%v needs %d", t.Begin, t.End, t.End-t.Begin, e.DType, t.Shape, want)
	}
	return t, nil
}

// List returns the tensors of a safetensors file in data order.
func List(path string) ([]TensorInfo, error) {
	s, err := Open(path)
	if err != nil {
		return nil, err
	}
	return s.Tensors, nil
}

// Read reads the named tensor as a row-major buffer; tensors of at least
// [buffer.MmapThreshold] bytes are mapped read-only (call Close on the buffer).
func (s *File) Read(name string) (*buffer.Buffer, error) {
	t, ok := s.Tensor(name)
	if !ok {
		return nil, errorf(buffer.ErrNotFound, "%q in %s", name, s.Path)
	}
	file := s.Path
	if s.file != "" {
		file = s.file
	}
	f, size, err := buffer.OpenSized(file)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", buffer.NamePathError(err, s.Path))
	}
	defer f.Close()
	b, err := buffer.ReadAt(f, t.Offset, size, t.BufferShape())
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", s.Path, name, err)
	}
	return b, nil
}

// ReadTensor reads one tensor of a safetensors file (see [File.Read]).
func ReadTensor(path, name string) (*buffer.Buffer, error) {
	s, err := Open(path)
	if err != nil {
		return nil, err
	}
	return s.Read(name)
}

// NamedBuffer is a tensor to write.
type NamedBuffer struct {
	Name string
	Buf  *buffer.Buffer
}

// WriteTo writes tensors in the given order, each in row-major order
// whatever its layout, with an optional "__metadata__" object (written first when
// metadata is non-nil). The header is padded with spaces to a multiple of 8 bytes.
func WriteTo(w io.Writer, tensors []NamedBuffer, metadata map[string]string) error {
	infos := make([]TensorInfo, len(tensors))
	for i, t := range tensors {
		infos[i] = TensorInfo{Name: t.Name, DType: t.Buf.DType(), Shape: t.Buf.Dims()}
	}
	hdr, err := HeaderFor(infos, metadata)
	if err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for _, t := range tensors {
		if err := t.Buf.WriteRowMajor(w); err != nil {
			return err
		}
	}
	return nil
}

// HeaderFor returns the 8-byte length and JSON header of a safetensors file
// holding the tensors (Name, DType and Shape are read) back to back in the given order,
// each row-major: for callers that stream the data themselves.
func HeaderFor(tensors []TensorInfo, metadata map[string]string) ([]byte, error) {
	var hdr bytes.Buffer
	hdr.WriteByte('{')
	if metadata != nil {
		m, err := json.Marshal(metadata)
		if err != nil {
			return nil, err
		}
		hdr.WriteString(`"__metadata__":`)
		hdr.Write(m)
	}
	seen := map[string]bool{}
	var off int64
	for i, t := range tensors {
		if t.Name == "__metadata__" || t.Name == "" || seen[t.Name] {
			return nil, errorf(buffer.ErrFormat, "tensor %d has an empty, reserved or repeated name %q", i, t.Name)
		}
		seen[t.Name] = true
		st, ok := safeTypeName(t.DType)
		if !ok {
			return nil, errorf(buffer.ErrDType, "tensor %q of type %v", t.Name, t.DType)
		}
		n := int64(t.DType.StorageBits() / 8)
		for _, d := range t.Shape {
			n *= d
		}
		if hdr.Len() > 1 {
			hdr.WriteByte(',')
		}
		name, _ := json.Marshal(t.Name)
		hdr.Write(name)
		fmt.Fprintf(&hdr, `:{"dtype":%q,"shape":[`, st)
		for j, d := range t.Shape {
			if j > 0 {
				hdr.WriteByte(',')
			}
			hdr.WriteString(strconv.FormatInt(d, 10))
		}
		fmt.Fprintf(&hdr, `],"data_offsets":[%d,%d]}`, off, off+n)
		off += n
	}
	hdr.WriteByte('}')
	for hdr.Len()%8 != 0 {
		hdr.WriteByte(' ')
	}
	out := binary.LittleEndian.AppendUint64(make([]byte, 0, 8+hdr.Len()), uint64(hdr.Len()))
	return append(out, hdr.Bytes()...), nil
}

// Write writes a safetensors file atomically (see [WriteTo]).
func Write(path string, tensors []NamedBuffer, metadata map[string]string) error {
	return buffer.WriteFileAtomic(path, func(w io.Writer) error { return WriteTo(w, tensors, metadata) })
}

// errorf returns an error of this package of the given kind (buffer.ErrFormat, …):
// "safetensors: invalid file format: …".
func errorf(kind error, format string, args ...any) error {
	return buffer.Errorf("safetensors", kind, format, args...)
}
