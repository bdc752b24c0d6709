package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	hloAfter  = "../../hlo/testdata/train_step.after_optimizations.txt"
	hloBefore = "../../hlo/testdata/train_step.before_optimizations.txt"
)

// checkGolden compares got with testdata/NAME.golden; -update rewrites it.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("got:\n%s\nwant (%s):\n%s", got, path, want)
	}
}

func TestHLOGolden(t *testing.T) {
	checkGolden(t, "hlo_after", mustRun(t, "hlo", hloAfter))
	checkGolden(t, "hlo_after_all_padding", mustRun(t, "hlo", hloAfter, "--all", "--sort", "padding"))
	checkGolden(t, "hlo_before", mustRun(t, "hlo", hloBefore))
}

func TestHLOToDefaults(t *testing.T) {
	got := mustRun(t, "hlo", hloBefore, "--to", "tpu:v5e", "--sort", "padding")
	for _, want := range []string{
		"param 1 Arg_1.2 f32[8,3,1000] {2,1,0:T(4,128)} * 96000 131072 1.37x",
		"result {0} tuple.17 bf16[512,2048] {1,0:T(8,128)(2,1)} * 2097152 2097152 1.00x",
		// Scalars are tiled on a TPU: one (1,128) tile of 32-bit words, 512 bytes.
		"param 3 Arg_3.4 s32[] {:T(128)} * 4 512 128.00x",
		"param 4 Arg_4.5 s8[1024,1000] {1,0:T(8,128)(4,1)} * 1024000 1048576 1.02x",
		"total: 8 arrays, 43067048 bytes logical, 45224960 bytes footprint, 1.05x",
		"*: the dump has no tiled layout here",
	} {
		if !strings.Contains(collapse(got), want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	// A tiled dump keeps its own layouts.
	if got := mustRun(t, "hlo", hloAfter, "--to", "tpu:7x"); got != mustRun(t, "hlo", hloAfter) {
		t.Errorf("--to changed a tiled dump:\n%s", got)
	}
	wantUsageError(t, []string{"hlo", hloBefore, "--to", "v5e"}, `bad --to "v5e"`)
}

func TestHLORows(t *testing.T) {
	m := runJSON(t, "hlo", hloAfter, "--sort", "padding", "--json")
	rows := m["rows"].([]any)
	if len(rows) != 13 {
		t.Fatalf("%d rows, want 6 parameters and 7 results", len(rows))
	}
	first := rows[0].(map[string]any)
	if first["name"] != "Arg_3.4" || first["layout"] != "{:T(128)}" || num(t, first, "footprint_bytes") != 512 {
		t.Errorf("worst row %v", first)
	}
	if num(t, m, "total_logical_bytes") != 83012940 || num(t, m, "total_footprint_bytes") != 87303680 {
		t.Errorf("totals %v %v", m["total_logical_bytes"], m["total_footprint_bytes"])
	}
}

func TestHLOBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(hloAfter)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	truncated := write("truncated.txt", string(good[:len(good)-200]))
	wantUsageError(t, []string{"hlo", truncated}, "truncated.txt: line 36", "never closed", "truncated?")
	wantUsageError(t, []string{"hlo", write("npy.txt", "\x93NUMPY\x01\x00v\x00{'descr': '<f4'}")}, "byte 7 is NUL: it is not a text file")
	wantUsageError(t, []string{"hlo", write("empty.txt", "")}, "expected 'HloModule name'")
	wantUsageError(t, []string{"hlo", write("nocomp.txt", "HloModule m, is_scheduled=true\n")}, "no computations")
	wantUsageError(t, []string{"hlo", write("badshape.txt", "HloModule m\nENTRY e {\n  ROOT p = bf16[8,128]{1,0:T(8,128)(2,1} parameter(0)\n}\n")}, "line 3, col 40", "unbalanced")
	wantUsageError(t, []string{"hlo", filepath.Join(dir, "missing.txt")}, "cannot read MODULE", "missing.txt")
	wantUsageError(t, []string{"hlo", hloAfter, "--sort", "size"}, `unknown --sort "size"`)

	// An unknown opcode is read, and named in a note.
	got := mustRun(t, "hlo", write("unknown.txt", "HloModule m\nENTRY e {\n  p = f32[8,1000]{1,0:T(8,128)} parameter(0)\n  ROOT q = f32[8,1000]{1,0:T(8,128)} frobnicate(p)\n}\n"))
	if !strings.Contains(collapse(got), "param 0 p f32[8,1000] {1,0:T(8,128)} 32000 32768 1.02x") ||
		!strings.Contains(got, "note: 1 opcode XLA does not define, read anyway: frobnicate (line 4)") {
		t.Errorf("unknown opcode:\n%s", got)
	}
	// No ENTRY: the last computation, as XLA does, and said so.
	got = mustRun(t, "hlo", write("noentry.txt", "HloModule m\nadd {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\nmain {\n  ROOT p = bf16[3,5]{1,0:T(8,128)(2,1)} parameter(0)\n}\n"))
	if !strings.Contains(got, "entry computation main (no ENTRY: the last computation, as XLA takes it)") ||
		!strings.Contains(collapse(got), "param 0 p bf16[3,5] {1,0:T(8,128)(2,1)} 30 2048 68.27x") {
		t.Errorf("no ENTRY:\n%s", got)
	}
}

// TestPastedShapes: every verb that takes a shape takes an HLO line, a tuple element
// or an hlo: reference.
func TestPastedShapes(t *testing.T) {
	want := "bf16[512,3,2048]{2,1,0:T(4,128)(2,1)}"
	line := `%Arg_2.3 = bf16[512,3,2048]{2,1,0:T(4,128)(2,1)} parameter(2), sharding={devices=[2,1]0,1}, metadata={op_name="qkv" source_file="t.py" source_line=3}, frontend_attributes={_xla_compute_type="tpu"}`
	for _, arg := range []string{
		want,
		line,
		"ROOT " + line,
		"(s32[]{:T(128)}, f32[8]{0}, /*index=2*/" + want + ") {2}",
		"%t = (s32[]{:T(128)}, (f32[8]{0}, " + want + ")) tuple(%a, %b), metadata={op_name=\"x\"} {1,1}",
		"(" + want + ")",
		"hlo:" + hloAfter + ":param=2",
		"hlo:" + hloAfter + ":result=2",
	} {
		m := runJSON(t, "info", arg, "--json")
		if m["shape"] != want {
			t.Errorf("info %q: shape %v", arg, m["shape"])
		}
		if got := mustRun(t, "explain", arg, "1,2,3"); !strings.Contains(got, want) {
			t.Errorf("explain %q:\n%s", arg, got)
		}
	}
	for _, c := range []struct {
		arg  string
		want []string
	}{
		{"(f32[8]{0}, s32[])", []string{"tuple of 2 elements", "{0} f32[8]{0}, {1} s32[]"}},
		{"(f32[8]{0}, s32[]) {2}", []string{"shape index {2}", "has 2 elements"}},
		{"f32[8]{0} {0}", []string{`at byte 10`}},
		{"f32[8,8]{1,1}", []string{"at byte 11", "repeats dimension 1"}},
		{"%p = f32[8]{0} parameter(0), metadata={", []string{"bad HLO instruction", "col 39", "never closed"}},
		{"%p = f32[8]{5} parameter(0)", []string{"bad HLO instruction", "col 13"}},
		{"hlo:" + hloAfter + ":param=6", []string{"no parameter 6 (it has 6)"}},
		{"hlo:" + hloAfter + ":result=7", []string{"has 7 results, so no result 7"}},
		{"hlo:" + hloAfter, []string{"hlo:MODULE.txt:param=N"}},
	} {
		wantUsageError(t, []string{"info", c.arg}, c.want...)
	}
}

func TestHLOTupleParameter(t *testing.T) {
	const scan = "../../hlo/testdata/scan.after_optimizations.txt"
	checkGolden(t, "hlo_scan", mustRun(t, "hlo", scan))
	m := runJSON(t, "info", "hlo:"+scan+":param=0 {1}", "--json")
	if m["shape"] != "bf16[16,1024]{1,0:T(16,128)(2,1)}" {
		t.Errorf("param 0 {1}: %v", m["shape"])
	}
	wantUsageError(t, []string{"info", "hlo:" + scan + ":param=0"}, "tuple of 3 elements", "{1} bf16[16,1024]")
	wantUsageError(t, []string{"info", "hlo:" + scan + ":param=0 {3}"}, "has 3 elements")
}

func TestConvertToHLOParam(t *testing.T) {
	dir := t.TempDir()
	mod := filepath.Join(dir, "m.txt")
	if err := os.WriteFile(mod, []byte("HloModule m\nENTRY e {\n  p0 = f32[20,300]{1,0:T(8,128)} parameter(0), sharding={replicated}\n  ROOT n = f32[20,300]{1,0:T(8,128)} negate(p0)\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bin")
	got := mustRun(t, "convert", "testdata/convert/f32_20x300.npy", out, "--to", "hlo:"+mod+":param=0")
	if got != "f32[20,300]{1,0:T(8,128)}\n" {
		t.Errorf("convert printed %q", got)
	}
	want := mustRun(t, "convert", "testdata/convert/f32_20x300.npy", filepath.Join(dir, "ref.bin"), "--to", "tpu:v5e")
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(filepath.Join(dir, "ref.bin"))
	if want != got || string(a) != string(b) || len(a) != 24*384*4 {
		t.Errorf("the image differs from --to tpu:v5e (%d and %d bytes)", len(a), len(b))
	}
	// And back, reading the raw image with --from the same reference.
	back := filepath.Join(dir, "back.npy")
	mustRun(t, "convert", out, back, "--from", "hlo:"+mod+":param=0")
	wantUsageError(t, []string{"convert", "testdata/convert/f32_20x300.npy", out, "--to", "hlo:" + mod + ":param=1"}, "no parameter 1")
}

// collapse joins the words of s with single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestInfoInsight(t *testing.T) {
	// --to tpu:GEN reports on the generation's default layout for the dtype and dims.
	got := mustRun(t, "info", "--to", "tpu:v5e", "bf16[512,3,2048]")
	for _, want := range []string{
		"shape: bf16[512,3,2048]{2,1,0:T(4,128)(2,1)}",
		"footprint: 4194304 elements, 8388608 bytes",
		"expansion: 1.33x (footprint / logical bytes)",
		"default (v5e): bf16[512,3,2048]{2,1,0:T(4,128)(2,1)}, 8388608 bytes, 1.33x (this layout)",
		"cheapest (v5e): bf16[512,3,2048]{2,0,1:T(8,128)(2,1)}, 6291456 bytes, 1.00x, dims 1,0,2 major to minor",
		"row blocks: no: row-major neighbours are never neighbours here",
	} {
		if !strings.Contains(collapse(got), want) {
			t.Errorf("info --to tpu:v5e: no %q in\n%s", want, got)
		}
	}
	// From TPU7x bf16 gets T(16,128)(2,1), and 16 rows of 3 cost more.
	got = mustRun(t, "info", "bf16[512,3,2048]", "--to", "tpu:7x")
	if !strings.Contains(collapse(got), "default (7x): bf16[512,3,2048]{2,1,0:T(4,128)(2,1)}") {
		t.Errorf("7x:\n%s", got)
	}
	for _, c := range []struct{ shape, want string }{
		{"f32[4096,128]{1,0:T(8,128)}", "yes: the same bytes as the row-major array, one copy of 2097152 bytes"},
		{"f32[1000,100]{1,0:T(8,128)}", "yes, in blocks of 1 row: 100 elements, 400 bytes, contiguous in both; 1000 blocks"},
		{"f32[64,128]{1,0:T(8,128)}", "one copy of 32768 bytes"},
		{"f32[64,256]{1,0:T(8,128)}", "only in pieces of rows: 128 elements, 512 bytes from each row's start, contiguous in both (a row's last piece may be shorter); 128 pieces"},
		{"f32[8,3,1000]{2,1,0:T(4,128)}", "only in pieces of rows: 128 elements, 512 bytes from each row's start"},
		{"f32[4096,4096]{1,0}", "one copy of 67108864 bytes"},
		{"s8[64,512]{1,0:T(32,128)(4,1)}", "no: row-major neighbours"},
		{"f32[8,3,1000]{2,1,0}", "cheapest (v5e): f32[8,3,1000]{2,1,0:T(1,128)}, 98304 bytes, 1.02x, dims 0,1,2 major to minor f32[8,3,1000]{2,0,1:T(8,128)}, 98304 bytes"},
		{"f64[3,5]", "v5e: no TPU layout: f64 (64 bits) has no TPU vreg layout"},
		{"u32[]", "a scalar: copy its one element"},
		{"f32[0,5]{1,0:T(8,128)}", "padding: 0 elements, 0% of the footprint expansion: none: the array is empty"},
	} {
		if got := mustRun(t, "info", c.shape); !strings.Contains(collapse(got), c.want) {
			t.Errorf("info %s: no %q in\n%s", c.shape, c.want, got)
		}
	}
	m := runJSON(t, "info", "f32[1000,100]{1,0:T(8,128)}", "--gen", "v4", "--json")
	if m["generation"] != "v4" || m["expansion"] == nil || m["cheapest"] == nil || m["default_layout"] == nil {
		t.Errorf("json %v", m)
	}
	rb := m["host_row_blocks"].(map[string]any)
	if num(t, rb, "run") != 100 || num(t, rb, "rows") != 1 || num(t, rb, "pieces") != 1000 || num(t, rb, "bytes") != 400 {
		t.Errorf("host_row_blocks %v", rb)
	}
	wantUsageError(t, []string{"info", "bf16[8,128]", "--to", "f32[8,128]"}, "info --to takes tpu:GEN")
	wantUsageError(t, []string{"info", "bf16[8,128]", "--to", "tpu:v99"}, `bad --to "tpu:v99"`)
	wantUsageError(t, []string{"info", "bf16[8,128]", "--gen", "v99"}, `bad --gen "v99"`)
	wantUsageError(t, []string{"info", "bf16[8,128]", "--to", "tpu:v4", "--gen", "v5e"}, "disagree")
	wantUsageError(t, []string{"info", "f64[8,128]", "--to", "tpu:v5e"}, "no default v5e layout for f64[8,128]")
}

// A module written before layout assignment holds the real layouts in its header:
// they are the ones reported, and the body's are named where they differ (issue #26).
func TestHLOEntryComputationLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.txt")
	text := "HloModule m, entry_computation_layout={(f32[784,128]{1,0:T(8,128)}, s32[]{:T(128)})->(f32[784,128]{1,0:T(8,128)}, f32[])}\n" +
		"ENTRY e {\n  p = f32[784,128]{1,0} parameter(0)\n  q = s32[]{:T(128)} parameter(1)\n  n = negate(p)\n  ROOT t = tuple(n, f32[] %q)\n}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := collapse(mustRun(t, "hlo", path))
	for _, want := range []string{
		"param 0 p f32[784,128] {1,0:T(8,128)} 401408 401408 1.00x",
		"result {0} t f32[784,128] {1,0:T(8,128)} 401408 401408 1.00x",
		"entry parameters and results: the layouts of the entry_computation_layout header",
		"note: header and body differ: param 0 p: f32[784,128]{1,0} in the body",
		"note: header and body differ: result {0} t: f32[784,128]{1,0} in the body",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "no tiled layouts") || strings.Contains(got, "param 1 q: ") {
		t.Errorf("wrong notes in\n%s", got)
	}
	if got := mustRun(t, "info", "hlo:"+path+":param=0"); !strings.Contains(got, "T(8,128)") {
		t.Errorf("hlo:…:param=0 did not take the header's layout:\n%s", got)
	}
	all := collapse(mustRun(t, "hlo", path, "--all"))
	if !strings.Contains(all, "negate e/n f32[784,128] {1,0} (inferred)") || !strings.Contains(all, "tuple{1} e/t f32[] {} (inferred)") {
		t.Errorf("--all:\n%s", all)
	}
}

func TestHLOShapeNotWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.txt")
	text := "ENTRY e {\n  p = f32[8,8]{1,0} parameter(0)\n  ROOT d = dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := collapse(mustRun(t, "hlo", path, "--all"))
	for _, want := range []string{"module (no HloModule line), entry computation e", "dot e/d - shape not written - - -"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if _, errOut, code := runCmd(t, "info", "hlo:"+path+":result=0"); code == 0 || !strings.Contains(errOut, "no shape written") {
		t.Errorf("info of an unwritten result: exit %d, %q", code, errOut)
	}
}

// A header that lists other parameters than the body has is said, and the body's
// shapes are kept for them.
func TestHLOEntryComputationLayoutMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.txt")
	text := "HloModule m, entry_computation_layout={(f32[8]{0:T(128)}, f32[8]{0})->(f32[8]{0:T(128)}, f32[8]{0})}\n" +
		"ENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := collapse(mustRun(t, "hlo", path))
	for _, want := range []string{
		"param 0 p f32[8] {0} 32 32 1.00x",
		"result {0} p f32[8] {0:T(128)} 32 512 16.00x",
		"result {1} p f32[8] {0} 32 32 1.00x",
		"note: the entry_computation_layout header lists 2 parameters, the entry computation e has 1 parameter",
		"note: header and body differ: result {0} p: no such element (the body's is f32[8]{0}) in the body",
		"note: header and body differ: result {1} p: no such element (the body's is f32[8]{0}) in the body",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}
