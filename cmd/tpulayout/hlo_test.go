package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
