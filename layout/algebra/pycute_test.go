package algebra

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// pycuteCase is one recorded case of testdata/cute/pycute-cases.json (see its README):
// an operation, its inputs as CuTe text, and pycute's answer or the exception it raised.
type pycuteCase struct {
	Op       string          `json:"op"`
	A        string          `json:"a"`
	B        json.RawMessage `json:"b"` // a layout's text, or a list of them (a tiler)
	Cotarget int64           `json:"cotarget"`
	Result   json.RawMessage `json:"result"` // a layout's text, or an integer
	Error    string          `json:"error"`
	Aux      json.RawMessage `json:"aux"` // pycute's complement(s) that a divide or product composes with
	Via      string          `json:"via"`
}

// answer is an operation's result: a layout, or an integer (max common vector).
type answer struct {
	l     Layout
	n     int64
	isInt bool
}

func (a answer) String() string {
	if a.isInt {
		return fmt.Sprint(a.n)
	}
	return a.l.String()
}

// parsedCase holds a case's inputs as layouts.
type parsedCase struct {
	a     Layout
	b     []Layout // one layout, or the tiler's layouts
	aux   []Layout
	tuple bool // b was a list (a tiler)
}

func parseLayouts(raw json.RawMessage) ([]Layout, bool, error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	var one string
	var many []string
	tuple := false
	if err := json.Unmarshal(raw, &one); err == nil {
		many = []string{one}
	} else if err := json.Unmarshal(raw, &many); err != nil {
		return nil, false, err
	} else {
		tuple = true
	}
	out := make([]Layout, len(many))
	for i, s := range many {
		l, err := Parse(s)
		if err != nil {
			return nil, false, err
		}
		out[i] = l
	}
	return out, tuple, nil
}

func parseCase(c pycuteCase) (parsedCase, error) {
	var p parsedCase
	var err error
	if p.a, err = Parse(c.A); err != nil {
		return p, err
	}
	if p.b, p.tuple, err = parseLayouts(c.B); err != nil {
		return p, err
	}
	p.aux, _, err = parseLayouts(c.Aux)
	return p, err
}

func parseAnswer(raw json.RawMessage) (answer, error) {
	var n int64
	if err := json.Unmarshal(raw, &n); err == nil {
		return answer{n: n, isInt: true}, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return answer{}, err
	}
	l, err := Parse(s)
	return answer{l: l}, err
}

// library computes the library's answer to a case, and the complements its divides and
// products compose with (for the definition check of its own answer).
func library(op string, p parsedCase, cotarget int64) (answer, []Layout, error) {
	a := p.a
	var b Layout
	if len(p.b) > 0 {
		b = p.b[0]
	}
	var r Layout
	var err error
	var aux []Layout
	switch op {
	case "coalesce":
		r = Coalesce(a)
	case "coalesce_by_mode":
		r = CoalesceByMode(a)
	case "composition":
		r, err = Compose(a, b)
	case "complement":
		r, err = Complement(a, cotarget)
	case "right_inverse":
		r = RightInverse(a)
	case "left_inverse":
		r, err = LeftInverse(a)
	case "logical_divide":
		r, err = LogicalDivide(a, b)
		aux, _ = complements(p.b, []Layout{a})
	case "zipped_divide", "tiled_divide":
		if op == "zipped_divide" {
			r, err = ZippedDivide(a, p.b)
		} else {
			r, err = TiledDivide(a, p.b)
		}
		aux, _ = complements(p.b, a.modes())
	case "logical_product":
		r, err = LogicalProduct(a, b)
		aux, _ = productComplement(a, b)
	case "blocked_product", "raked_product":
		if op == "blocked_product" {
			r, err = BlockedProduct(a, b)
		} else {
			r, err = RakedProduct(a, b)
		}
		n := max(a.Rank(), b.Rank())
		aux, _ = productComplement(padRank(a, n), padRank(b, n))
	case "max_common_vector":
		n, err := MaxCommonVector(a, b)
		return answer{n: n, isInt: true}, nil, err
	case "max_common_layout":
		r, err = MaxCommonLayout(a, b)
	default:
		return answer{}, nil, fmt.Errorf("unknown op %q", op)
	}
	return answer{l: r}, aux, err
}

// complements is complement(tiler[i], size(a[i])) for each tile.
func complements(tiler, a []Layout) ([]Layout, error) {
	out := make([]Layout, len(tiler))
	for i, t := range tiler {
		c, err := Complement(t, a[i].Size())
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func productComplement(a, b Layout) ([]Layout, error) {
	c, err := Complement(a, a.Size()*b.Cosize())
	return []Layout{c}, err
}

// verify checks an answer r to a case against the operation's definition, element by
// element; aux are the complements r was built with. It returns "" when r satisfies the
// definition, else the first element where it fails.
func verify(op string, p parsedCase, cotarget int64, r answer, aux []Layout) string {
	a := p.a
	var b Layout
	if len(p.b) > 0 {
		b = p.b[0]
	}
	if r.isInt != (op == "max_common_vector") {
		return "answer of the wrong kind"
	}
	l := r.l
	switch op {
	case "coalesce":
		return firstOf(flatCheck(l), mapDiff("coalesce", l, a, a.at))
	case "coalesce_by_mode":
		if l.Rank() != a.Rank() {
			return fmt.Sprintf("rank %d, want %d", l.Rank(), a.Rank())
		}
		for i := 0; i < a.Rank(); i++ {
			if bad := firstOf(flatCheck(l.Mode(i)), mapDiff(fmt.Sprintf("mode %d", i), l.Mode(i), a.Mode(i), a.Mode(i).at)); bad != "" {
				return bad
			}
		}
		return ""
	case "composition":
		return verifyCompose(a, b, l)
	case "complement":
		return verifyComplement(a, cotarget, l)
	case "right_inverse":
		for i := int64(0); i < l.Size(); i++ {
			if x := l.at(i); x >= a.Size() || a.at(x) != i {
				return fmt.Sprintf("at %d: R(%d) = %d and A(R(%d)) ≠ %d", i, i, x, i, i)
			}
		}
		return rightInverseMaximal(a, l)
	case "left_inverse":
		for i := int64(0); i < a.Size(); i++ {
			if x := a.at(i); x >= l.Size() || l.at(x) != i {
				return fmt.Sprintf("at %d: A(%d) = %d and R(A(%d)) ≠ %d", i, i, x, i, i)
			}
		}
		return ""
	case "logical_divide":
		return verifyDivide(a, b, l, aux)
	case "zipped_divide", "tiled_divide":
		return verifyZipped(op == "tiled_divide", a, p.b, l, aux)
	case "logical_product":
		return verifyProduct(a, b, l, aux)
	case "blocked_product", "raked_product":
		return verifyBlocked(op == "raked_product", a, b, l, aux)
	case "max_common_vector":
		return verifyVector(a, b, r.n)
	case "max_common_layout":
		return verifyCommon(a, b, l)
	}
	return "unknown op " + op
}

// rightInverseMaximal checks that R cannot be extended: no mode of A of shape > 1 has
// stride Size(R), the next offset (CuTe's right_inverse takes every mode whose stride is
// where the modes before it end).
func rightInverseMaximal(a, r Layout) string {
	sh, st := Coalesce(a).flat()
	for i := range sh {
		if sh[i] > 1 && st[i] == r.Size() {
			return fmt.Sprintf("at %d: R stops at %d offsets, but mode %d:%d of A continues the run", r.Size(), r.Size(), sh[i], st[i])
		}
	}
	return ""
}

func firstOf(msgs ...string) string {
	for _, m := range msgs {
		if m != "" {
			return m
		}
	}
	return ""
}

func flatCheck(l Layout) string {
	if !l.Shape.IsInt() {
		for i := 0; i < l.Rank(); i++ {
			if !l.Shape.At(i).IsInt() {
				return "not flat: " + l.String()
			}
		}
	}
	return ""
}

// mapDiff compares l with the map want on want's domain [0, Size(of)).
func mapDiff(what string, l, of Layout, want func(int64) int64) string {
	if l.Size() != of.Size() {
		return fmt.Sprintf("%s: size %d, want %d", what, l.Size(), of.Size())
	}
	for i := int64(0); i < of.Size(); i++ {
		if got, w := l.at(i), want(i); got != w {
			return fmt.Sprintf("%s at coordinate %d: offset %d, want %d", what, i, got, w)
		}
	}
	return ""
}

// extended is a's map past its size, as composition reads it: Coalesce(a) with its last
// mode unbounded. ok is false when no such offset fits int64.
func extended(a Layout) func(int64) int64 {
	c := Coalesce(a)
	return func(x int64) int64 {
		v, ok := c.evalExtended(x)
		if !ok {
			return -1
		}
		return v
	}
}

func verifyCompose(a, b, r Layout) string {
	if b.Rank() > 1 || !b.Shape.IsInt() {
		if r.Rank() != b.Rank() {
			return fmt.Sprintf("rank %d, want B's rank %d", r.Rank(), b.Rank())
		}
		for i := 0; i < b.Rank(); i++ {
			if r.Mode(i).Size() != b.Mode(i).Size() {
				return fmt.Sprintf("mode %d: size %d, want %d", i, r.Mode(i).Size(), b.Mode(i).Size())
			}
		}
	}
	ax := extended(a)
	return mapDiff("A∘B", r, b, func(i int64) int64 { return ax(b.at(i)) })
}

// verifyComplement checks CuTe's conditions on C = complement(A, cotarget): C is
// strictly increasing, (A, C) is injective on A's distinct offsets, and
// |image(A)|·size(C) ≥ cotarget.
func verifyComplement(a Layout, cotarget int64, c Layout) string {
	for i := int64(1); i < c.Size(); i++ {
		if c.at(i) <= c.at(i-1) {
			return fmt.Sprintf("C not increasing at coordinate %d: C(%d) = %d, C(%d) = %d", i, i-1, c.at(i-1), i, c.at(i))
		}
	}
	img := map[int64]bool{}
	for i := int64(0); i < a.Size(); i++ {
		img[a.at(i)] = true
	}
	seen := map[int64]int64{}
	for j := int64(0); j < c.Size(); j++ {
		for x := range img {
			o := x + c.at(j)
			if k, dup := seen[o]; dup && k != j {
				return fmt.Sprintf("(A,C) not injective: offset %d is reached from C(%d) and C(%d)", o, k, j)
			}
			seen[o] = j
		}
	}
	if int64(len(seen)) < cotarget {
		return fmt.Sprintf("(A,C) reaches %d offsets, fewer than the cotarget %d", len(seen), cotarget)
	}
	return ""
}

// verifyDivide checks R = A ∘ (B, C) with C a complement of B up to size(A).
func verifyDivide(a, b, r Layout, aux []Layout) string {
	if len(aux) != 1 {
		return "no complement"
	}
	c := aux[0]
	if bad := verifyComplement(b, a.Size(), c); bad != "" {
		return "complement of the tile: " + bad
	}
	if r.Rank() != 2 || r.Mode(0).Size() != b.Size() || r.Mode(1).Size() != c.Size() {
		return fmt.Sprintf("%s is not (tile of %d, rest of %d)", r, b.Size(), c.Size())
	}
	return verifyCompose(a, concat(b, c), r)
}

func verifyProduct(a, b, r Layout, aux []Layout) string {
	if len(aux) != 1 {
		return "no complement"
	}
	c := aux[0]
	if bad := verifyComplement(a, a.Size()*b.Cosize(), c); bad != "" {
		return "complement of the block: " + bad
	}
	if r.Rank() != 2 {
		return fmt.Sprintf("%s is not (block, pattern)", r)
	}
	return firstOf(mapDiff("block", r.Mode(0), a, a.at), verifyCompose(c, b, r.Mode(1)))
}

func verifyZipped(tiled bool, a Layout, tiler []Layout, r Layout, aux []Layout) string {
	k := len(tiler)
	if len(aux) != k {
		return "no complements"
	}
	rest := func(i int) Layout { return r.Mode(1).Mode(i) }
	if tiled {
		if r.Rank() != 1+a.Rank() {
			return fmt.Sprintf("rank %d, want %d", r.Rank(), 1+a.Rank())
		}
		rest = func(i int) Layout { return r.Mode(1 + i) }
	} else if r.Rank() != 2 || r.Mode(1).Rank() != a.Rank() {
		return fmt.Sprintf("%s is not ((tiles),(rests))", r)
	}
	if r.Mode(0).Rank() != k {
		return fmt.Sprintf("%d tiles, want %d", r.Mode(0).Rank(), k)
	}
	for i := 0; i < a.Rank(); i++ {
		ai := a.Mode(i)
		if i >= k {
			if bad := mapDiff(fmt.Sprintf("mode %d", i), rest(i), ai, ai.at); bad != "" {
				return bad
			}
			continue
		}
		if bad := verifyComplement(tiler[i], ai.Size(), aux[i]); bad != "" {
			return fmt.Sprintf("complement of tile %d: %s", i, bad)
		}
		if bad := firstOf(verifyCompose(ai, tiler[i], r.Mode(0).Mode(i)), verifyCompose(ai, aux[i], rest(i))); bad != "" {
			return fmt.Sprintf("mode %d: %s", i, bad)
		}
	}
	return ""
}

func verifyBlocked(raked bool, a, b, r Layout, aux []Layout) string {
	n := max(a.Rank(), b.Rank())
	pa, pb := padRank(a, n), padRank(b, n)
	if len(aux) != 1 {
		return "no complement"
	}
	c := aux[0]
	if bad := verifyComplement(pa, pa.Size()*pb.Cosize(), c); bad != "" {
		return "complement of the block: " + bad
	}
	if r.Rank() != n {
		return fmt.Sprintf("rank %d, want %d", r.Rank(), n)
	}
	for i := 0; i < n; i++ {
		m := r.Mode(i)
		if m.Rank() != 2 {
			return fmt.Sprintf("mode %d: %s is not (block, pattern)", i, m)
		}
		blk, pat := m.Mode(0), m.Mode(1)
		if raked {
			blk, pat = pat, blk
		}
		ai := pa.Mode(i)
		if bad := firstOf(mapDiff("block", blk, ai, ai.at), verifyCompose(c, pb.Mode(i), pat)); bad != "" {
			return fmt.Sprintf("mode %d: %s", i, bad)
		}
	}
	return ""
}

// verifyCommon checks that for every coordinate i of r, r(i) is a coordinate of a and b
// that both put at offset i (CuTe's max_common_layout post-condition).
func verifyCommon(a, b, r Layout) string {
	for i := int64(0); i < r.Size(); i++ {
		x := r.at(i)
		if x >= a.Size() || x >= b.Size() || a.at(x) != i || b.at(x) != i {
			return fmt.Sprintf("at %d: coordinate %d is not at offset %d in both", i, x, i)
		}
	}
	return ""
}

// verifyVector checks n ≥ 1 and that each offset i < n is where a and b both put one
// coordinate (CuTe's max_common_vector post-condition).
func verifyVector(a, b Layout, n int64) string {
	if n < 1 {
		return fmt.Sprintf("a vector of %d elements", n)
	}
	both := map[int64]bool{}
	for x := int64(0); x < a.Size() && x < b.Size(); x++ {
		if a.at(x) == b.at(x) {
			both[a.at(x)] = true
		}
	}
	for i := int64(0); i < n; i++ {
		if !both[i] {
			return fmt.Sprintf("at %d: no coordinate is at offset %d in both", i, i)
		}
	}
	return ""
}

// zeroUnitStrides is l with the stride of every shape-1 mode set to 0: such a stride
// never contributes to an offset, and pycute keeps whatever stride it computed there.
func zeroUnitStrides(l Layout) Layout {
	sh, st := l.flat()
	for i := range sh {
		if sh[i] == 1 {
			st[i] = 0
		}
	}
	return Layout{l.Shape, unflatten(st, l.Stride)}
}

// pycuteCounts counts TestPycuteCases's outcomes.
type pycuteCounts struct {
	same      int // pycute right, the library gives the same text
	sameOnes  int // … the same once the strides of shape-1 modes are set to 0
	wrong     int // pycute's answer breaks the definition
	wrongRef  int // … and the library refuses (else it answers correctly)
	pyRefuses int // pycute raised
	bothRef   int // … and the library refuses too (else it answers correctly)
}

// TestPycuteCases replays the recorded pycute table. Where pycute's answer satisfies the
// operation's definition (checked element by element here), the library must give the
// same answer: the same integer, or the same layout text once the strides of shape-1
// modes (which never contribute to an offset) are set to 0. Where pycute raised, the library must refuse or give an answer that
// satisfies the definition. Where pycute's answer breaks the definition, the test logs
// the element where it fails, and the library must refuse or answer correctly.
func TestPycuteCases(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "cute", "pycute-cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct{ Cases []pycuteCase }
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	var n pycuteCounts
	for i, c := range table.Cases {
		name := fmt.Sprintf("case %d %s(%s, %s)", i, c.Op, c.A, c.B)
		if c.Op == "complement" {
			name = fmt.Sprintf("case %d complement(%s, %d)", i, c.A, c.Cotarget)
		}
		p, err := parseCase(c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		lib, libAux, libErr := library(c.Op, p, c.Cotarget)
		libCheck := func() {
			if libErr == nil {
				if bad := verify(c.Op, p, c.Cotarget, lib, libAux); bad != "" {
					t.Errorf("%s: library gives %s, which breaks the definition: %s", name, lib, bad)
				}
			}
		}
		if c.Error != "" {
			n.pyRefuses++
			if libErr != nil {
				n.bothRef++
			} else {
				t.Logf("%s: pycute refuses (%s); the library gives %s", name, c.Error, lib)
			}
			libCheck()
			continue
		}
		py, err := parseAnswer(c.Result)
		var bad string
		switch {
		case errors.Is(err, ErrInvalid):
			bad = err.Error()
		case err != nil:
			t.Fatalf("%s: result %s: %v", name, c.Result, err)
		default:
			bad = verify(c.Op, p, c.Cotarget, py, p.aux)
		}
		if bad != "" {
			n.wrong++
			t.Logf("%s: pycute is wrong: it gives %s; %s", name, c.Result, bad)
			if libErr != nil {
				n.wrongRef++
			} else {
				t.Logf("%s: the library gives %s", name, lib)
			}
			libCheck()
			continue
		}
		switch {
		case libErr != nil:
			t.Errorf("%s: pycute's %s is right, the library refuses: %v", name, py, libErr)
		case lib.isInt || py.isInt:
			if lib.String() != py.String() {
				t.Errorf("%s: library gives %s, pycute %s", name, lib, py)
			}
			n.same++
		case lib.l.Equal(py.l):
			n.same++
		case zeroUnitStrides(lib.l).Equal(zeroUnitStrides(py.l)):
			n.sameOnes++
		default:
			t.Errorf("%s: library gives %s, pycute's right answer is %s", name, lib, py)
		}
	}
	t.Logf("%d cases: %d the same text, %d the same but for the strides of shape-1 modes, %d where pycute is wrong (%d the library refuses), %d pycute refuses (%d the library too)",
		len(table.Cases), n.same, n.sameOnes, n.wrong, n.wrongRef, n.pyRefuses, n.bothRef)
	want := pycuteCounts{same: 419, sameOnes: 72, wrong: 16, wrongRef: 15, pyRefuses: 32, bothRef: 31}
	if n != want {
		t.Errorf("counts changed: got %+v, want %+v", n, want)
	}
}
