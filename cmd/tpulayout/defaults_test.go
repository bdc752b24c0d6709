package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// captureNotes sends progressOut (where notes go) to a buffer for the test.
func captureNotes(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	saved := progressOut
	progressOut = &buf
	t.Cleanup(func() { progressOut = saved })
	return &buf
}

// TestGuessNotes: --to tpu:GEN says on stderr, in one line, when the default is a guess,
// and points to the program's own layout; a default the dumps back gets no note.
func TestGuessNotes(t *testing.T) {
	for _, c := range []struct {
		shape, to string
		note      string // "" for none
	}{
		{"f32[1024,1024]", "tpu:v5e", ""},
		{"bf16[4096,4096]", "tpu:v6e", ""},
		{"s32[]", "tpu:v5e", ""},
		{"s8[4096,4096]", "tpu:v5e", "tpulayout info: note: the tpu:v5e default s8[4096,4096]{1,0:T(8,128)(4,1)} is a guess: XLA's dumps write 8-bit arrays T(8,128)(4,1) in 15 files"},
		{"f32[]", "tpu:v5e", ""},
		{"pred[]", "tpu:v5e", "tpulayout info: note: the tpu:v5e default pred[]{:T(512)} is a guess"},
		{"bf16[1024,1024]", "tpu:7x", "the tpu:7x default bf16[1024,1024]{1,0:T(16,128)(2,1)} is a guess: no 7x dump found"},
		// The groups XLA's dumps write otherwise (issue 41): evidenced where a dated dump
		// backs the default (v6e: f32[5], f32[1,5]), a guess where two undated modules
		// alone speak (8-bit 1-D, unpacked there).
		{"f32[8]", "tpu:v5e", ""},
		{"f32[1,2]", "tpu:v5e", ""},
		{"f32[1024]", "tpu:v5e", ""},
		{"s8[2]", "tpu:v5e", "the tpu:v5e default s8[2]{0:T(512)(128)(4,1)} is a guess"},
		{"pred[1]", "tpu:v5e", "the tpu:v5e default pred[1]{0:T(512)(128)(4,1)} is a guess"},
	} {
		notes := captureNotes(t)
		mustRun(t, "info", c.shape, "--to", c.to)
		got := notes.String()
		switch {
		case c.note == "" && got != "":
			t.Errorf("info %s --to %s: note %q", c.shape, c.to, got)
		case c.note != "" && (!strings.Contains(got, c.note) || strings.Count(got, "\n") != 1 ||
			!strings.HasSuffix(got, "the program's own layout is exact: tpulayout info hlo:FILE:param=N\n")):
			t.Errorf("info %s --to %s: note %q, want one line with %q", c.shape, c.to, got, c.note)
		}
	}

	// convert of one array: the same line, with convert's way to the program's layout.
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "q.npy", testfiles.RandomBuffer(t, "s8[64,256]", 7))
	notes := captureNotes(t)
	mustRun(t, "convert", in, filepath.Join(dir, "q.bin"), "--to", "tpu:v5e")
	if got := notes.String(); !strings.HasPrefix(got, "tpulayout convert: note: the tpu:v5e default s8[64,256]{1,0:T(8,128)(4,1)} is a guess") ||
		!strings.HasSuffix(got, "exact: --to hlo:FILE:param=N\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("convert: notes %q", got)
	}
	notes.Reset()
	mustRun(t, "convert", in, filepath.Join(dir, "q2.bin"), "--to", "{1,0:T(8,128)(4,1)}")
	if notes.Len() != 0 {
		t.Errorf("convert with an explicit layout: notes %q", notes)
	}
}

// checkpointWithScalar writes a checkpoint holding a training step counter (s32 scalar),
// an f32 scalar and an int8 weight whose shape XLA's TPU dumps show.
func checkpointWithScalar(t *testing.T, dir string) string {
	t.Helper()
	ckpt := filepath.Join(dir, "model.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{
		{Name: "step", Buf: testfiles.RandomBuffer(t, "s32[]", 1)},
		{Name: "loss_scale", Buf: testfiles.RandomBuffer(t, "f32[]", 2)},
		{Name: "w_q", Buf: testfiles.RandomBuffer(t, "s8[1,32,2048]", 3)},
		{Name: "w_q2", Buf: testfiles.RandomBuffer(t, "s8[96,1000]", 4)},
		{Name: "w_small", Buf: testfiles.RandomBuffer(t, "s8[1,4,4]", 5)},
	}, nil); err != nil {
		t.Fatal(err)
	}
	return ckpt
}

// xlaWrote returns the shape text parsed, after checking that the evidence table
// (testdata/tpu-defaults) has it: a layout XLA wrote for a TPU array.
func xlaWrote(t *testing.T, text string) layout.Shape {
	t.Helper()
	data, err := os.ReadFile("../../testdata/tpu-defaults/observed.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		c := strings.Split(line, "\t")
		if len(c) == 8 && c[0]+"["+c[1]+"]{"+c[2]+"}" == text {
			return layout.MustParse(text)
		}
	}
	t.Fatalf("%s is not in the evidence table", text)
	return layout.Shape{}
}

// xlaAllocated returns the bytes XLA's buffer assignment gave text in HBM in a dump of
// generation gen (testdata/tpu-defaults/footprints.tsv).
func xlaAllocated(t *testing.T, text, gen string) int64 {
	t.Helper()
	data, err := os.ReadFile("../../testdata/tpu-defaults/footprints.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		c := strings.Split(line, "\t")
		if len(c) == 9 && c[0]+"["+c[1]+"]{"+c[2]+"}" == text && c[3] == gen && c[4] == "0" {
			n, err := strconv.ParseInt(c[5], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s allocation of %s in footprints.tsv", gen, text)
	return 0
}

// TestCheckpointFootprints converts a checkpoint with scalars and int8 tensors with
// --all --to tpu:v6e and checks each image's size against the bytes XLA's buffer
// assignment allocated for that array in a v6e dump, or against the footprint of the
// layout XLA wrote for it (testdata/tpu-defaults). Before issue #31 the scalars' images
// were 4 bytes where XLA allocates 512.
func TestCheckpointFootprints(t *testing.T) {
	dir := t.TempDir()
	ckpt := checkpointWithScalar(t, dir)
	out := filepath.Join(dir, "images")
	captureNotes(t)
	mustRun(t, "convert", ckpt, out, "--all", "--to", "tpu:v6e")
	var m convert.Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	xla := map[string]layout.Shape{
		"step":       xlaWrote(t, "s32[]{:T(128)}"),
		"loss_scale": xlaWrote(t, "f32[]{:T(128)}"),
		"w_q":        xlaWrote(t, "s8[1,32,2048]{2,1,0:T(8,128)(4,1)}"), // no size in a dump
		"w_small":    xlaWrote(t, "s8[1,4,4]{2,1,0:T(4,128)(4,1)}"),
	}
	// What XLA's memory stats say these take on v6e.
	allocated := map[string]int64{
		"step":       xlaAllocated(t, "s32[]{:T(128)}", "v6e"),
		"loss_scale": xlaAllocated(t, "f32[]{:T(128)}", "v6e"),
		"w_small":    xlaAllocated(t, "s8[1,4,4]{2,1,0:T(4,128)(4,1)}", "v6e"),
	}
	for _, e := range m.Tensors {
		st, err := os.Stat(filepath.Join(out, e.File))
		if err != nil || st.Size() != e.Bytes {
			t.Fatalf("%s: %v, size %v, manifest %d", e.File, err, st, e.Bytes)
		}
		// Each image holds its tensor where the layout says (validate reads it back).
		args := []string{"validate", filepath.Join(out, e.File), "--layout", e.Layout, "--ref", ckpt, "--tensor", e.Name}
		if o, errOut, code := runCmd(t, args...); code != 0 {
			t.Errorf("%q: exit %d %s\n%s", args, code, errOut, o)
		}
		want, ok := xla[e.Name]
		if !ok {
			continue
		}
		if e.Layout != want.String() {
			t.Errorf("%s: layout %s, XLA wrote %s", e.Name, e.Layout, want)
		}
		if fp := footprint(t, want); e.Bytes != fp {
			t.Errorf("%s: image %d bytes, XLA's layout %s takes %d", e.Name, e.Bytes, want, fp)
		}
		if n, ok := allocated[e.Name]; ok && e.Bytes != n {
			t.Errorf("%s: image %d bytes, XLA allocated %d on v6e", e.Name, e.Bytes, n)
		}
	}
	if len(m.Tensors) != 5 {
		t.Fatalf("manifest: %+v", m)
	}
	// XLA's memory stats (docs/oom_debugging.md): u8[327680,327680]{1,0:T(8,128)(4,1)}
	// takes size=107374182400 bytes; the default layout for it must take the same.
	ds, err := tpu.DefaultShape(tpu.V5e, layout.U8, []int64{327680, 327680})
	if err != nil {
		t.Fatal(err)
	}
	if fp := footprint(t, ds); ds.String() != "u8[327680,327680]{1,0:T(8,128)(4,1)}" || fp != 107374182400 {
		t.Errorf("default %s takes %d bytes; XLA's memory stats say 107374182400", ds, fp)
	}
}

func footprint(t *testing.T, s layout.Shape) int64 {
	t.Helper()
	ix, err := layout.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return ix.FootprintBytes()
}

// TestShardedDefaults: a sharded conversion gives each shard the corrected default (a
// tiled scalar, T(8,128)(4,1) for int8) and says once which defaults are guesses.
func TestShardedDefaults(t *testing.T) {
	dir := t.TempDir()
	ckpt := checkpointWithScalar(t, dir)
	out := filepath.Join(dir, "shards")
	notes := captureNotes(t)
	mustRun(t, "convert", ckpt, out, "--all", "--mesh", "x=2", "--spec", "P()", "--to", "tpu:v5e")
	var m struct {
		Tensors []struct {
			Name, Layout string
			Shards       []struct{ Bytes int64 }
		}
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"step":       "s32[]{:T(128)}",
		"loss_scale": "f32[]{:T(128)}",
		"w_q":        "s8[1,32,2048]{2,1,0:T(8,128)(4,1)}",
		"w_q2":       "s8[96,1000]{1,0:T(8,128)(4,1)}",
		"w_small":    "s8[1,4,4]{2,1,0:T(4,128)(4,1)}",
	}
	for _, e := range m.Tensors {
		if e.Layout != want[e.Name] || len(e.Shards) != 1 || e.Shards[0].Bytes != footprint(t, layout.MustParse(e.Layout)) {
			t.Errorf("%s: %s, shards %+v; want %s", e.Name, e.Layout, e.Shards, want[e.Name])
		}
	}
	// The two s8 arrays with rows % 32 == 0 are guesses: one line.
	if got := notes.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "the tpu:v5e defaults of 2 of 5 tensors are guesses (first ") {
		t.Errorf("notes %q", got)
	}
}

// TestInfoMatchesDumps: info --to tpu:GEN gives scalars, 1-D arrays, small
// second-minor dims and 8-bit arrays the layouts XLA wrote for them: for v6e those of
// a v6e compiler dump, for v5e those of dumps that name no generation (they fit the
// v4–v6e rule).
func TestInfoMatchesDumps(t *testing.T) {
	for _, c := range []struct{ gen, text string }{
		{"v5e", "s32[]{:T(128)}"}, {"v5e", "u32[]{:T(128)}"}, {"v5e", "bf16[]{:T(256)}"},
		{"v5e", "s32[5]{0:T(128)}"}, {"v5e", "u32[256]{0:T(256)}"}, {"v5e", "f32[4096]{0:T(1024)}"},
		{"v5e", "bf16[2048]{0:T(1024)(128)(2,1)}"},
		{"v5e", "f32[2,2]{1,0:T(2,128)}"}, {"v5e", "f32[3,6]{1,0:T(4,128)}"}, {"v5e", "bf16[2,2048]{1,0:T(2,128)(2,1)}"},
		{"v5e", "f32[1,128]{1,0:T(1,128)}"}, {"v5e", "s32[2,512]{1,0:T(2,128)}"},
		{"v5e", "s8[9216,6144]{1,0:T(8,128)(4,1)}"}, {"v5e", "s8[1,32,2048]{2,1,0:T(8,128)(4,1)}"},
		{"v5e", "u8[327680,327680]{1,0:T(8,128)(4,1)}"}, {"v5e", "pred[8,1024]{1,0:T(8,128)(4,1)}"},
		{"v6e", "s32[]{:T(128)}"}, {"v6e", "f32[]{:T(128)}"}, {"v6e", "bf16[]{:T(256)}"}, {"v6e", "u16[]{:T(256)}"},
		{"v6e", "u32[2]{0:T(128)}"}, {"v6e", "u32[2048]{0:T(1024)}"}, {"v6e", "f32[1,5]{1,0:T(1,128)}"},
		{"v6e", "s8[1,4,4]{2,1,0:T(4,128)(4,1)}"}, {"v6e", "u8[8,2048,128]{2,1,0:T(8,128)(4,1)}"},
		{"v6e", "bf16[8,2048,128]{2,1,0:T(8,128)(2,1)}"},
		// Small 1-D 32-bit arrays and a second-minor dim of 1: the v6e dump writes the
		// compact tiles the default gives (f32[1,5] takes 512 bytes there, one T(1,128)
		// tile), where some undated XLA tests write T(256) and T(2,128), the v2/v3 rule's.
		{"v6e", "f32[5]{0:T(128)}"}, {"v6e", "f32[16]{0:T(128)}"}, {"v6e", "u32[8]{0:T(128)}"}, {"v6e", "u32[64]{0:T(128)}"},
		{"v5e", "s32[32]{0:T(128)}"}, {"v5e", "u32[10]{0:T(128)}"},
		{"v3", "f32[8]{0:T(256)}"}, {"v3", "f32[100]{0:T(256)}"}, {"v3", "f32[1,1,1]{2,1,0:T(2,128)}"},
	} {
		s := xlaWrote(t, c.text)
		plain := layout.NewShape(s.DType, s.Dims...).String()
		captureNotes(t)
		m := runJSON(t, "info", plain, "--to", "tpu:"+c.gen, "--json")
		if m["shape"] != c.text {
			t.Errorf("info %s --to tpu:%s: %v, XLA wrote %s", plain, c.gen, m["shape"], c.text)
		}
	}
}
