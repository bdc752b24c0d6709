package tpu

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// observedPath is the table of layouts XLA wrote in real TPU HLO (see its README).
const observedPath = "../testdata/tpu-defaults/observed.tsv"

// observed is one row of observed.tsv: a distinct (shape, layout) XLA wrote.
type observed struct {
	text   string // dtype[dims]{layout}, without the memory space
	gen    string // "unknown" unless the source names the generation
	spaces []string
	source string
	files  []string
}

func readObserved(t *testing.T) []observed {
	t.Helper()
	f, err := os.Open(observedPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []observed
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != 8 {
			t.Fatalf("%s:%d: %d columns, want 8", observedPath, line, len(c))
		}
		rows = append(rows, observed{
			text: c[0] + "[" + c[1] + "]{" + c[2] + "}", gen: c[3],
			spaces: strings.Split(c[4], ","), source: c[6], files: strings.Fields(c[7]),
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// unitTestFiles hold layouts written by hand to test a parser, a printer or layout
// arithmetic (T(2,*,128), T(2,2), M(1024), …), not layouts a compiler chose.
var unitTestFiles = map[string]bool{
	"xla/hlo/parser/hlo_parser_test.cc": true,
	"xla/layout_util_test.cc":           true,
	"xla/shape_test.cc":                 true,
	"xla/shape_util.h":                  true,
	"xla/tests/test_utils_test.cc":      true,
	"xla/hlo/translate/hlo_to_mhlo/tests/import_entry_computation_layout.hlo":  true,
	"xla/hlo/translate/hlo_to_mhlo/tests/layouts_and_names.hlo":                true,
	"xla/hlo/translate/mhlo_to_hlo/tests/export_entry_computation_layout.mlir": true,
	"xla/hlo/translate/mhlo_to_hlo/module_attributes_exporter.cc":              true,
	"xla/service/memory_space_assignment/simulator_test.cc":                    true,
	"profiling.md": true, // scaling-book's f32[3,5]{1,0:T(2,2)} illustrates tiling
}

// divergences explains, one by one, the real (shape, layout) pairs that neither equal
// the default nor fall under a rule of classify. A stale entry fails the test.
var divergences = map[string]string{
	// 1-D and scalar 8-bit and pred: the dumps disagree (DefaultEvidence says guess).
	"s8[2]{0:T(128)}":   "8-bit 1-D left unpacked in one module; the default packs (T(512)(128)(4,1)); DefaultEvidence: guess",
	"pred[1]{0:T(128)}": "pred 1-D left unpacked in one module; DefaultEvidence: guess",
	"s8[]{:T(128)}":     "8-bit scalar as one 32-bit row in one module; DefaultEvidence: guess",
	"pred[]{:T(128)}":   "pred scalar as one 32-bit row (2 files); DefaultEvidence: guess",
	"pred[]{:T(256)}":   "pred scalar with a 256-element tile (3 files); DefaultEvidence: guess",
	"bf16[]{:T(128)}":   "bf16 scalar with a 128-element tile in one module",
	"f32[]{:T(8,128)}":  "a 2-D tile on a scalar, one module (hlo_dataflow_analysis_test)",
	// Layout assignment's choice of a smaller tile for a tensor it knows better.
	"f32[1024]{0:T(512)}":                            "1-D f32 with a 512-element tile in hlo_constant_splitter_test (the default, 8 rows, is T(1024))",
	"u32[2,8,128]{2,1,0:T(2,128)}":                   "RNG state: 2 rows of 8 chosen over T(8,128) in 2 files",
	"u32[4,8,128]{2,1,0:T(2,128)}":                   "RNG state: 2 rows of 8 chosen over T(8,128) in 2 files",
	"s32[1,8,128]{2,1,0:T(1,128)}":                   "one 128-wide row per tile chosen over T(8,128) in one module",
	"s32[32,16]{0,1:T(1,128)}":                       "one row per tile for a 16×32 s32 in its transposed order: one module copied into 6 hlo_diff tests",
	"bf16[1,1,16384,4,256]{4,3,1,2,0:T(8,128)(2,1)}": "a transposed copy kept T(8,128)(2,1) where its second-minor dim (4) would take T(4,128)(2,1): host offload test",
	"bf16[4,4,128,8]{2,0,1,3:T(8,128)(2,1)}":         "a transposed copy kept T(8,128)(2,1) where its second-minor dim (4) would take T(4,128)(2,1): host offload test",
	"bf16[1,1,16384,8,256]{4,3,2,1,0:T(4,128)(2,1)}": "T(4,128)(2,1) for 8 rows in a host offload test, also seen in host memory (S(5))",
	"s32[8,2]{1,0:T(2,128)}":                         "the tile of its {0,1} twin (s32[8,2]{0,1:T(2,128)}, which is the default) on the row-major order, one module",
	"s32[4,32]{1,0:T(1,128)}":                        "one row per tile where 4 rows would take T(4,128), one module (spmd_partitioner_test)",
	"s32[3,2]{0,1:T(128)}":                           "a 1-D tile on a 2-D s32 (SparseCore operand, SC annotation elsewhere in the module)",
	"f32[10,30,20]{2,0,1:T(256)}":                    "a 1-D tile on a 3-D array in one module (while_loop_fusible_sinking_test)",
	"f32[5,5,5]{2,0,1:T(256)}":                       "a 1-D tile on a 3-D array in one module",
	"bf16[1024,1024]{1,0:T(8,128)}":                  "bf16 without its (2,1) packing tile in a cost analysis test",
	"s32[4096,4096]{1,0:T(8,128)(4,1)}":              "s32 with an 8-bit (4,1) packing tile, one module: not a TPU layout for 32-bit data",
	"f32[200001,128]{1,0:T(8)L(1024)}":               "a 1-D tile with tail padding on a 2-D array, one module (algebraic_simplifier_test)",
	"f32[256,8]{1,0:T(8)}":                           "a 1-D tile on a 2-D array, one module",
}

// classify explains why XLA wrote row r's layout by rule: "" if it is DefaultLayout's,
// else a reason. ok is false when no rule explains it (divergences may).
func classify(r observed) (reason string, ok bool) {
	allUnit := true
	for _, f := range r.files {
		allUnit = allUnit && unitTestFiles[f]
	}
	if allUnit {
		return "hand-written in a parser or layout unit test", true
	}
	s, err := layout.Parse(r.text)
	if err != nil {
		return "", false
	}
	hbm := slices.Contains(r.spaces, "0")
	if !hbm {
		return "seen only outside HBM (S(" + strings.Join(r.spaces, ",") + ")): memory-space assignment's choice", true
	}
	// Compare the tiles with the default of the array in its physical order: an order
	// other than row-major is layout assignment's choice, not a default.
	phys := make([]int64, len(s.Dims))
	m2m := s.Layout.MinorToMajor
	for i := range phys {
		phys[i] = s.Dims[m2m[len(m2m)-1-i]]
	}
	rowMajor := slices.Equal(m2m, layout.RowMajor(len(s.Dims)))
	tilesOf := func(g Generation) (string, error) {
		l, err := DefaultLayout(g, s.DType, phys)
		if err != nil {
			return "", err
		}
		l.MinorToMajor = m2m
		return l.String(), nil
	}
	// The dumps of unknown generation fit the v4–v6e rule (v5e's); a named one is used.
	gen := V5e
	if r.gen != "unknown" {
		if gen, err = ParseGeneration(r.gen); err != nil {
			return "", false
		}
	}
	want, err := tilesOf(gen)
	if err != nil {
		return "", false
	}
	got := s.Layout.String()
	switch {
	case got == want && rowMajor:
		return "", true
	case got == want:
		return "layout assignment chose another order; the tiles are the default's for that order", true
	}
	if v3, _ := tilesOf(V3); got == v3 {
		return "the v2/v3 rule (smallest tile 2·32/bits rows): generation unknown", true
	}
	if x7, _ := tilesOf(TPU7x); got == x7 {
		return "the large second-minor rule (the TPU7x default, or the x16/x8/x4 flags)", true
	}
	return "", false
}

// TestDefaultsAgainstDumps is the table test of issue #31: every (shape, layout) XLA
// wrote in testdata/tpu-defaults either equals DefaultLayout for the v4–v6e rule (the
// dumps name no generation) or is explained here.
func TestDefaultsAgainstDumps(t *testing.T) {
	rows := readObserved(t)
	real, equal := 0, 0
	reasons := map[string]int{}
	used := map[string]bool{}
	for _, r := range rows {
		reason, ok := classify(r)
		if why, found := divergences[r.text]; found {
			used[r.text] = true
			if ok {
				t.Errorf("divergence %s is stale: %q explains it", r.text, reason)
			}
			reason, ok = why, true
		}
		if !ok {
			t.Errorf("%s (%s %v): differs from the default and is not explained", r.text, r.source, r.files)
			continue
		}
		if reason != "hand-written in a parser or layout unit test" {
			real++
		}
		if reason == "" {
			equal++
		}
		reasons[reason]++
	}
	for k := range divergences {
		if !used[k] {
			t.Errorf("divergence %s is not in the table (stale)", k)
		}
	}
	if real < 150 {
		t.Errorf("%d real (shape, layout) pairs, want at least 150", real)
	}
	t.Logf("%d rows, %d real pairs, %d equal to the default", len(rows), real, equal)
	for k, n := range reasons {
		t.Logf("%4d  %q", n, k)
	}
}

// TestScalarFilesRecount recounts scalarFiles, DefaultEvidence's tally of XLA files
// writing each scalar dtype with the default tile or another, from observed.tsv.
func TestScalarFilesRecount(t *testing.T) {
	agree := map[layout.DType]map[string]bool{}
	other := map[layout.DType]map[string]bool{}
	for _, r := range readObserved(t) {
		s, err := layout.Parse(r.text)
		if err != nil || len(s.Dims) != 0 || !slices.Contains(r.spaces, "0") {
			continue
		}
		def, err := DefaultLayout(V5e, s.DType, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := other
		if s.Layout.String() == def.String() {
			m = agree
		}
		if m[s.DType] == nil {
			m[s.DType] = map[string]bool{}
		}
		for _, f := range r.files {
			if !unitTestFiles[f] {
				m[s.DType][f] = true
			}
		}
	}
	got := map[layout.DType][2]int{}
	for dt, fs := range agree {
		got[dt] = [2]int{len(fs), len(other[dt])}
	}
	for dt, fs := range other {
		got[dt] = [2]int{len(agree[dt]), len(fs)}
	}
	for dt, n := range got {
		if scalarFiles[dt] != n {
			t.Errorf("%s[]: %d files agree with the default, %d write another tile; scalarFiles says %v", dt, n[0], n[1], scalarFiles[dt])
		}
	}
	for dt := range scalarFiles {
		if _, ok := got[dt]; !ok {
			t.Errorf("scalarFiles has %s, the table has no %s scalar", dt, dt)
		}
	}
}

// TestEightBitFilesRecount recounts eightBitFiles from observed.tsv.
func TestEightBitFilesRecount(t *testing.T) {
	files := [2]map[string]bool{{}, {}}
	for _, r := range readObserved(t) {
		s, err := layout.Parse(r.text)
		if err != nil || len(s.Dims) < 2 || len(s.Layout.Tiles) == 0 {
			continue
		}
		if s.DType != layout.S8 && s.DType != layout.U8 && s.DType != layout.Pred {
			continue
		}
		k := -1
		switch s.Layout.Tiles[0].String() {
		case "(8,128)":
			k = 0
		case "(32,128)":
			k = 1
		}
		for _, f := range r.files {
			if k >= 0 && !unitTestFiles[f] {
				files[k][f] = true
			}
		}
	}
	if got := [2]int{len(files[0]), len(files[1])}; got != eightBitFiles {
		t.Errorf("8-bit arrays: T(8,128)(4,1) in %d files, T(32,128)(4,1) in %d; eightBitFiles says %v", got[0], got[1], eightBitFiles)
	}
}

func TestDefaultEvidence(t *testing.T) {
	for _, c := range []struct {
		g     Generation
		s     string
		guess bool
	}{
		{V5e, "f32[1024,1024]", false},
		{V5e, "bf16[4096,4096]", false},
		{V6e, "bf16[2,8192]", false},
		{V5e, "s32[]", false},
		{V5e, "u32[]", false},
		{V5e, "bf16[]", false},
		{V5e, "f32[]", false}, // {:T(128)} in 15 files (v6e's memory stats: 512 bytes), {:T(256)} in 6
		{V5e, "s8[]", true},   // {:T(128)} and {:T(512)}
		{V5e, "pred[]", true}, // four different tiles
		{V5e, "f32[4096]", false},
		{V5e, "s8[2]", true},
		{V5e, "s8[4096,4096]", true}, // T(8,128) in dumps, T(32,128) in tpu_info.py
		{V5e, "s8[100,4096]", false}, // both rules give T(8,128)(4,1)
		{V5e, "s4[128,256]", true},
		{V5e, "s4[100,256]", true}, // both rules give T(8,128)(8,1), but 4-bit is in one module only
		{V5e, "f16[]", true},       // not in scalarFiles: f16[]{:T(256)} only in a unit test
		{V5e, "s4[]", true},
		{V5e, "f32[1,128]", false}, // f32[1,5]{1,0:T(1,128)} in the v6e dump
		{V5e, "f32[2,128]", false},
		{V3, "f32[1024,1024]", true},
		{TPU7x, "bf16[1024,1024]", true},
		{TPU8t, "f32[64,128]", true},
	} {
		s := layout.MustParse(c.s)
		e := DefaultEvidence(c.g, s.DType, s.Dims)
		if e.Guess != c.guess || e.Guess != (e.Why != "") {
			t.Errorf("%s %s: %+v, want guess %v", c.g, c.s, e, c.guess)
		}
	}
}

// TestFootprintsMatchMemoryStats reads footprints.tsv, the bytes XLA's buffer assignment
// allocated for each array of a v6e compiler dump, and checks them against the layout's
// footprint, and, where the layout is the generation's default, against the default's.
func TestFootprintsMatchMemoryStats(t *testing.T) {
	data, err := os.ReadFile("../testdata/tpu-defaults/footprints.tsv")
	if err != nil {
		t.Fatal(err)
	}
	checked, defaults := 0, map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) != 9 {
			t.Fatalf("footprints.tsv:%d: %d columns, want 9", i+1, len(c))
		}
		lay := c[2]
		if lay == ":" {
			lay = ""
		}
		text := c[0] + "[" + c[1] + "]"
		if lay != "" {
			text += "{" + lay + "}"
		}
		size, err := strconv.ParseInt(c[5], 10, 64)
		if err != nil {
			t.Fatalf("footprints.tsv:%d: size %q", i+1, c[5])
		}
		if lay == "" && c[4] == "0" && size == 4096 {
			continue // a reduction's thread-local value: one vreg, not an array buffer
		}
		s, err := layout.Parse(text)
		if err != nil {
			t.Errorf("footprints.tsv:%d: %s: %v", i+1, text, err)
			continue
		}
		ix, err := layout.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.FootprintBytes(); got != size {
			t.Errorf("%s in S(%s): footprint %d bytes, XLA allocated %d", text, c[4], got, size)
		}
		checked++
		g, err := ParseGeneration(c[3])
		if err != nil || c[4] != "0" {
			continue
		}
		if d, err := DefaultShape(g, s.DType, s.Dims); err == nil && d.String() == s.String() {
			defaults[text] = true
		}
	}
	// The scalars and the int8 array of the dump take their default layout, so the
	// image of a default conversion has the size XLA allocates.
	for _, want := range []string{"s32[]{:T(128)}", "f32[]{:T(128)}", "u32[]{:T(128)}", "s8[1,4,4]{2,1,0:T(4,128)(4,1)}", "s32[2048]{0:T(1024)}"} {
		if !defaults[want] {
			t.Errorf("%s is not among the default layouts with a size (%d sizes checked)", want, checked)
		}
	}
	t.Logf("%d sizes checked, %d of default layouts in HBM", checked, len(defaults))
}
