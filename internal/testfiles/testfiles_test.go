package testfiles

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testenv"
	"github.com/tpulayout/tpulayout/layout"
)

func TestRandomBuffer(t *testing.T) {
	for _, text := range []string{"f32[20,300]", "bf16[7,9]", "u16[8,128]", "s4[5,3]", "f32[0,3]"} {
		a, b := RandomBuffer(t, text, 1), RandomBuffer(t, text, 1)
		if a.Shape.String() != layout.MustParse(text).String() || !bytes.Equal(a.Data, b.Data) {
			t.Errorf("%s: shape %s, or one seed gave two buffers", text, a.Shape)
		}
		if a.Len() == 0 {
			continue
		}
		if c := RandomBuffer(t, text, 2); bytes.Equal(a.Data, c.Data) {
			t.Errorf("%s: seeds 1 and 2 gave the same buffer", text)
		}
		idx := make([]int64, a.Rank())
		for {
			if v := a.At(idx); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%s %v: %v is not finite", text, idx, v)
			}
			if !layout.NextIndex(idx, a.Dims()) {
				break
			}
		}
	}
}

func TestWriteNPY(t *testing.T) {
	dir := t.TempDir()
	b := RandomBuffer(t, "f32[4,6]", 3)
	p := WriteNPY(t, dir, "a.npy", b)
	if p != filepath.Join(dir, "a.npy") {
		t.Errorf("path %s", p)
	}
	back, err := npy.Read(p)
	if err != nil || !bytes.Equal(back.Data, b.Data) || back.Shape.String() != b.Shape.String() {
		t.Errorf("read back %v: %v", back, err)
	}
	if _, stopped := testenv.Record(t, func(tb testing.TB) { WriteNPY(tb, filepath.Join(dir, "missing"), "a.npy", b) }); !stopped {
		t.Error("writing into a missing directory did not fail the test")
	}
}

func TestWriteCheckpoint(t *testing.T) {
	dir := t.TempDir()
	a, b := RandomBuffer(t, "f32[4,6]", 3), RandomBuffer(t, "s8[5]", 4)
	p := WriteCheckpoint(t, dir, "m.safetensors", safetensors.NamedBuffer{Name: "a", Buf: a}, safetensors.NamedBuffer{Name: "b", Buf: b})
	if p != filepath.Join(dir, "m.safetensors") {
		t.Errorf("path %s", p)
	}
	for _, want := range []struct {
		name string
		buf  *buffer.Buffer
	}{{"a", a}, {"b", b}} {
		got, err := safetensors.ReadTensor(p, want.name)
		if err != nil || !bytes.Equal(got.Data, want.buf.Data) || got.Shape.String() != want.buf.Shape.String() {
			t.Errorf("%s read back as %v: %v", want.name, got, err)
		}
	}
	if _, stopped := testenv.Record(t, func(tb testing.TB) { WriteCheckpoint(tb, filepath.Join(dir, "missing"), "m.safetensors") }); !stopped {
		t.Error("writing into a missing directory did not fail the test")
	}
}

func TestTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d", "e")
	files := map[string]string{"a.txt": "A", ".hidden": "", "b": "bee\n"}
	Tree(t, dir, files)
	got := TreeOf(t, dir)
	if len(got) != len(files) {
		t.Errorf("TreeOf: %v, want %v", got, files)
	}
	for k, v := range files {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if names := DirNames(t, dir); !slices.Equal(names, []string{".hidden", "a.txt", "b"}) {
		t.Errorf("DirNames: %v", names)
	}
	if _, stopped := testenv.Record(t, func(tb testing.TB) { DirNames(tb, filepath.Join(dir, "none")) }); !stopped {
		t.Error("listing a missing directory did not fail the test")
	}
}

func TestReadJAXCases(t *testing.T) {
	cases := ReadJAXCases(t, filepath.Join("..", ".."))
	c := cases[0]
	if c.MeshText() != "x=8" || c.DevicesText() != "0,1,2,3,4,5,6,7" || c.SpecText() != "P('x')" || !c.Placed() {
		t.Errorf("first case: %s", &c)
	}
	if !strings.Contains(c.String(), "shape [16]") {
		t.Errorf("String: %s", &c)
	}
	got := map[int][][2]int64{}
	for d := range 8 {
		got[d] = [][2]int64{{int64(2 * d), int64(2*d + 2)}}
	}
	if errs, _ := testenv.Record(t, func(tb testing.TB) { c.CheckRanges(tb, got) }); len(errs) != 0 {
		t.Errorf("JAX's own ranges: %v", errs)
	}
	got[3] = [][2]int64{{6, 7}}
	delete(got, 5)
	errs, _ := testenv.Record(t, func(tb testing.TB) { c.CheckRanges(tb, got) })
	if len(errs) != 3 || !strings.Contains(strings.Join(errs, "\n"), "device 5 holds nothing") {
		t.Errorf("wrong ranges: %q", errs)
	}
	refused := 0
	for _, c := range cases {
		if c.Placed() {
			continue
		}
		refused++
		dim, size, count := c.Refusal(t)
		if size != c.Shape[dim] || size%int64(count) == 0 {
			t.Errorf("%s: dim %d of size %d is divisible by %d", &c, dim, size, count)
		}
		if want := fmt.Sprintf("dim %d of size %d is not divisible by %d", dim, size, count); c.RefusalText(t) != want {
			t.Errorf("%s: %q", &c, c.RefusalText(t))
		}
	}
	if refused != 194 {
		t.Errorf("%d refused", refused)
	}
	if _, stopped := testenv.Record(t, func(tb testing.TB) { ReadJAXCases(tb, t.TempDir()) }); !stopped {
		t.Error("a root without the recording did not fail the test")
	}
}

func TestJAXCaseText(t *testing.T) {
	var c JAXCase
	c.Mesh.Axes, c.Mesh.Sizes, c.Mesh.Devices = []string{"a", "b"}, []int{2, 1}, []int{1, 0}
	for _, s := range []string{`null`, `"a"`, `["a","b"]`, `3`} {
		c.Spec = append(c.Spec, json.RawMessage(s))
	}
	if got, want := c.SpecText(), "P(None, 'a', ('a', 'b'), <bad entry 3>)"; got != want {
		t.Errorf("SpecText %s, want %s", got, want)
	}
	if c.MeshText() != "a=2,b=1" || c.DevicesText() != "1,0" {
		t.Errorf("%s, %s", c.MeshText(), c.DevicesText())
	}
	c.DevicePut = "IndivisibleError: no reason given"
	if errs, stopped := testenv.Record(t, func(tb testing.TB) { c.Refusal(tb) }); !stopped || !strings.Contains(errs[0], "does not say why") {
		t.Errorf("refusal without a reason: %v", errs)
	}
	c.Shape = []int64{4}
	c.IndicesError = "implies that array axis 2 is partitioned 3 times"
	if errs, stopped := testenv.Record(t, func(tb testing.TB) { c.Refusal(tb) }); !stopped || !strings.Contains(errs[0], "array axis 2") {
		t.Errorf("refusal of a missing axis: %v", errs)
	}
}

func TestMappedRaw(t *testing.T) {
	old := buffer.MmapThreshold
	defer func() { buffer.MmapThreshold = old }()
	buffer.MmapThreshold = 1 << 40
	dir := t.TempDir()
	data := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if errs, stopped := testenv.Record(t, func(tb testing.TB) { MappedRaw(tb, dir, data, "u8[8]") }); !stopped || len(errs) != 0 {
		t.Errorf("a file read, not mapped: %q, stopped %v; want a skip", errs, stopped)
	}
	buffer.MmapThreshold = 0
	bufs := MappedRaw(t, dir, data, "u8[8]", "u16[2,2]")
	if len(bufs) != 2 || !bytes.Equal(bufs[0].Data, data) || !bytes.Equal(bufs[1].Data, data) || bufs[1].Shape.String() != "u16[2,2]{1,0}" {
		t.Fatalf("MappedRaw: %v", bufs)
	}
	for _, c := range []struct {
		name  string
		dir   string
		shape string
	}{
		{"a missing directory", filepath.Join(dir, "none"), "u8[8]"},
		{"a shape of other size", dir, "u8[9]"},
	} {
		if errs, stopped := testenv.Record(t, func(tb testing.TB) { MappedRaw(tb, c.dir, data, c.shape) }); !stopped || len(errs) != 1 {
			t.Errorf("%s: %q, stopped %v", c.name, errs, stopped)
		}
	}
}

// ShardCheckpoint's one-file model and its two shards hold the same tensors, the
// index names the shard of each, and the rules are JSON.
func TestShardCheckpoint(t *testing.T) {
	dir := t.TempDir()
	ShardCheckpoint(t, dir)
	whole, err := safetensors.List(filepath.Join(dir, "model.safetensors"))
	if err != nil || len(whole) != 5 {
		t.Fatalf("model.safetensors: %d tensors, %v", len(whole), err)
	}
	files := TreeOf(t, dir)
	var index struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	var rules map[string]any
	if err := json.Unmarshal([]byte(files["model.safetensors.index.json"]), &index); err != nil || len(index.WeightMap) != 5 {
		t.Fatalf("index: %v, %v", index, err)
	}
	if err := json.Unmarshal([]byte(files["rules.json"]), &rules); err != nil || rules["default"] != "P()" {
		t.Errorf("rules.json: %v, %v", rules, err)
	}
	for _, ti := range whole {
		a, err := safetensors.ReadTensor(filepath.Join(dir, "model.safetensors"), ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := safetensors.ReadTensor(filepath.Join(dir, index.WeightMap[ti.Name]), ti.Name)
		if err != nil || !bytes.Equal(a.Data, b.Data) {
			t.Errorf("%s in %s: %v, or other bytes than model.safetensors's", ti.Name, index.WeightMap[ti.Name], err)
		}
	}
}

// WriteSafetensors writes any dtype the header names, the library's or not.
func TestWriteSafetensors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		dtype string
		ok    bool // the library reads it
	}{{"BF16", true}, {"NOT_A_TYPE", false}} {
		p := filepath.Join(dir, c.dtype+".safetensors")
		if err := WriteSafetensors(p, "x", c.dtype, []int{2, 2}, make([]byte, 8)); err != nil {
			t.Fatal(err)
		}
		ts, err := safetensors.List(p)
		if (err == nil) != c.ok || c.ok && (len(ts) != 1 || ts[0].Name != "x" || ts[0].BufferShape().String() != "bf16[2,2]{1,0}") {
			t.Errorf("%s: %+v, %v", c.dtype, ts, err)
		}
	}
	if err := WriteSafetensors(filepath.Join(dir, "none", "x"), "x", "F32", nil, nil); err == nil {
		t.Error("a file in a missing directory written")
	}
}
