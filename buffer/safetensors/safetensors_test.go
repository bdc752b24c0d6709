package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/internal/fixture"
	"github.com/tpulayout/tpulayout/layout"
)

func stPath() string {
	return filepath.Join("..", "..", "testdata", "safetensors", "model.safetensors")
}

type stExpect struct {
	Metadata map[string]string `json:"metadata"`
	Tensors  map[string]struct {
		DType string        `json:"dtype"`
		Shape []int64       `json:"shape"`
		Bits  []json.Number `json:"bits"`
	} `json:"tensors"`
}

func TestSafetensorsFixture(t *testing.T) {
	var exp stExpect
	fixture.LoadJSON(t, filepath.Join("..", "..", "testdata", "safetensors", "expected.json"), &exp)
	s, err := Open(stPath())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tensors) != len(exp.Tensors) || s.Metadata["format"] != "pt" || s.Metadata["source"] != "gen.py" {
		t.Fatalf("%d tensors, metadata %v", len(s.Tensors), s.Metadata)
	}
	list, err := List(stPath())
	if err != nil || len(list) != len(exp.Tensors) {
		t.Fatal(err)
	}
	for i := 1; i < len(list); i++ {
		if list[i].Begin < list[i-1].End {
			t.Fatal("List not in data order")
		}
	}
	for _, mapped := range []bool{false, true} {
		if mapped {
			old := buffer.MmapThreshold
			buffer.MmapThreshold = 1
			defer func() { buffer.MmapThreshold = old }()
		}
		for name, e := range exp.Tensors {
			ti, ok := s.Tensor(name)
			if !ok || ti.SafeType != e.DType || !slices.Equal(ti.Shape, e.Shape) || ti.Offset != s.DataStart+ti.Begin {
				t.Fatalf("%s: info %+v", name, ti)
			}
			b, err := ReadTensor(stPath(), name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if b.Mapped() != (mapped && b.Len() > 0) {
				t.Errorf("%s: Mapped() = %v", name, b.Mapped())
			}
			fixture.CheckElements(t, name, b, e.Bits, nil)
			b.Close()
		}
	}
	b, _ := ReadTensor(stPath(), "e4m3")
	if v := b.At([]int64{1}); v != -448 {
		t.Fatalf("e4m3[1] = %v", v)
	}
	if _, err := ReadTensor(stPath(), "nope"); !errors.Is(err, buffer.ErrNotFound) {
		t.Fatalf("missing tensor: %v", err)
	}
}

func TestSafetensorsWriteRoundTrip(t *testing.T) {
	s, err := Open(stPath())
	if err != nil {
		t.Fatal(err)
	}
	var named []NamedBuffer
	for _, ti := range s.Tensors {
		b, err := s.Read(ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		named = append(named, NamedBuffer{ti.Name, b})
	}
	// A tiled buffer is written row-major.
	tb := buffer.MustNew(layout.MustParse("bf16[3,5]{1,0:T(2,2)}"))
	idx := make([]int64, 2)
	for k := 0; ; k++ {
		tb.Set(idx, float64(k))
		if !layout.NextIndex(idx, tb.Dims()) {
			break
		}
	}
	named = append(named, NamedBuffer{"tiled", tb})
	p := filepath.Join(t.TempDir(), "out.safetensors")
	meta := map[string]string{"k": "v"}
	if err := Write(p, named, meta); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(p)
	if n := binary.LittleEndian.Uint64(raw); n%8 != 0 {
		t.Fatalf("header length %d is not a multiple of 8", n)
	}
	back, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if back.Metadata["k"] != "v" || len(back.Tensors) != len(named) {
		t.Fatalf("metadata %v, %d tensors", back.Metadata, len(back.Tensors))
	}
	for _, nb := range named {
		b, err := back.Read(nb.Name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := buffer.Compare(nb.Buf, b, buffer.CompareOptions{NaNBits: true})
		if err != nil || !r.OK() || b.DType() != nb.Buf.DType() {
			t.Fatalf("%s: %v %+v", nb.Name, err, r)
		}
	}
	// No metadata: no __metadata__ key.
	if err := Write(p, named[:1], nil); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(p); bytes.Contains(raw, []byte("__metadata__")) {
		t.Fatal("__metadata__ written without metadata")
	}
	// Bad names and types.
	if err := Write(p, []NamedBuffer{named[0], named[0]}, nil); !errors.Is(err, buffer.ErrFormat) {
		t.Fatalf("duplicate name: %v", err)
	}
	if err := Write(p, []NamedBuffer{{"x", buffer.MustNew(layout.MustParse("s4[2]"))}}, nil); !errors.Is(err, buffer.ErrDType) {
		t.Fatalf("s4: %v", err)
	}
}

func safetensorsBytes(header string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, data...)
}

func TestSafetensorsErrors(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 64)
	huge := binary.LittleEndian.AppendUint64(nil, 200_000_000)
	for _, c := range []struct {
		name string
		file []byte
		want error
		msg  string
	}{
		{"too large", append(huge, data...), buffer.ErrFormat, "limit"},
		{"beyond file", binary.LittleEndian.AppendUint64(nil, 1000), buffer.ErrFormat, "file of"},
		{"short", []byte{1, 2}, buffer.ErrFormat, "length"},
		{"not json", safetensorsBytes("nope", data), buffer.ErrFormat, "header"},
		{"array", safetensorsBytes("[]", data), buffer.ErrFormat, "object"},
		{"overlap", safetensorsBytes(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, data), buffer.ErrFormat, `"b"`},
		{"out of range", safetensorsBytes(`{"w":{"dtype":"F32","shape":[20],"data_offsets":[0,80]}}`, data), buffer.ErrFormat, `"w"`},
		{"size", safetensorsBytes(`{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, data), buffer.ErrFormat, "needs 12"},
		{"dtype", safetensorsBytes(`{"w":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}`, data), buffer.ErrDType, `"w"`},
		{"negative", safetensorsBytes(`{"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, data), buffer.ErrFormat, "shape"},
		{"reversed", safetensorsBytes(`{"w":{"dtype":"U8","shape":[0],"data_offsets":[8,0]}}`, data), buffer.ErrFormat, "before"},
		{"duplicate", safetensorsBytes(`{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, data), buffer.ErrFormat, "twice"},
		{"trailing", safetensorsBytes(`{} {}`, data), buffer.ErrFormat, "after"},
		{"metadata", safetensorsBytes(`{"__metadata__":{"a":1}}`, data), buffer.ErrFormat, "__metadata__"},
		{"offsets", safetensorsBytes(`{"w":{"dtype":"U8","shape":[1],"data_offsets":[0]}}`, data), buffer.ErrFormat, "2 numbers"},
		{"huge shape", safetensorsBytes(`{"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, data), buffer.ErrFormat, "too large"},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		os.WriteFile(p, c.file, 0o644)
		_, err := Open(p)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v mentioning %s", c.name, err, c.want, c.msg)
		}
	}
}

// Errors name this package, not buffer, once, and still match buffer's kinds.
func TestErrorsNameThePackage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.safetensors")
	hdr := `{"a":1}`
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	if err := os.WriteFile(path, append(b, hdr...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), ": safetensors: invalid file format: header: tensor \"a\"") ||
		strings.Count(err.Error(), " safetensors:") != 1 || strings.Contains(err.Error(), "buffer:") || !errors.Is(err, buffer.ErrFormat) {
		t.Errorf("bad header: %v", err)
	}
}

// TestOpenNamed: OpenNamed reads the file given and calls it by the name given, in
// File.Path and in errors (the Path of a *fs.PathError among them too).
func TestOpenNamed(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(stPath())
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "copy.safetensors")
	os.WriteFile(cp, data, 0o644)
	s, err := OpenNamed(cp, "shown.safetensors")
	if err != nil || s.Path != "shown.safetensors" {
		t.Fatalf("OpenNamed: %v, %v", s, err)
	}
	b, err := s.Read(s.Tensors[0].Name)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	b.Close()
	os.Remove(cp)
	_, err = s.Read(s.Tensors[0].Name)
	fixture.CheckMissingNamed(t, "Read of a removed file", err, "shown.safetensors")
	os.WriteFile(cp, data[:20], 0o644)
	_, err = OpenNamed(cp, "shown.safetensors")
	if err == nil || !strings.HasPrefix(err.Error(), "shown.safetensors: ") || strings.Contains(err.Error(), cp) {
		t.Errorf("truncated: %v", err)
	}
}
