package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// hloCorpus is testdata/hlo: real modules from XLA's own tests (see its README).
const hloCorpus = "../testdata/hlo"

// footprintBytes works a layout's footprint out from the spec's definition, apart
// from the layout package's compiled index math: physical dims major to minor; the
// first tile's '*' entries merge their dims into the next more minor one; each tile
// (t0…tk-1) turns the k most minor dims d into ceil(d/t) followed by t (padding the
// shape with leading 1s when it has fewer dims); the product of the last shape,
// rounded up to L(n) when tiled (XLA's ArraySize ignores L(n) on an untiled layout),
// at E(n) or the type's bits per element.
func footprintBytes(s layout.Shape) int64 {
	l := s.Layout
	rank := len(s.Dims)
	m2m := l.MinorToMajor
	if m2m == nil {
		m2m = layout.RowMajor(rank)
	}
	shape := make([]int64, rank)
	for j := range shape {
		shape[j] = s.Dims[m2m[rank-1-j]]
	}
	for i, t := range l.Tiles {
		for len(shape) < len(t) {
			shape = append([]int64{1}, shape...)
		}
		if i == 0 && slices.Contains(t, layout.Combined) {
			off := len(shape) - len(t)
			merged, rest := shape[:off:off], layout.Tile{}
			carry := int64(1)
			for k, d := range shape[off:] {
				if t[k] == layout.Combined {
					carry *= d
					continue
				}
				merged, rest, carry = append(merged, carry*d), append(rest, t[k]), 1
			}
			shape, t = merged, rest
		}
		n, k := len(shape), len(t)
		next := append([]int64{}, shape[:n-k]...)
		for j := range t {
			next = append(next, (shape[n-k+j]+t[j]-1)/t[j])
		}
		shape = append(next, t...)
	}
	elems := int64(1)
	for _, d := range shape {
		elems *= d
	}
	if a := l.TailPadding; a > 1 && len(l.Tiles) > 0 {
		elems = (elems + a - 1) / a * a
	}
	bits := int64(s.DType.StorageBits())
	if l.ElementBits > 0 {
		bits = l.ElementBits
	}
	return (elems*bits + 7) / 8
}

// checkOffsets checks a small array against the per-element oracle: every logical
// element has its own offset, inside the footprint.
func checkOffsets(t *testing.T, where string, s layout.Shape, footBytes int64) {
	ix, err := layout.Compile(s)
	if err != nil {
		t.Errorf("%s: %s: %v", where, s, err)
		return
	}
	n := ix.LogicalElements()
	if n > 1<<14 {
		return
	}
	seen := make(map[int64]bool, n)
	idx := make([]int64, len(s.Dims))
	for e := int64(0); e < n; e++ {
		rem := e
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d] = rem % s.Dims[d]
			rem /= s.Dims[d]
		}
		off := ix.BitOffset(idx)
		if off < 0 || (off+int64(ix.ElementBits())+7)/8 > footBytes || seen[off] {
			t.Errorf("%s: %s: element %v at bit %d (footprint %d B, seen %v)", where, s, idx, off, footBytes, seen[off])
			return
		}
		seen[off] = true
	}
}

type corpusRow struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Shape      string `json:"shape"`
	Layout     string `json:"layout"`
	Logical    int64  `json:"logical_bytes"`
	Footprint  int64  `json:"footprint_bytes"`
	Sized      bool   `json:"sized"`
	NotWritten bool   `json:"shape_not_written"`
	Note       string `json:"note"`
	From       string `json:"from"`
	Inferred   bool   `json:"inferred"`
}

// refusedByXLA are the corpus modules, from an older XLA's tests, that the newer
// XLA's parser refuses, with what the error says.
var refusedByXLA = map[string]string{
	"SparseShapeFull.hlo":              "physical shape P(…) is the older XLA form",
	"SparseShapeWithPhysicalShape.hlo": "physical shape P(…) is the older XLA form",
}

// hloJSON is the report of m as `tpulayout hlo --json` prints it (with All, as
// `--all --json`), checked against docs/schema/hlo.json.
func hloJSON(t *testing.T, where string, m *hlo.Module, all bool) []byte {
	t.Helper()
	b, err := report.JSON(report.NewHLO(m, report.HLOOptions{All: all}))
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	checkSchema(t, "hlo", where, b)
	return b
}

// TestHLOCorpus reports every module of testdata/hlo as `hlo --all --json` and `hlo
// --json` list it, checks each report against its schema and each row's figures
// against footprintBytes and the per-element oracle; a row without figures must say
// why.
func TestHLOCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(hloCorpus, "*.hlo"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("%d modules in %s, want at least 100", len(files), hloCorpus)
	}
	var c corpusCount
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hlo.Parse(text)
		if want, ok := refusedByXLA[filepath.Base(f)]; ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v; want an error saying %q, as the newer XLA refuses it", f, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		c.module(t, f, m)
	}
	// The CRLF copy reads as its LF original does.
	crlf := filepath.Join(hloCorpus, "CRLF_AliasInfo_DUSOutputFusionWithCollective.hlo")
	lf := filepath.Join(hloCorpus, "AliasInfo_DUSOutputFusionWithCollective.hlo")
	a, crlfText := hloText(t, crlf)
	if b, _ := hloText(t, lf); !strings.Contains(crlfText, "\r\n") || a != b {
		t.Errorf("%s has no CRLF line ends, or reads otherwise:\n%s\nLF:\n%s", crlf, a, b)
	}
	t.Logf("%d modules, %d rows: %d with figures (%d tiled), %d from entry_computation_layout headers, %d inferred, %d shapes not written, %d sparse",
		len(files), c.rows, c.sized, c.tiled, c.headers, c.inferred, c.notWritten, c.sparse)
	if c.tiled < 100 || c.headers < 50 || c.inferred == 0 || c.sparse == 0 {
		t.Errorf("the corpus lost coverage: %d tiled rows, %d header rows, %d inferred, %d sparse", c.tiled, c.headers, c.inferred, c.sparse)
	}
}

// hloText is the text report, with All, of the module in path, and the file's text.
func hloText(t *testing.T, path string) (rep, file string) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := hlo.Parse(text)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var b strings.Builder
	if err := report.NewHLO(m, report.HLOOptions{All: true}).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), string(text)
}

// corpusCount counts the corpus's rows by kind, so that the test can tell when the
// corpus stops covering one.
type corpusCount struct {
	rows, sized, tiled, headers, inferred, notWritten, sparse int
}

// module checks the reports of one module, with and without All.
func (c *corpusCount) module(t *testing.T, f string, m *hlo.Module) {
	// Every array of every instruction is a row of All (an empty tuple has none).
	arrays := 0
	var count func(layout.Shape)
	count = func(s layout.Shape) {
		if s.Kind != layout.Tuple {
			arrays++
		}
		for _, e := range s.Elements {
			if s.Kind == layout.Tuple {
				count(e)
			}
		}
	}
	for _, comp := range m.Computations {
		for _, in := range comp.Instructions {
			count(*in.Shape)
		}
	}
	for _, all := range []bool{true, false} {
		var rep struct {
			Rows []corpusRow `json:"rows"`
		}
		if err := json.Unmarshal(hloJSON(t, f, m, all), &rep); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if all && len(rep.Rows) != arrays {
			t.Errorf("%s: %d rows for %d arrays", f, len(rep.Rows), arrays)
		}
		for _, r := range rep.Rows {
			c.row(t, filepath.Base(f)+" "+r.Name, r)
		}
	}
}

// row checks one row's figures against the spec's formula and the oracle.
func (c *corpusCount) row(t *testing.T, where string, r corpusRow) {
	c.rows++
	if r.From == "header" {
		c.headers++
	}
	if r.Inferred {
		c.inferred++
	}
	if r.Shape == "()" { // an entry that returns the empty tuple
		if r.Kind != "result" || !r.Sized || r.Logical != 0 || r.Footprint != 0 {
			t.Errorf("%s: empty tuple row %+v", where, r)
		}
		return
	}
	text := r.Shape
	if r.Layout != "{}" && r.Layout != "-" {
		text += r.Layout
	}
	if !r.Sized {
		switch {
		case r.NotWritten:
			c.notWritten++
		case strings.HasPrefix(r.Note, "sparse"):
			c.sparse++
		case r.Shape == "token[]" || r.Shape == "opaque[]" || strings.Contains(r.Shape, "?"):
		default:
			t.Errorf("%s: %s has no figures and no reason", where, text)
		}
		return
	}
	s, err := layout.Parse(text)
	if err != nil {
		t.Errorf("%s: row shape %q: %v", where, text, err)
		return
	}
	c.sized++
	if len(s.Layout.Tiles) > 0 {
		c.tiled++
	}
	if want := footprintBytes(s); r.Footprint != want {
		t.Errorf("%s: %s: footprint %d B, the spec's formula gives %d", where, text, r.Footprint, want)
	}
	if want := (s.LogicalElements()*int64(s.DType.StorageBits()) + 7) / 8; s.Layout.ElementBits == 0 && r.Logical != want {
		t.Errorf("%s: %s: logical %d B, want %d", where, text, r.Logical, want)
	}
	checkOffsets(t, where, s, r.Footprint)
}
