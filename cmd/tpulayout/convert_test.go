package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/tpu"
)

const fixtures = "testdata/convert/"

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConvertFixtures compares device images with the ones NumPy made by
// pad-reshape-transpose (testdata/gen_fixtures.py), and converts them back.
func TestConvertFixtures(t *testing.T) {
	cases := []struct {
		in, to, want string
		out          string // the shape printed
	}{
		{"f32_20x300.npy", "f32[20,300]{1,0:T(8,128)}", "f32_20x300.T8x128.bin", ""},
		{"f32_20x300.npy", "bf16[20,300]{1,0:T(8,128)(2,1)}", "f32_20x300.bf16.T8x128_2x1.bin", ""},
		{"f32_20x300.npy", "bf16[20,300]{1,0:T(16,128)(2,1)}", "f32_20x300.bf16.T16x128_2x1.bin", ""},
		{"f32_20x300.npy", "bf16[20,300]{1,0:T(8,128)}", "f32_20x300.bf16.T8x128.bin", ""},
		{"f32_130x20.npy", "f32[130,20]{0,1:T(8,128)}", "f32_130x20.cm.T8x128.bin", ""},
		{"s8_40x130.npy", "s8[40,130]{1,0:T(32,128)(4,1)}", "s8_40x130.T32x128_4x1.bin", ""},
		{"f16_9x200.npy", "f16[9,200]{1,0:T(8,128)(2,1)}", "f16_9x200.T8x128_2x1.bin", ""},
		// The other ways to say the target.
		{"f32_20x300.npy", "{1,0:T(8,128)}", "f32_20x300.T8x128.bin", "f32[20,300]{1,0:T(8,128)}"},
		{"f32_20x300.npy", "tpu:v5e", "f32_20x300.T8x128.bin", "f32[20,300]{1,0:T(8,128)}"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		out := filepath.Join(dir, "out.bin")
		got := mustRun(t, "convert", fixtures+c.in, out, "--to", c.to)
		want := c.out
		if want == "" {
			want = c.to
		}
		if got != want+"\n" {
			t.Errorf("convert %s --to %s printed %q, want %q", c.in, c.to, got, want)
		}
		if !bytes.Equal(readFile(t, out), readFile(t, fixtures+c.want)) {
			t.Errorf("convert %s --to %s differs from NumPy's %s", c.in, c.to, c.want)
		}
	}
	// bf16 with --dtype and a layout alone, or tpu:GEN.
	for _, to := range [][]string{{"--to", "{1,0:T(8,128)(2,1)}", "--dtype", "bf16"}, {"--to", "tpu:v5e", "--dtype", "bf16"}} {
		out := filepath.Join(dir, "out.bin")
		got := mustRun(t, append([]string{"convert", fixtures + "f32_20x300.npy", out}, to...)...)
		if got != "bf16[20,300]{1,0:T(8,128)(2,1)}\n" {
			t.Errorf("convert %q printed %q", to, got)
		}
		if !bytes.Equal(readFile(t, out), readFile(t, fixtures+"f32_20x300.bf16.T8x128_2x1.bin")) {
			t.Errorf("convert %q differs from NumPy's", to)
		}
	}

	// Back: the NumPy device images to host arrays equal the NumPy inputs.
	for _, c := range []struct{ bin, from, npy string }{
		{"f32_20x300.T8x128.bin", "f32[20,300]{1,0:T(8,128)}", "f32_20x300.npy"},
		{"f32_130x20.cm.T8x128.bin", "f32[130,20]{0,1:T(8,128)}", "f32_130x20.npy"},
		{"s8_40x130.T32x128_4x1.bin", "s8[40,130]{1,0:T(32,128)(4,1)}", "s8_40x130.npy"},
		{"f16_9x200.T8x128_2x1.bin", "f16[9,200]{1,0:T(8,128)(2,1)}", "f16_9x200.npy"},
	} {
		out := filepath.Join(dir, "back.npy")
		mustRun(t, "convert", "--from", c.from, fixtures+c.bin, out)
		got, err := npy.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		want, err := npy.Read(fixtures + c.npy)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := buffer.Compare(want, got, buffer.CompareOptions{}); err != nil || !r.OK() {
			t.Errorf("%s back to host: %v %+v", c.bin, err, r)
		}
	}
	// bf16 back to f32 is the f32 input rounded to nearest even.
	out := filepath.Join(dir, "back.npy")
	mustRun(t, "convert", "--from", "bf16[20,300]{1,0:T(8,128)(2,1)}", fixtures+"f32_20x300.bf16.T8x128_2x1.bin", out, "--to", "f32")
	got, _ := npy.Read(out)
	src, _ := npy.Read(fixtures + "f32_20x300.npy")
	idx := make([]int64, 2)
	for {
		if w := buffer.BF16ToF32(buffer.F32ToBF16(src.F32(idx))); got.F32(idx) != w {
			t.Fatalf("bf16 back to f32 at %v: %v, want %v", idx, got.F32(idx), w)
		}
		if !layout.NextIndex(idx, got.Dims()) {
			break
		}
	}
}

// roundTripCases are host → device conversions of many dtypes and layouts.
var roundTripCases = []struct {
	host, device string
}{
	{"f32[64,256]", "f32[64,256]{1,0:T(8,128)}"},
	{"f32[37,301]", "f32[37,301]{1,0:T(8,128)}"},
	{"f32[64,256]", "bf16[64,256]{1,0:T(8,128)(2,1)}"},
	{"f32[37,301]", "bf16[37,301]{1,0:T(8,128)(2,1)}"},
	{"f32[48,130]", "bf16[48,130]{1,0:T(16,128)(2,1)}"},
	{"bf16[33,257]", "bf16[33,257]{1,0:T(16,128)(2,1)}"},
	{"s8[64,256]", "s8[64,256]{1,0:T(32,128)(4,1)}"},
	{"s8[45,131]", "s8[45,131]{1,0:T(32,128)(4,1)}"},
	{"f16[24,200]", "f16[24,200]{1,0:T(8,128)(2,1)}"},
	{"f32[50,140]", "f32[50,140]{0,1:T(8,128)}"},
	{"bf16[50,140]", "bf16[50,140]{0,1:T(8,128)(2,1)}"},
	{"f32[3,17,260]", "f32[3,17,260]{2,1,0:T(8,128)}"},
	{"f32[3,17,260]", "bf16[3,17,260]{2,1,0:T(8,128)(2,1)}"},
	{"f32[1,5]", "f32[1,5]{1,0:T(8,128)}"},
	{"f32[1000]", "f32[1000]{0:T(1024)}"},
	{"f32[3000]", "bf16[3000]{0:T(1024)(128)(2,1)}"},
	{"s32[19,129]", "s32[19,129]{1,0:T(8,128)}"},
}

// TestConvertRoundTrip converts host → device → host for many layouts and dtypes, and
// checks each device image with the TPU model's independent Check.
func TestConvertRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i, c := range roundTripCases {
		src := testfiles.RandomBuffer(t, c.host, uint64(i))
		in := testfiles.WriteNPY(t, dir, "in.npy", src)
		dev := filepath.Join(dir, "dev.bin")
		mustRun(t, "convert", in, dev, "--to", c.device)
		ix, _ := layout.Compile(layout.MustParse(c.device))
		img, err := buffer.ReadRaw(dev, ix.Shape())
		if err != nil {
			t.Fatalf("%s: %v", c.device, err)
		}
		// The padding is zero.
		idx := make([]int64, ix.Rank())
		for off := range ix.FootprintElements() {
			if !ix.Index(off, idx) && img.BitsAt(off) != 0 {
				t.Fatalf("%s: padding at offset %d is %#x", c.device, off, img.BitsAt(off))
			}
		}
		// Every element is where the TPU model expects it (for loadable layouts), or
		// where the layout's index math says (any layout).
		if _, err := tpu.NewMemTiling(tpu.Target{}, ix.Shape()); err == nil {
			r, err := tpu.Check(img, src, tpu.CheckOptions{})
			if err != nil || !r.OK() {
				t.Errorf("%s ← %s: tpu.Check: %v %v", c.device, c.host, err, r)
			}
		}
		if r, err := buffer.Compare(src, img, buffer.CompareOptions{}); err != nil || !r.OK() {
			t.Errorf("%s ← %s: Compare: %v %+v", c.device, c.host, err, r)
		}
		// validate agrees.
		if out, errOut, code := runCmd(t, "validate", dev, "--layout", c.device, "--ref", in, "--check-padding"); code != 0 {
			t.Errorf("validate %s: exit %d, %s\n%s", c.device, code, errOut, out)
		}
		// Back to the host, in the host's dtype.
		back := filepath.Join(dir, "back.npy")
		mustRun(t, "convert", "--from", c.device, dev, back, "--to", src.DType().String())
		got, err := npy.Read(back)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Dims(), src.Dims()) || got.DType() != src.DType() {
			t.Fatalf("%s back: %v, want %v", c.device, got.Shape, src.Shape)
		}
		// Compared in the device's type: f32 → bf16 → f32 is f32 rounded to bf16.
		if r, err := buffer.Compare(src, got, buffer.CompareOptions{In: img.DType()}); err != nil || !r.OK() {
			t.Errorf("%s → %s → host: %v %+v", c.host, c.device, err, r)
		}
		if src.DType() == img.DType() && !bytes.Equal(got.Data, src.Data) {
			t.Errorf("%s → %s → host: bytes differ", c.host, c.device)
		}
		img.Close()
	}
}

// TestConvertHostHeaders checks that the .npy and .safetensors files convert writes are
// byte for byte what the buffer package writes.
func TestConvertHostHeaders(t *testing.T) {
	dir := t.TempDir()
	for i, text := range []string{"f32[20,300]", "bf16[7]", "s8[2,3,4]", "f16[1,1]", "u8[0,4]", "s32[]"} {
		src := testfiles.RandomBuffer(t, text, uint64(i))
		raw := filepath.Join(dir, "raw.bin")
		if err := buffer.WriteRaw(raw, src); err != nil {
			t.Fatal(err)
		}
		npyOut := filepath.Join(dir, "a.npy")
		mustRun(t, "convert", "--from", text, raw, npyOut)
		var want bytes.Buffer
		if err := npy.WriteTo(&want, src); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readFile(t, npyOut), want.Bytes()) {
			t.Errorf("%s: .npy differs from npy.Write's", text)
		}
		st := filepath.Join(dir, "a.safetensors")
		mustRun(t, "convert", "--from", text, raw, st, "--tensor", "w.0")
		want.Reset()
		if err := safetensors.WriteTo(&want, []safetensors.NamedBuffer{{Name: "w.0", Buf: src}}, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readFile(t, st), want.Bytes()) {
			t.Errorf("%s: .safetensors differs from safetensors.Write's:\n%q\n%q", text, readFile(t, st), want.Bytes())
		}
	}
}

// setBand makes conversions band by band with bands of about n bytes, and maps every
// input, for the duration of the test.
func setBand(t *testing.T, n int64) {
	saved, savedMap := bandBytes, buffer.MmapThreshold
	bandBytes, buffer.MmapThreshold = n, 0
	t.Cleanup(func() { bandBytes, buffer.MmapThreshold = saved, savedMap })
}

// TestConvertBanded checks that band-by-band conversion (tiny bands, mapped input)
// writes the same bytes as the conversion in one piece, both ways.
func TestConvertBanded(t *testing.T) {
	dir := t.TempDir()
	cases := append(roundTripCases[:len(roundTripCases):len(roundTripCases)],
		struct{ host, device string }{"f32[100,300]", "bf16[100,300]{1,0:T(8,128)(2,1)}"},
		struct{ host, device string }{"f32[203,129]", "bf16[203,129]{1,0:T(16,128)(2,1)}"},
		struct{ host, device string }{"s8[100,40]", "s8[100,40]{1,0:T(32,128)(4,1)}"},
		struct{ host, device string }{"f32[9,5,130]", "f32[9,5,130]{2,1,0:T(8,128)}"},
		struct{ host, device string }{"f32[9,5,130]", "f32[9,5,130]{2,0,1:T(8,128)}"},
		// Device layouts that transpose the host array: bands gathered from IN.
		struct{ host, device string }{"f32[50,140]", "f32[50,140]{0,1:T(8,128)}"},
		struct{ host, device string }{"f32[130,300]", "bf16[130,300]{0,1:T(8,128)(2,1)}"},
		struct{ host, device string }{"s8[3,70,200]", "s8[3,70,200]{0,2,1:T(32,128)(4,1)}"},
	)
	banded := 0
	for i, c := range cases {
		src := testfiles.RandomBuffer(t, c.host, uint64(100+i))
		in := testfiles.WriteNPY(t, dir, "in.npy", src)
		whole, piece := filepath.Join(dir, "whole.bin"), filepath.Join(dir, "banded.bin")
		mustRun(t, "convert", in, whole, "--to", c.device)
		func() {
			setBand(t, 1)
			dst := layout.MustParse(c.device)
			if b, ok := relayout.PlanBands(dst, src.Shape, 1); ok {
				banded++
				if b.Len() < 2 {
					t.Errorf("%s: only one band: %+v", c.device, b.Band(0))
				}
			}
			mustRun(t, "convert", in, piece, "--to", c.device)
			if !bytes.Equal(readFile(t, whole), readFile(t, piece)) {
				t.Errorf("%s ← %s: banded conversion differs", c.device, c.host)
			}
			// And back.
			backWhole, backBand := filepath.Join(dir, "bw.npy"), filepath.Join(dir, "bb.npy")
			mustRun(t, "convert", "--from", c.device, piece, backBand, "--to", src.DType().String())
			bandBytes = 1 << 40
			mustRun(t, "convert", "--from", c.device, piece, backWhole, "--to", src.DType().String())
			if !bytes.Equal(readFile(t, backWhole), readFile(t, backBand)) {
				t.Errorf("%s → %s: banded conversion back differs", c.device, c.host)
			}
		}()
	}
	if banded < len(cases)-5 {
		t.Errorf("only %d of %d cases were banded", banded, len(cases))
	}
}

// TestConvertSafetensors converts one tensor, and every tensor with --all.
func TestConvertSafetensors(t *testing.T) {
	dir := t.TempDir()
	w := testfiles.RandomBuffer(t, "f32[40,256]", 1)
	e := testfiles.RandomBuffer(t, "bf16[300]", 2)
	s := testfiles.RandomBuffer(t, "s8[64,130]", 3)
	ckpt := filepath.Join(dir, "model.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{
		{Name: "layers.0/w", Buf: w}, {Name: "embed", Buf: e}, {Name: "q", Buf: s},
	}, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "w.bin")
	if got := mustRun(t, "convert", ckpt, one, "--tensor", "layers.0/w", "--to", "tpu:v5e", "--dtype", "bf16"); got != "bf16[40,256]{1,0:T(8,128)(2,1)}\n" {
		t.Errorf("convert --tensor printed %q", got)
	}
	out := filepath.Join(dir, "images")
	got := mustRun(t, "convert", ckpt, out, "--all", "--to", "tpu:v5e", "--dtype", "bf16")
	if !strings.Contains(got, "layers.0/w") || !strings.Contains(got, "manifest.json") {
		t.Errorf("convert --all printed:\n%s", got)
	}
	var m convert.Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Tensors) != 3 {
		t.Fatalf("manifest: %+v", m)
	}
	want := map[string]convert.Entry{
		"layers.0/w": {Name: "layers.0/w", SourceDType: "f32", SourceShape: []int64{40, 256}, Layout: "bf16[40,256]{1,0:T(8,128)(2,1)}", File: "layers.0_w.bin", Bytes: 40 * 256 * 2},
		"embed":      {Name: "embed", SourceDType: "bf16", SourceShape: []int64{300}, Layout: "bf16[300]{0:T(512)(128)(2,1)}", File: "embed.bin", Bytes: 512 * 2},
		"q":          {Name: "q", SourceDType: "s8", SourceShape: []int64{64, 130}, Layout: "s8[64,130]{1,0:T(8,128)(4,1)}", File: "q.bin", Bytes: 64 * 256},
	}
	for _, e := range m.Tensors {
		w, ok := want[e.Name]
		if !ok {
			t.Errorf("manifest has %q", e.Name)
			continue
		}
		if w.Layout != e.Layout && e.Name == "embed" {
			w.Layout, w.Bytes = e.Layout, e.Bytes // the 1-D default tiling is tpu's business
		}
		if !slices.Equal(w.SourceShape, e.SourceShape) || w.SourceDType != e.SourceDType || w.Layout != e.Layout || w.File != e.File || w.Bytes != e.Bytes {
			t.Errorf("manifest entry %+v, want %+v", e, w)
		}
		st, err := os.Stat(filepath.Join(out, e.File))
		if err != nil || st.Size() != e.Bytes {
			t.Errorf("%s: %v, size %v, want %d", e.File, err, st, e.Bytes)
		}
		// Each image validates against its tensor.
		args := []string{"validate", filepath.Join(out, e.File), "--layout", e.Layout, "--ref", ckpt, "--tensor", e.Name}
		if o, errOut, code := runCmd(t, args...); code != 0 {
			t.Errorf("%q: exit %d %s\n%s", args, code, errOut, o)
		}
	}
	if !bytes.Equal(readFile(t, one), readFile(t, filepath.Join(out, "layers.0_w.bin"))) {
		t.Errorf("--all and --tensor images of layers.0/w differ")
	}
	if names := testfiles.DirNames(t, dir); len(names) != 3 {
		t.Errorf("directory holds %q, want the checkpoint, w.bin and images", names)
	}
	// An empty OUT directory is fine; a non-empty one is refused.
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	mustRun(t, "convert", ckpt, empty, "--all", "--to", "tpu:7x")
	if names := testfiles.DirNames(t, empty); len(names) != 4 {
		t.Errorf("--all into an empty directory wrote %q", names)
	}
	wantUsageError(t, []string{"convert", ckpt, out, "--all", "--to", "tpu:v5e"}, "not empty")
	// A layout alone must fit every tensor.
	wantUsageError(t, []string{"convert", ckpt, filepath.Join(dir, "x"), "--all", "--to", "{1,0:T(8,128)}"}, `tensor "embed"`)
	wantUsageError(t, []string{"convert", ckpt, filepath.Join(dir, "x"), "--all", "--to", "f32[40,256]"}, "--all takes --to tpu:GEN")
	wantUsageError(t, []string{"convert", ckpt, filepath.Join(dir, "x.bin"), "--to", "tpu:v5e"}, "3 tensors", `"embed"`, "--tensor")
	wantUsageError(t, []string{"convert", ckpt, filepath.Join(dir, "x.bin"), "--tensor", "nope", "--to", "tpu:v5e"}, `no tensor "nope"`)
	if names := testfiles.DirNames(t, dir); len(names) != 4 {
		t.Errorf("failed conversions left files: %q", names)
	}
}

// TestConvertPad checks --pad leave and --pad VALUE.
func TestConvertPad(t *testing.T) {
	dir := t.TempDir()
	in := fixtures + "f32_20x300.npy"
	const to = "f32[20,300]{1,0:T(8,128)}"
	ix, _ := layout.Compile(layout.MustParse(to))
	for _, c := range []struct {
		pad  string
		bits uint64
	}{{"zero", 0}, {"leave", 0}, {"-1.5", 0xbfc00000}, {"nan", 0x7ff8000000000000}} {
		for _, band := range []int64{1, 1 << 40} {
			setBand(t, band)
			out := filepath.Join(dir, "out.bin")
			mustRun(t, "convert", in, out, "--to", to, "--pad", c.pad)
			img, err := buffer.ReadRaw(out, ix.Shape())
			if err != nil {
				t.Fatal(err)
			}
			idx := make([]int64, 2)
			for off := range ix.FootprintElements() {
				if ix.Index(off, idx) {
					continue
				}
				got := img.BitsAt(off)
				if c.pad == "nan" {
					if got&0x7f800000 != 0x7f800000 || got&0x7fffff == 0 {
						t.Fatalf("--pad nan: padding %#x", got)
					}
				} else if got != c.bits {
					t.Fatalf("--pad %s (band %d): padding at %d is %#x, want %#x", c.pad, band, off, got, c.bits)
				}
			}
			img.Close()
			if out, errOut, code := runCmd(t, "validate", out, "--layout", to, "--ref", in); code != 0 {
				t.Errorf("--pad %s: validate: exit %d %s\n%s", c.pad, code, errOut, out)
			}
		}
	}
}

// TestConvertProgress checks that --progress reports on standard error, never stdout.
func TestConvertProgress(t *testing.T) {
	var prog bytes.Buffer
	saved := progressOut
	progressOut = &prog
	defer func() { progressOut = saved }()
	setBand(t, 4096)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bin")
	got, errOut, code := runCmd(t, "convert", fixtures+"f32_20x300.npy", out, "--to", "tpu:v5e", "--progress")
	if code != 0 || errOut != "" || got != "f32[20,300]{1,0:T(8,128)}\n" {
		t.Errorf("convert --progress: exit %d, stdout %q, stderr %q", code, got, errOut)
	}
	// Not a terminal: one line per band, no "\r".
	if p := prog.String(); !strings.HasPrefix(p, "convert: ") || strings.Contains(p, "\r") || !strings.HasSuffix(p, "convert: 36.00 KiB of 36.00 KiB (100%)\n") || strings.Count(p, "\n") < 3 {
		t.Errorf("progress output %q", p)
	}
	// Without --progress, and with a writer that is not a terminal: nothing.
	prog.Reset()
	mustRun(t, "convert", fixtures+"f32_20x300.npy", out, "--to", "tpu:v5e")
	if prog.Len() != 0 {
		t.Errorf("progress without --progress: %q", prog.String())
	}
	prog.Reset()
	if _, _, code := runCmd(t, "validate", out, "--layout", "f32[20,300]{1,0:T(8,128)}", "--ref", fixtures+"f32_20x300.npy", "--progress"); code != 0 || !strings.Contains(prog.String(), "validate: comparing") {
		t.Errorf("validate --progress: exit %d, progress %q", code, prog.String())
	}
	if s := convert.SizeText(8 << 30); s != "8.00 GiB" {
		t.Errorf("sizeText = %q", s)
	}
}

// IN - reads standard input (issue 27: it was "cannot read IN -"): a .npy stream is
// recognised by its magic and converts as the file does; a raw one needs --from; errors
// name "-", never the temporary copy, which is gone afterwards.
func TestConvertStdin(t *testing.T) {
	dir := t.TempDir()
	spool := t.TempDir()
	t.Setenv("TMPDIR", spool) // where the copies of standard input go
	in := fixtures + "f32_20x300.npy"
	to := "bf16[20,300]{1,0:T(8,128)(2,1)}"
	saved := stdin
	defer func() { stdin = saved }()
	feed := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stdin = bytes.NewReader(b)
	}
	feed(in)
	mustRun(t, "convert", "-", filepath.Join(dir, "a.bin"), "--to", to)
	mustRun(t, "convert", in, filepath.Join(dir, "b.bin"), "--to", to)
	a, _ := os.ReadFile(filepath.Join(dir, "a.bin"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.bin"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("convert - differs from convert of the file (%d and %d bytes)", len(a), len(b))
	}
	// Raw bytes back, with --from.
	feed(filepath.Join(dir, "a.bin"))
	mustRun(t, "convert", "-", filepath.Join(dir, "back.npy"), "--from", to, "--to", "f32")
	feed(filepath.Join(dir, "a.bin"))
	_, errOut, code := runCmd(t, "convert", "-", filepath.Join(dir, "c.bin"), "--to", to)
	if code != exitUsage || !strings.Contains(errOut, "IN - (standard input) is raw bytes") || strings.Contains(errOut, "tpulayout-stdin") {
		t.Errorf("raw stdin without --from: exit %d, %q", code, errOut)
	}
	// A manifest names its source for verify: no stdin there.
	for _, extra := range [][]string{{"--all"}, {"--mesh", "x=2", "--spec", "P()"}} {
		feed(in)
		_, errOut, code := runCmd(t, append([]string{"convert", "-", filepath.Join(dir, "d"), "--to", "tpu:v5e"}, extra...)...)
		if code != exitUsage || !strings.Contains(errOut, "IN - (standard input) is for one array") {
			t.Errorf("convert - with %q: exit %d, %q", extra, code, errOut)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(spool, "*")); len(left) > 0 {
		t.Errorf("temporary copies left behind: %v", left)
	}
}
