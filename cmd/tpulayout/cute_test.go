package main

import (
	"strings"
	"testing"
)

// The design note's §5 cases 1-2 (cute) and 5 (whereis), as transcripts.
func TestCuteTranscripts(t *testing.T) {
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"cute", "f32[16,256]{1,0:T(8,128)}"}, []string{
			"cute:       ((8,2),(128,2)):((128,2048),(1,1024))\n",
			"alloc:      4096 elements of 32 bits (16384 bytes)\n"}},
		{[]string{"cute", "f32[8,256]{0,1:T(8,128)}"}, []string{
			"cute:       (8,(8,32)):(1,(128,1024))\n",
			"coalesced:  (8,256):(1,128)\n",
			"cosize:     32648\n",
			"alloc:      32768 elements",
			"padding:    30720 elements, complement 16:8\n"}},
		{[]string{"cute", "bf16[16,256]{1,0:T(8,128)(2,1)}", "--words"}, []string{
			"cute:       ((2,4,2),(128,2)):((1,256,2048),(2,1024))\n",
			"words:      ((4,2),(128,2)):((128,1024),(1,512))\n"}},
		{[]string{"cute", "f32[16,256]{1,0:T(8,128)(3,1)}"}, []string{
			"chain:      tile 3 does not divide radix 8\n",
			"alloc:      4608 elements",
			"  T(3,1)         ((1,128),(3,3),2,2):((1,3),(1,384),1152,2304)\n"}},
		{[]string{"cute", "f32[300]{0:T(128)}"}, []string{
			"cute:       (128,3):(1,128)\n", "coalesced:  300:1\n", "extents:    [384]\n", "padding:    84 elements"}},
		{[]string{"whereis", "f32[16,256]{1,0:T(8,128)}", "--byte", "6660"}, []string{"byte 6660: element 1665: [5,129]\n"}},
		{[]string{"whereis", "f32[8,256]{0,1:T(8,128)}", "--element", "200"}, []string{"element 200: padding\n"}},
		{[]string{"whereis", "f32[8,256]{0,1:T(8,128)}", "--element", "129"}, []string{"element 129: [1,1]\n"}},
		{[]string{"whereis", "s4[8,8]{1,0:E(4)}", "--byte", "3"}, []string{"byte 3: element 6: [0,6]\nbyte 3: element 7: [0,7]\n"}},
		// A chain: the same answers as explain --offset (layout's own inverse).
		{[]string{"whereis", "f32[16,256]{1,0:T(8,128)(3,1)}", "--element", "4"}, []string{"element 4: [1,1]\n"}},
		{[]string{"whereis", "f32[16,256]{1,0:T(8,128)(3,1)}", "--element", "770"}, []string{"element 770: padding\n"}},
	} {
		out := mustRun(t, c.args...)
		for _, w := range c.wants {
			if !strings.Contains(out, w) {
				t.Errorf("tpulayout %q lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

func TestCuteJSON(t *testing.T) {
	m := runJSON(t, "cute", "f32[8,256]{0,1:T(8,128)}", "--json")
	if m["one"] != "(8,(8,32)):(1,(128,1024))" || m["coalesced"] != "(8,256):(1,128)" || m["complement"] != "16:8" {
		t.Errorf("cute --json: %v", m)
	}
	if num(t, m, "alloc") != 32768 || num(t, m, "padding") != 30720 || num(t, m, "cosize") != 32648 {
		t.Errorf("cute --json: %v", m)
	}
	c := runJSON(t, "cute", "f32[16,256]{1,0:T(8,128)(3,1)}", "--json")
	if _, ok := c["one"]; ok || c["reason"] != "tile 3 does not divide radix 8" || num(t, c, "alloc") != 4608 {
		t.Errorf("cute --json of a chain: %v", c)
	}
	w := runJSON(t, "whereis", "f32[16,256]{1,0:T(8,128)}", "--byte", "6660", "--json")
	els, _ := w["elements"].([]any)
	if len(els) != 1 || num(t, w, "byte") != 6660 {
		t.Fatalf("whereis --json: %v", w)
	}
	e := els[0].(map[string]any)
	if num(t, e, "element") != 1665 || e["padding"] != false || len(e["index"].([]any)) != 2 {
		t.Errorf("whereis --json: %v", e)
	}
}

func TestCuteUsageErrors(t *testing.T) {
	wantUsageError(t, []string{"cute"}, "missing SHAPE")
	wantUsageError(t, []string{"cute", "f32[2,0]{1,0}"}, "dimension 1")
	wantUsageError(t, []string{"cute", "f32[16,256]{1,0}", "--words"}, "32-bit")
	wantUsageError(t, []string{"whereis", "f32[8,256]{0,1:T(8,128)}"}, "--byte N and --element N")
	wantUsageError(t, []string{"whereis", "f32[8,256]{0,1:T(8,128)}", "--byte", "1", "--element", "1"}, "--byte N and --element N")
	wantUsageError(t, []string{"whereis", "f32[8,256]{0,1:T(8,128)}", "--element", "32768"}, "outside the allocation of 32768 elements")
	wantUsageError(t, []string{"whereis", "f32[8,256]{0,1:T(8,128)}", "--byte", "x"}, `bad --byte "x"`)
}
