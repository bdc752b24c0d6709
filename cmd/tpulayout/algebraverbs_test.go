package main

import (
	"strings"
	"testing"
)

// The design note's §5 cases 3 (equal), 4 (copymap) and 6 (blocks, padding).
func TestAlgebraVerbTranscripts(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"equal", "f32[24,128]{1,0:T(8,128)}", "f32[24,128]{1,0}"}, 0, "equal: every element at the same offset, alloc 3072\n"},
		{[]string{"equal", "f32[4,8,256]{2,1,0:T(*,8,128)}", "f32[4,8,256]{2,1,0:T(8,128)}"}, 0, "equal: every element at the same offset, alloc 8192\n"},
		{[]string{"equal", "f32[300]{0:T(128)}", "f32[300]{0:T(256)}"}, 1, "same element map, alloc 384 vs 512\n"},
		{[]string{"equal", "f32[2,3,4]{2,1,0:T(8,128)}", "f32[2,3,4]{2,1,0}"}, 1, "differ: element [0,1,0] at offset 128 vs 4\n"},
		// A chain against one layout: compared element by element.
		{[]string{"equal", "f32[16,256]{1,0:T(8,128)(3,1)}", "f32[16,256]{1,0:T(8,128)}"}, 1, "differ: element [0,1] at offset 3 vs 1\n"},
		{[]string{"equal", "f32[16,256]{1,0:T(8,128)(3,1)}", "f32[16,256]{1,0:T(8,128)(3,1)}"}, 0, "equal: every element at the same offset, alloc 4608\n"},
		{[]string{"copymap", "f32[16,256]{1,0}", "f32[16,256]{1,0:T(8,128)}"}, 0,
			"copy map:   (128,2,8,2):(1,1024,128,2048)\nvector:     128 elements (512 bytes)\nbitcast:    no\nclass:      strided runs of 128 elements\n"},
		{[]string{"copymap", "f32[24,128]{1,0}", "f32[24,128]{1,0:T(8,128)}"}, 0,
			"copy map:   3072:1\nvector:     3072 elements (12288 bytes)\nbitcast:    yes\nclass:      bitcast\n"},
		{[]string{"copymap", "bf16[16,256]{1,0:T(8,128)}", "bf16[16,256]{1,0:T(8,128)(2,1)}"}, 0, "vector:     1 element (2 bytes)\n"},
		// Ragged padding at the end of the only dim: still a plain copy.
		{[]string{"copymap", "f32[300]{0}", "f32[300]{0:T(128)}"}, 0, "copy map:   300:1\nvector:     300 elements (1200 bytes)\nbitcast:    no\nclass:      memcpy\n"},
		{[]string{"blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "8,256"}, 0, "blocks:     2\nruns:       1 per block, 2048 elements (8192 bytes) each\n"},
		{[]string{"blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "16,128"}, 0, "blocks:     2\nruns:       2 per block, 1024 elements (4096 bytes) each\n"},
		{[]string{"blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "4,256"}, 0, "blocks:     4\nruns:       2 per block, 512 elements (2048 bytes) each\n"},
		{[]string{"blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "12,128"}, 1, "misaligned: block 12 not aligned to tile 8 (dim 0)\n"},
		{[]string{"padding", "f32[8,256]{0,1:T(8,128)}"}, 0, "padding:    30720 of 32768 elements (93.8%)\ncomplement: 16:8 (padding at layout(x)+complement(c), c ≥ 1)\n"},
		{[]string{"padding", "f32[300]{0:T(128)}"}, 0, "extents:    [384] for dims [300]\n"},
	} {
		out, errOut, code := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("tpulayout %q: exit %d (stderr %q), want %d; output lacks %q:\n%s", c.args, code, errOut, c.code, c.want, out)
		}
		if code == 1 && strings.Count(errOut, "\n") != 1 {
			t.Errorf("tpulayout %q: exit 1 with stderr %q, want one line", c.args, errOut)
		}
	}
}

func TestAlgebraVerbJSON(t *testing.T) {
	c := runJSON(t, "copymap", "f32[24,128]{1,0}", "f32[24,128]{1,0:T(8,128)}", "--json")
	if c["copy_map"] != "3072:1" || c["bitcast"] != true || num(t, c, "vector") != 3072 {
		t.Errorf("copymap --json: %v", c)
	}
	b := runJSON(t, "blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "16,128", "--json")
	if num(t, b, "blocks") != 2 || num(t, b, "runs") != 2 || num(t, b, "run_elements") != 1024 {
		t.Errorf("blocks --json: %v", b)
	}
	p := runJSON(t, "padding", "f32[8,256]{0,1:T(8,128)}", "--json")
	if num(t, p, "padding") != 30720 || p["complement"] != "16:8" {
		t.Errorf("padding --json: %v", p)
	}
	e := runJSON(t, "equal", "f32[24,128]{1,0:T(8,128)}", "f32[24,128]{1,0}", "--json")
	if e["equal"] != true || e["same_map"] != true {
		t.Errorf("equal --json: %v", e)
	}
}

func TestAlgebraVerbUsageErrors(t *testing.T) {
	wantUsageError(t, []string{"equal", "f32[2,3]{1,0}", "f32[3,2]{1,0}"}, "the dims differ: [2,3] vs [3,2]")
	wantUsageError(t, []string{"equal", "f32[2,3]{1,0}", "bf16[2,3]{1,0}"}, "element widths differ: 32 vs 16")
	wantUsageError(t, []string{"copymap", "f32[8,256]{0,1:T(8,128)}", "f32[8,256]{1,0}"}, "SRC", "has holes")
	wantUsageError(t, []string{"copymap", "f32[16,256]{1,0:T(8,128)(3,1)}", "f32[16,256]{1,0}"}, "not one layout", "tile 3 does not divide radix 8")
	wantUsageError(t, []string{"copymap", "f32[20,300]{1,0}", "f32[20,300]{1,0:T(8,128)}"}, "DST", "dim 0 (20) is not one layout without its padding to 24")
	wantUsageError(t, []string{"blocks", "f32[16,256]{1,0:T(8,128)}"}, "missing --block")
	wantUsageError(t, []string{"blocks", "f32[16,256]{1,0:T(8,128)}", "--block", "8"}, "1 entries for 2 dims")
	wantUsageError(t, []string{"blocks", "f32[24,256]{1,0:T(8,128)}", "--block", "16,256"}, "--block 16 does not divide dim 0 (24)")
}
