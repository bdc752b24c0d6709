// Package testfiles makes and reads the arrays, files and directories that the tests of
// several packages (convert, tpu, the tpulayout command) use, so that all make them alike.
package testfiles

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
)

// Compile parses the shape text and compiles its layout.
func Compile(t testing.TB, text string) *layout.Indexer {
	t.Helper()
	s, err := layout.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := layout.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// RandomBuffer returns a row-major buffer of shape text with random values: normals
// for floats (some exact bf16 rounding ties among f32), random bits for integers.
func RandomBuffer(t testing.TB, text string, seed uint64) *buffer.Buffer {
	t.Helper()
	b := buffer.MustNew(layout.MustParse(text))
	rng := rand.New(rand.NewPCG(seed, 7))
	dims := b.Dims()
	if b.Len() == 0 {
		return b
	}
	idx := make([]int64, len(dims))
	for {
		switch dt := b.DType(); {
		case dt == layout.F32:
			if rng.IntN(8) == 0 { // an exact tie for bf16 rounding (finite: bit 30 clear)
				b.SetBits(idx, uint64(rng.Uint32()&0xbfff0000|0x8000))
				break
			}
			b.SetF32(idx, float32(rng.NormFloat64()))
		case dt.IsFloat():
			b.Set(idx, rng.NormFloat64())
		default:
			b.SetBits(idx, rng.Uint64())
		}
		if !layout.NextIndex(idx, dims) {
			return b
		}
	}
}

// WriteFile writes data as dir/name and returns the path.
func WriteFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteNPY saves b as dir/name and returns the path.
func WriteNPY(t testing.TB, dir, name string, b *buffer.Buffer) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := npy.Write(p, b); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteCheckpoint saves the tensors as the safetensors checkpoint dir/name and returns
// the path.
func WriteCheckpoint(t testing.TB, dir, name string, tensors ...safetensors.NamedBuffer) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := safetensors.Write(p, tensors, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

// DirNames lists a directory, hidden files included.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Tree makes the directory dir holding files (name → contents).
func Tree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TreeOf reads the files of dir (name → contents).
func TreeOf(t testing.TB, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, n := range DirNames(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		got[n] = string(b)
	}
	return got
}

// WriteSafetensors writes a safetensors file of one tensor with any header dtype,
// even one the library's writer has no element type for.
func WriteSafetensors(path, name, dtype string, shape []int, data []byte) error {
	h, err := json.Marshal(map[string]any{name: map[string]any{
		"dtype": dtype, "shape": shape, "data_offsets": []int{0, len(data)}}})
	if err != nil {
		return err
	}
	f := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	f = append(append(f, h...), data...)
	return os.WriteFile(path, f, 0o644)
}

// ShardCheckpoint writes into dir a small model as one safetensors file
// (model.safetensors) and as a two-file sharded checkpoint with its index
// (model.safetensors.index.json), and a rules file (rules.json) for a mesh of axes
// data and model.
func ShardCheckpoint(t testing.TB, dir string) {
	t.Helper()
	tensors := []safetensors.NamedBuffer{
		{Name: "embed", Buf: RandomBuffer(t, "f32[100,256]", 1)},
		{Name: "layers.0.attn.wq", Buf: RandomBuffer(t, "f32[256,128]", 2)},
		{Name: "layers.0.mlp.w1", Buf: RandomBuffer(t, "f32[128,512]", 3)},
		{Name: "layers.0.mlp.b1", Buf: RandomBuffer(t, "bf16[512]", 4)},
		{Name: "step", Buf: RandomBuffer(t, "s32[]", 5)},
	}
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), tensors, nil); err != nil {
		t.Fatal(err)
	}
	wm := map[string]string{}
	for i, part := range [][]safetensors.NamedBuffer{tensors[:2], tensors[2:]} {
		name := []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}[i]
		if err := safetensors.Write(filepath.Join(dir, name), part, nil); err != nil {
			t.Fatal(err)
		}
		for _, nb := range part {
			wm[nb.Name] = name
		}
	}
	idx, _ := json.Marshal(map[string]any{"metadata": map[string]string{}, "weight_map": wm})
	Tree(t, dir, map[string]string{
		"model.safetensors.index.json": string(idx),
		"rules.json": `{"rules": [
		{"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"},
		{"match": "mlp\\.w1$", "spec": "P(\"data\", \"model\")"},
		{"match": "^embed$", "spec": "P(None, (\"data\", \"model\"))"},
		{"match": "mlp\\.b", "spec": "P(\"model\")"}],
	 "default": "P()"}`,
	})
}

// MappedRaw writes data to a file in dir for each shape text and reads it back as
// that shape with buffer.ReadRaw, closed when the test ends. It skips the test where
// the files are read instead of mapped.
func MappedRaw(t testing.TB, dir string, data []byte, shapes ...string) []*buffer.Buffer {
	t.Helper()
	var bufs []*buffer.Buffer
	for i, s := range shapes {
		p := filepath.Join(dir, strconv.Itoa(i)+".raw")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := buffer.ReadRaw(p, layout.MustParse(s))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		if !b.Mapped() {
			t.Skip("not mapped here")
		}
		bufs = append(bufs, b)
	}
	return bufs
}
