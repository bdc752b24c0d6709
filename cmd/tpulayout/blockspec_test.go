package main

import (
	"strings"
	"testing"
)

func TestBlockspecGolden(t *testing.T) {
	checkGolden(t, "blockspec_bf16_4096", mustRun(t, "blockspec", "--array", "bf16[4096,4096]", "--block", "256,512", "--gen", "v5e"))
}

func TestBlockspec(t *testing.T) {
	// An illegal block prints its report with the nearest legal shapes and exits 1.
	out, errOut, code := runCmd(t, "blockspec", "--array", "bf16[4096,4096]", "--block", "200,500", "--operands", "4")
	if code != exitMismatch || !strings.Contains(errOut, "500 is neither") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"legal: no: the last block dim must be a multiple of 128 or the array's 4096; 500 is neither",
		"one block: 204800 bytes (200 KiB) as bf16[200,500]{1,0:T(8,128)(2,1)}",
		"4 operands: 1638400 bytes (1.56 MiB), 1.22% of 128 MiB VMEM: fits",
		"grid: (21,9) = 189 steps; dim 0's last block holds 96 of 200, dim 1's last block holds 96 of 500",
		"nearest legal: 200,512 208,512 192,512",
	} {
		if !strings.Contains(collapse(out), want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// Legal but not native-aligned: 8 rows of bf16.
	got := mustRun(t, "blockspec", "--array", "bf16[4096,4096]", "--block", "(8, 4096)")
	if !strings.Contains(collapse(got), "native tile: (16,128): not aligned") || !strings.Contains(collapse(got), "nearest aligned: 16,4096") {
		t.Errorf("unaligned:\n%s", got)
	}
	// VMEM differs by generation: a whole 32 MiB block double-buffered fills v5p's 64 MiB.
	got = mustRun(t, "blockspec", "--array", "bf16[4096,4096]", "--block", "4096,4096", "--gen", "v5p", "--operands", "2")
	if !strings.Contains(collapse(got), "2 operands: 134217728 bytes (128 MiB), 200% of 64 MiB VMEM: does not fit") {
		t.Errorf("v5p:\n%s", got)
	}
	// Rank 1 and sub-byte; the array may be an HLO reference.
	out, _, code = runCmd(t, "blockspec", "--array", "s4[8192]", "--block", "512,")
	if code != exitMismatch || !strings.Contains(out, "power of two ≥ 1024 (128·8)") || !strings.Contains(out, "nearest legal:    1024  2048  8192") {
		t.Errorf("s4 rank 1: exit %d\n%s", code, out)
	}
	m := runJSON(t, "blockspec", "--array", "hlo:"+hloAfter+":param=2", "--block", "8,3,2048", "--json")
	if m["legal"] != true || num(t, m, "block_bytes") != 8*4*2048*2 || m["block_layout"] != "bf16[8,3,2048]{2,1,0:T(4,128)(2,1)}" {
		t.Errorf("json %v", m)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"blockspec", "--block", "8,128"}, "give the array and the block"},
		{[]string{"blockspec", "--array", "f32[8,128]", "--block", "8,x"}, `"x" is not a positive number`},
		{[]string{"blockspec", "--array", "f32[8,128]", "--block", "16,128"}, "larger than the array's 8"},
		{[]string{"blockspec", "--array", "f32[8,128]", "--block", "8"}, "the block has 1 dims, the array 2"},
		{[]string{"blockspec", "--array", "f32[]", "--block", "1"}, "rank ≥ 1"},
		{[]string{"blockspec", "--array", "f64[8,128]", "--block", "8,128"}, "f64"},
		{[]string{"blockspec", "--array", "f32[8,128", "--block", "8,128"}, "bad --array"},
		{[]string{"blockspec", "--array", "f32[8,128]", "--block", "8,128", "--gen", "v9"}, `bad --gen "v9"`},
		{[]string{"blockspec", "--array", "f32[8,128]", "--block", "8,128", "--operands", "0"}, "--operands must be 1 to 64"},
		{[]string{"blockspec", "extra", "--array", "f32[8,128]", "--block", "8,128"}, `unexpected argument "extra"`},
	} {
		wantUsageError(t, c.args, c.want)
	}
}
