package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
)

const (
	bf16Layout = "bf16[20,300]{1,0:T(8,128)(2,1)}"
	refF32     = fixtures + "f32_20x300.npy"
	goodBF16   = fixtures + "f32_20x300.bf16.T8x128_2x1.bin"
)

// validateJSON runs validate --json and returns the exit status and decoded report.
func validateJSON(t *testing.T, args ...string) (int, map[string]any) {
	t.Helper()
	out, errOut, code := runCmd(t, append([]string{"validate", "--json"}, args...)...)
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("validate %q: exit %d, stderr %q, stdout is not JSON: %v\n%s", args, code, errOut, err, out)
	}
	if code == 1 && strings.Count(errOut, "\n") != 1 {
		t.Errorf("validate %q: stderr %q is not one line", args, errOut)
	}
	return code, m
}

func TestValidateOK(t *testing.T) {
	out := mustRun(t, "validate", goodBF16, "--layout", bf16Layout, "--ref", refF32, "--check-padding")
	for _, want := range []string{"all 6000 match", "compared in bf16, exact", "16-bit (8,128) on v5e", "all 3216 padding elements are zero", "result:   OK"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output does not mention %q:\n%s", want, out)
		}
	}
	code, m := validateJSON(t, goodBF16, "--layout", bf16Layout, "--ref", refF32)
	if code != 0 || m["ok"] != true || m["elements"].(float64) != 6000 || m["mismatches"].(float64) != 0 ||
		m["diagnosis"] != nil || len(m["first"].([]any)) != 0 {
		t.Errorf("validate --json: exit %d, %v", code, m)
	}
	// The f32 image against the same reference, flags after the dump or before.
	mustRun(t, "validate", "--layout", "f32[20,300]{1,0:T(8,128)}", "--ref", refF32, fixtures+"f32_20x300.T8x128.bin")
	// A layout the TPU cannot load straight into vregs still validates.
	out = mustRun(t, "validate", fixtures+"f32_130x20.cm.T8x128.bin", "--layout", "f32[130,20]{0,1:T(8,128)}", "--ref", fixtures+"f32_130x20.npy")
	if !strings.Contains(out, "vregs:    none:") {
		t.Errorf("validate of a column-major layout:\n%s", out)
	}
	// The reference as a safetensors tensor, and as raw bytes in any layout.
	dir := t.TempDir()
	ref, err := npy.Read(refF32)
	if err != nil {
		t.Fatal(err)
	}
	st := filepath.Join(dir, "ref.safetensors")
	if err := safetensors.Write(st, []safetensors.NamedBuffer{{Name: "a", Buf: ref}, {Name: "b", Buf: ref}}, nil); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "validate", goodBF16, "--layout", bf16Layout, "--ref", st, "--tensor", "b")
	wantUsageError(t, []string{"validate", goodBF16, "--layout", bf16Layout, "--ref", st}, "2 tensors", "--tensor")
	mustRun(t, "validate", goodBF16, "--layout", bf16Layout, "--ref", fixtures+"f32_20x300.T8x128.bin", "--ref-shape", "f32[20,300]{1,0:T(8,128)}")
	// Two device images of the same values in different layouts.
	mustRun(t, "validate", goodBF16, "--layout", bf16Layout, "--ref", fixtures+"f32_20x300.bf16.T16x128_2x1.bin", "--ref-shape", "bf16[20,300]{1,0:T(16,128)(2,1)}")
}

// corrupt copies the good bf16 image to dir with the bytes at offs changed: byte 0 is
// element (0,0), byte 2 element (1,0), byte 2048+6 element (1,129).
func corrupt(t *testing.T, dir string, offs ...int) string {
	t.Helper()
	b := readFile(t, goodBF16)
	for _, o := range offs {
		b[o] ^= 0x55
	}
	p := filepath.Join(dir, "bad.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidateCorrupted(t *testing.T) {
	dir := t.TempDir()
	bad := corrupt(t, dir, 0, 2, 2048+6)
	code, m := validateJSON(t, bad, "--layout", bf16Layout, "--ref", refF32)
	if code != 1 || m["ok"] != false || m["mismatches"].(float64) != 3 {
		t.Fatalf("validate corrupted: exit %d, %v", code, m)
	}
	if f := m["mismatch_fraction"].(float64); f != 3.0/6000 {
		t.Errorf("mismatch_fraction = %v", f)
	}
	first := m["first"].([]any)
	if len(first) != 3 {
		t.Fatalf("first = %v", first)
	}
	// Where the mismatches are placed is validate's package test; here the CLI's wiring.
	e := first[2].(map[string]any)
	if b, _ := json.Marshal(e["index"]); string(b) != "[1,129]" || e["byte_offset"] != 2048.0+6 || e["sublane"] != 4.0 {
		t.Errorf("first[2] = %v", e)
	}
	d := m["diagnosis"].(map[string]any)
	if best := d["best"].(map[string]any); best["arrangement"] != "declared" {
		t.Errorf("diagnosis of a few corrupted bytes: %v", best)
	}
	// The text report.
	out, errOut, code := runCmd(t, "validate", bad, "--layout", bf16Layout, "--ref", refF32)
	if code != 1 || !strings.Contains(errOut, "3 of 6000 elements differ") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{"3 of 6000 differ (0.05%)", "first 3 mismatches", "index", "sublane", "(1,129)", "2054", "result:   MISMATCH", "diagnosis: declared"} {
		if !strings.Contains(out, w) {
			t.Errorf("report does not mention %q:\n%s", w, out)
		}
	}
	// --max limits the list.
	if _, m := validateJSON(t, bad, "--layout", bf16Layout, "--ref", refF32, "--max", "1"); len(m["first"].([]any)) != 1 {
		t.Errorf("--max 1: first = %v", m["first"])
	}
	if _, m := validateJSON(t, bad, "--layout", bf16Layout, "--ref", refF32, "--max", "0"); len(m["first"].([]any)) != 0 {
		t.Errorf("--max 0: first = %v", m["first"])
	}
}

// TestValidateDiagnosis checks that dumps written in a wrong arrangement are named.
func TestValidateDiagnosis(t *testing.T) {
	dir := t.TempDir()
	// Without pair packing: NumPy's T(8,128) image of the bf16 values.
	code, m := validateJSON(t, fixtures+"f32_20x300.bf16.T8x128.bin", "--layout", bf16Layout, "--ref", refF32)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	best := m["diagnosis"].(map[string]any)["best"].(map[string]any)
	if best["arrangement"] != "no-packing" || best["fraction"] != 1.0 {
		t.Errorf("no-packing dump diagnosed as %v", best)
	}
	out, errOut, _ := runCmd(t, "validate", fixtures+"f32_20x300.bf16.T8x128.bin", "--layout", bf16Layout, "--ref", refF32)
	if !strings.Contains(out, "diagnosis: no-packing") || !strings.Contains(errOut, "looks like no-packing") {
		t.Errorf("no-packing report:\n%s\nstderr %q", out, errOut)
	}
	// Other wrong arrangements made with convert itself.
	for _, c := range []struct{ written, want string }{
		{"bf16[20,300]{1,0}", "untiled"},
		{"bf16[20,300]{1,0:T(16,128)(2,1)}", "first-tile"},
		{"bf16[20,300]{1,0:T(8,128)(2,1,1,1)}", "stacked-rows"},
	} {
		dump := filepath.Join(dir, "dump.bin")
		mustRun(t, "convert", refF32, dump, "--to", c.written)
		ix, _ := layout.Compile(layout.MustParse(c.written))
		want, _ := layout.Compile(layout.MustParse(bf16Layout))
		if ix.FootprintBytes() != want.FootprintBytes() {
			// Resize to the declared footprint: truncate or zero-extend.
			b := readFile(t, dump)
			b = append(b, make([]byte, max(0, want.FootprintBytes()-int64(len(b))))...)[:want.FootprintBytes()]
			os.WriteFile(dump, b, 0o644)
		}
		code, m := validateJSON(t, dump, "--layout", bf16Layout, "--ref", refF32)
		best := m["diagnosis"].(map[string]any)["best"].(map[string]any)
		if code != 1 || best["arrangement"] != c.want {
			t.Errorf("dump written as %s: exit %d, diagnosed %v, want %s", c.written, code, best, c.want)
		}
	}
}

func TestValidateTolerance(t *testing.T) {
	dir := t.TempDir()
	// Element (0,0) one bf16 ulp off: add 1 to its 16 bits (bytes 0 and 1).
	b := readFile(t, goodBF16)
	v := uint16(b[0]) | uint16(b[1])<<8 + 1
	b[0], b[1] = byte(v), byte(v>>8)
	dump := filepath.Join(dir, "ulp.bin")
	os.WriteFile(dump, b, 0o644)
	args := []string{"validate", dump, "--layout", bf16Layout, "--ref", refF32}
	if _, _, code := runCmd(t, args...); code != 1 {
		t.Errorf("1 ulp off, exact: exit %d, want 1", code)
	}
	out := mustRun(t, append(args, "--tol", "ulp=1")...)
	if !strings.Contains(out, "1 within tolerance") || !strings.Contains(out, "tolerance ulp=1") {
		t.Errorf("--tol ulp=1:\n%s", out)
	}
	mustRun(t, append(args, "--tol", "abs=0.1")...)
	mustRun(t, append(args, "--tol", "rel=0.05")...)
	mustRun(t, append(args, "--tol", "abs=0,rel=0.05", "--tol", "ulp=0")...)
	if _, _, code := runCmd(t, append(args, "--tol", "abs=1e-9")...); code != 1 {
		t.Errorf("--tol abs=1e-9: exit %d, want 1", code)
	}
	wantUsageError(t, append(args, "--tol", "ulp=x"), "ulp=x")
	wantUsageError(t, append(args, "--tol", "abs"), "K=V")
	wantUsageError(t, append(args, "--tol", "big=1"), `unknown tolerance "big"`)
	wantUsageError(t, append(args, "--tol", "rel=-1"), "≥ 0")
}

func TestValidatePadding(t *testing.T) {
	dir := t.TempDir()
	// Row 20..23 of the first tile column is padding: byte offset of element (20,0)'s
	// slot would be tile (2,0) word 2*128... use the last byte of the image instead.
	b := readFile(t, goodBF16)
	b[len(b)-1] = 0x7f
	dump := filepath.Join(dir, "pad.bin")
	os.WriteFile(dump, b, 0o644)
	args := []string{"validate", dump, "--layout", bf16Layout, "--ref", refF32}
	mustRun(t, args...) // padding is ignored by default
	code, m := validateJSON(t, append(args[1:], "--check-padding")...)
	if code != 1 || m["padding_mismatches"].(float64) != 1 || m["mismatches"].(float64) != 0 {
		t.Fatalf("--check-padding: exit %d, %v", code, m)
	}
	fp := m["first_padding"].([]any)[0].(map[string]any)
	if fp["byte_offset"].(float64) != float64(len(b)-2) || fp["bits"] != "0x7f00" {
		t.Errorf("first_padding = %v", fp)
	}
	out, errOut, _ := runCmd(t, append(args, "--check-padding")...)
	if !strings.Contains(out, "1 of 3216 padding elements are not zero") || !strings.Contains(errOut, "padding") {
		t.Errorf("--check-padding report:\n%s\nstderr %q", out, errOut)
	}
}

// An s8 image made by convert from an f32 .npy matches it (compared in s8, as convert
// converts); an integer error is a difference, not ulps (issue #14 item 3).
func TestValidateIntegerImage(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "s8.bin")
	mustRun(t, "convert", refF32, dump, "--to", "s8[20,300]")
	out := mustRun(t, "validate", dump, "--layout", "s8[20,300]", "--ref", refF32)
	if !strings.Contains(out, "compared in s8, exact") || !strings.Contains(out, "all 6000 match") {
		t.Errorf("s8 image of the reference:\n%s", out)
	}
	b := readFile(t, dump)
	b[0] += 3
	os.WriteFile(dump, b, 0o644)
	out, _, code := runCmd(t, "validate", dump, "--layout", "s8[20,300]", "--ref", refF32)
	if code != 1 || !strings.Contains(out, "1 of 6000 differ (0.02%); largest difference 3\n") || strings.Contains(out, "ulp") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
