package layout

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// ParseError reports malformed shape or layout text: what was expected and the byte
// position in Input where it went wrong.
type ParseError struct {
	Input string
	Pos   int
	Msg   string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("layout: parse %q: at byte %d: %s", Quote(e.Input), e.Pos, e.Msg)
}

// maxQuote bounds how much of an input an error message repeats.
const maxQuote = 200

// Quote returns s for an error message: whole when short, else its start and end around
// a note of the bytes left out, so that a huge input does not flood the message.
func Quote(s string) string {
	if len(s) <= maxQuote {
		return s
	}
	h, t := maxQuote*2/3, len(s)-maxQuote/4
	for h > 0 && !utf8.RuneStart(s[h]) {
		h--
	}
	for t < len(s) && !utf8.RuneStart(s[t]) {
		t++
	}
	head, tail := s[:h], s[t:]
	return fmt.Sprintf("%s…[%d bytes]…%s", head, len(s)-len(head)-len(tail), tail)
}

// Parse reads a shape in XLA's text form: an array `f32[3,5]{1,0:T(2,2)}`, a tuple
// `(a, b)`, a buffer `b(shape)`, `token[]` or `opaque[]`. A missing layout becomes the
// default row-major one. The layout is validated against the shape (spec Part 1 §2).
func Parse(s string) (Shape, error) {
	p := parser{in: s}
	sh, err := p.shape()
	if err == nil {
		p.space()
		if p.pos < len(p.in) {
			err = p.errf("extra content after shape")
		}
	}
	if err != nil {
		return Shape{}, err
	}
	return sh, nil
}

// ParseShape is [Parse]; the name matches XLA's ParseShape.
func ParseShape(s string) (Shape, error) { return Parse(s) }

// MustParse is [Parse] for literals known to be valid; it panics on error.
func MustParse(s string) Shape {
	sh, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return sh
}

// ParseLayout reads a layout on its own, such as `{1,0:T(8,128)(2,1)}`. Without a shape it
// checks that minor_to_major is a permutation of 0…n-1 and the attributes are well formed;
// sparse-only attributes (#, *, P) are allowed here, as in XLA.
func ParseLayout(s string) (Layout, error) {
	p := parser{in: s}
	p.space()
	l, err := p.layout(-1, false)
	if err == nil {
		p.space()
		if p.pos < len(p.in) {
			err = p.errf("extra content after layout")
		}
	}
	if err != nil {
		return Layout{}, err
	}
	return l, nil
}

type parser struct {
	in  string
	pos int
	eAt int // where the last E(n) value was read
}

func (p *parser) errf(format string, args ...any) error {
	return &ParseError{Input: p.in, Pos: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) errAt(pos int, format string, args ...any) error {
	return &ParseError{Input: p.in, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// space skips blanks and /*…*/ comments (XLA prints /*index=5*/ inside tuples).
func (p *parser) space() {
	for p.pos < len(p.in) {
		switch c := p.in[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.in) && p.in[p.pos+1] == '*':
			end := p.pos + 2
			for end+1 < len(p.in) && !(p.in[end] == '*' && p.in[end+1] == '/') {
				end++
			}
			if end+1 >= len(p.in) {
				return // unterminated comment: left for the caller to reject
			}
			p.pos = end + 2
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	p.space()
	if p.pos < len(p.in) {
		return p.in[p.pos]
	}
	return 0
}

func (p *parser) describe() string {
	p.space()
	if p.pos >= len(p.in) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(p.in[p.pos]))
}

func (p *parser) expect(c byte, what string) error {
	if p.peek() != c {
		return p.errf("expected %q %s, found %s", c, what, p.describe())
	}
	p.pos++
	return nil
}

func (p *parser) accept(c byte) bool {
	if p.peek() == c {
		p.pos++
		return true
	}
	return false
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

// int reads -?[0-9]+ as an int64.
func (p *parser) int(what string) (int64, int, error) {
	p.space()
	start := p.pos
	end := p.pos
	if end < len(p.in) && p.in[end] == '-' {
		end++
	}
	digits := end
	for end < len(p.in) && isDigit(p.in[end]) {
		end++
	}
	if end == digits {
		return 0, start, p.errf("expected an integer %s, found %s", what, p.describe())
	}
	v, err := strconv.ParseInt(p.in[start:end], 10, 64)
	if err != nil {
		return 0, start, p.errAt(start, "integer %s out of range: %s", what, p.in[start:end])
	}
	p.pos = end
	return v, start, nil
}

func (p *parser) word() (string, int) {
	p.space()
	start := p.pos
	for p.pos < len(p.in) && (isLetter(p.in[p.pos]) || isDigit(p.in[p.pos])) {
		p.pos++
	}
	return p.in[start:p.pos], start
}

func (p *parser) shape() (Shape, error) {
	switch p.peek() {
	case '(':
		p.pos++
		sh := Shape{Kind: Tuple, Elements: []Shape{}}
		if p.accept(')') {
			return sh, nil
		}
		for {
			e, err := p.shape()
			if err != nil {
				return Shape{}, err
			}
			sh.Elements = append(sh.Elements, e)
			if p.accept(')') {
				return sh, nil
			}
			if err := p.expect(',', "or ')' in tuple"); err != nil {
				return Shape{}, err
			}
		}
	case 0:
		return Shape{}, p.errf("expected a shape, found end of input")
	}
	name, start := p.word()
	if name == "b" && p.peek() == '(' {
		p.pos++
		inner, err := p.shape()
		if err != nil {
			return Shape{}, err
		}
		if err := p.expect(')', "at the end of buffer shape"); err != nil {
			return Shape{}, err
		}
		return Shape{Kind: Buffer, Elements: []Shape{inner}}, nil
	}
	dt, ok := DTypeByName(name)
	if !ok {
		if name == "" {
			return Shape{}, p.errAt(start, "expected primitive type, found %s", p.describe())
		}
		return Shape{}, p.errAt(start, "unknown primitive type %q (type names are lower case, e.g. f32, bf16)", name)
	}
	sh := Shape{DType: dt, Dims: []int64{}}
	if err := p.dims(&sh); err != nil {
		return Shape{}, err
	}
	if dt == Token || dt == Opaque {
		if len(sh.Dims) > 0 {
			return Shape{}, p.errAt(start, "%s takes no dimensions", dt)
		}
		sh.Kind = TokenKind
		if dt == Opaque {
			sh.Kind = OpaqueKind
		}
		sh.DType = Invalid
		return sh, nil
	}
	// '{' starts a layout only when an integer or ':' follows, as in XLA.
	save := p.pos
	if p.accept('{') {
		c := p.peek()
		p.pos = save
		if isDigit(c) || c == '-' || c == ':' {
			p.space()
			l, err := p.layout(len(sh.Dims), true)
			if err != nil {
				return Shape{}, err
			}
			sh.Layout = l
			if err := sh.validateLayout(p, save); err != nil {
				return Shape{}, err
			}
			if err := checkElementBits(dt, l.ElementBits); err != nil {
				return Shape{}, p.errAt(p.eAt, "%s", err)
			}
			return sh, sh.checkSized(p, save)
		}
	}
	sh.Layout = Layout{MinorToMajor: RowMajor(len(sh.Dims))}
	if len(sh.Dims) == 0 {
		sh.Layout.MinorToMajor = nil
	}
	return sh, sh.checkSized(p, start)
}

// checkSized compiles an array shape, so that every rule of the index math (E(n) the
// type can hold, a footprint in int64 bytes, at most 64 expanded dims) is a parse error
// at pos, the same for every command. Shapes with `?` have no size and are left alone.
func (s *Shape) checkSized(p *parser, pos int) error {
	if s.Layout.IsSparse() {
		return nil // no index math: its size depends on what it stores
	}
	for _, d := range s.Dims {
		if d == Unbounded {
			return nil
		}
	}
	if _, err := compile(*s); err != nil {
		return p.errAt(pos, "%s", err)
	}
	return nil
}

func (p *parser) dims(sh *Shape) error {
	if err := p.expect('[', "after the element type"); err != nil {
		return err
	}
	if p.accept(']') {
		return nil
	}
	for {
		dynamic := false
		var d int64
		switch p.peek() {
		case '?':
			p.pos++
			d, dynamic = Unbounded, true
		case '<':
			p.pos++
			if err := p.expect('=', "in a bounded dimension '<=N'"); err != nil {
				return err
			}
			v, at, err := p.int("as the dimension bound")
			if err != nil {
				return err
			}
			if v < 0 {
				return p.errAt(at, "dimension bound %d is negative", v)
			}
			d, dynamic = v, true
		default:
			v, at, err := p.int("as a dimension size")
			if err != nil {
				return err
			}
			if v < 0 {
				return p.errAt(at, "dimension size %d is negative", v)
			}
			d = v
		}
		if dynamic && sh.Dynamic == nil {
			sh.Dynamic = make([]bool, len(sh.Dims))
		}
		sh.Dims = append(sh.Dims, d)
		if sh.Dynamic != nil {
			sh.Dynamic = append(sh.Dynamic, dynamic)
		}
		if p.accept(']') {
			return nil
		}
		if err := p.expect(',', "or ']' between dimensions"); err != nil {
			return err
		}
	}
}

// layout reads `{…}`. rank < 0 means no shape: minor_to_major is checked against its own
// length. dense rejects the sparse-only attributes.
func (p *parser) layout(rank int, dense bool) (Layout, error) {
	var l Layout
	open := p.pos
	if err := p.expect('{', "to start a layout"); err != nil {
		return l, err
	}
	l.MinorToMajor = []int{}
	var positions []int
	if c := p.peek(); c != ':' && c != '}' {
		for {
			v, at, err := p.int("in minor_to_major")
			if err != nil {
				return l, err
			}
			if v < 0 || v > math.MaxInt32 {
				return l, p.errAt(at, "minor_to_major entry %d is not a dimension number", v)
			}
			l.MinorToMajor = append(l.MinorToMajor, int(v))
			positions = append(positions, at)
			if c := p.peek(); c == ':' || c == '}' {
				break
			}
			if err := p.expect(',', "or ':' or '}' in minor_to_major"); err != nil {
				return l, err
			}
		}
	}
	if rank < 0 {
		rank = len(l.MinorToMajor)
	}
	if len(l.MinorToMajor) != rank {
		return l, p.errAt(open, "dimensions size is %d, but minor to major size is %d", rank, len(l.MinorToMajor))
	}
	seen := make([]bool, rank)
	for i, d := range l.MinorToMajor {
		if d >= rank {
			return l, p.errAt(positions[i], "minor_to_major entry %d is out of range for rank %d", d, rank)
		}
		if seen[d] {
			return l, p.errAt(positions[i], "minor_to_major repeats dimension %d", d)
		}
		seen[d] = true
	}
	if rank == 0 {
		l.MinorToMajor = nil
	}
	if p.accept(':') {
		attrsAt := p.pos
		if err := p.attrs(&l, dense); err != nil {
			return l, err
		}
		if len(l.DimLevels) > 0 && len(l.DimLevels) != rank {
			return l, p.errAt(attrsAt, "D(…) gives %d dim level types for %d dimensions", len(l.DimLevels), rank)
		}
	}
	if p.peek() != '}' {
		return l, p.errf("expected '}' to end the layout (attributes go in the order T L # * E S SC P M, each once), found %s", p.describe())
	}
	p.pos++
	return l, nil
}

// attrs reads the attributes in XLA's fixed order; anything out of order is left for the
// caller's "expected '}'" error, as in XLA.
func (p *parser) attrs(l *Layout, dense bool) error {
	if p.attr("D") {
		if err := p.dimLevelTypes(l); err != nil {
			return err
		}
		// XLA takes #, * and P only on a sparse array.
		dense = dense && !l.IsSparse()
	}
	if p.attr("T") {
		if l.IsSparse() {
			return p.errAt(p.pos-1, "a sparse layout (D(…) with C, S or H) cannot be tiled, as in XLA")
		}
		if err := p.tiles(l); err != nil {
			return err
		}
	}
	var err error
	if p.attr("L") {
		if l.TailPadding, _, err = p.number("L", func(v int64) bool { return v >= 1 },
			"L(%d): tail padding alignment must be at least 1"); err != nil {
			return err
		}
	}
	if err := p.sparseTypes(l, dense); err != nil {
		return err
	}
	if p.attr("E") {
		if l.ElementBits, p.eAt, err = p.number("E", func(v int64) bool { return v >= 0 },
			"E(%d): element size in bits must not be negative"); err != nil {
			return err
		}
	}
	if p.attr("S") {
		if l.MemorySpace, _, err = p.number("S", func(v int64) bool { return v >= math.MinInt8 && v <= math.MaxInt8 },
			"S(%d): memory space must fit in int8"); err != nil {
			return err
		}
	}
	if p.attr("SC") {
		if err := p.splits(l); err != nil {
			return err
		}
	}
	if p.attr("P") {
		if err := p.physicalShape(l, dense); err != nil {
			return err
		}
	}
	if p.attr("M") {
		if l.PrefixBytes, _, err = p.number("M", func(v int64) bool { return v >= 0 },
			"M(%d): prefix bytes must not be negative"); err != nil {
			return err
		}
	}
	return nil
}

// attr reports whether the next attribute, after spaces, starts with prefix, and if so
// reads the prefix.
func (p *parser) attr(prefix string) bool {
	p.space()
	if len(p.in)-p.pos < len(prefix) || p.in[p.pos:p.pos+len(prefix)] != prefix {
		return false
	}
	after := p.pos + len(prefix)
	// "S" must not swallow the "S" of "SC".
	if prefix == "S" && after < len(p.in) && p.in[after] == 'C' {
		return false
	}
	p.pos = after
	return true
}

// number reads the (n) of attribute name and its position, and fails with the message
// bad (which formats n) unless ok(n).
func (p *parser) number(name string, ok func(int64) bool, bad string) (int64, int, error) {
	v, at, err := p.paren(name)
	if err != nil {
		return 0, 0, err
	}
	if !ok(v) {
		return 0, 0, p.errAt(at, bad, v)
	}
	return v, at, nil
}

// sparseTypes reads the #(index type) and *(pointer type) attributes, each optional and
// allowed only on a sparse array.
func (p *parser) sparseTypes(l *Layout, dense bool) error {
	for _, a := range []struct {
		prefix string
		dst    *DType
		what   string
	}{{"#", &l.IndexType, "index"}, {"*", &l.PointerType, "pointer"}} {
		if !p.attr(a.prefix) {
			continue
		}
		at := p.pos - 1
		if dense {
			return p.errAt(at, "%s(…) sets a sparse %s type, but the array is dense", a.prefix, a.what)
		}
		if err := p.expect('(', "after "+a.prefix); err != nil {
			return err
		}
		name, nat := p.word()
		dt, ok := DTypeByName(name)
		if !ok || !dt.IsUnsigned() {
			return p.errAt(nat, "%s type must be an unsigned integer type, found %q", a.what, name)
		}
		*a.dst = dt
		if err := p.expect(')', "after the "+a.what+" type"); err != nil {
			return err
		}
	}
	return nil
}

// physicalShape reads the (shape) of a P attribute, allowed only on a sparse array.
func (p *parser) physicalShape(l *Layout, dense bool) error {
	at := p.pos - 1
	if dense {
		return p.errAt(at, "layout has physical shape P(…), but is not for a sparse array")
	}
	if err := p.expect('(', "after P"); err != nil {
		return err
	}
	ps, err := p.shape()
	if err != nil {
		return err
	}
	l.Physical = &ps
	return p.expect(')', "after the physical shape")
}

func (p *parser) paren(name string) (int64, int, error) {
	if err := p.expect('(', "after "+name); err != nil {
		return 0, 0, err
	}
	v, at, err := p.int("in " + name + "(…)")
	if err != nil {
		return 0, 0, err
	}
	return v, at, p.expect(')', "after "+name+"(n")
}

// dimLevelTypes reads the D(…) list of a sparse layout: one level type per dim, each
// optionally followed by + (not unique) and ~ (not ordered).
func (p *parser) dimLevelTypes(l *Layout) error {
	open := p.pos
	if err := p.expect('(', "after D"); err != nil {
		return err
	}
	l.DimLevels = []DimLevel{}
	if p.accept(')') {
		return p.errAt(open, "empty D(): give one dim level type (D, C, S or H) per dimension")
	}
	for {
		var d DimLevel
		c := p.peek()
		at := p.pos
		switch c {
		case 'D', 'C', 'S', 'H':
			p.pos++
			d.Type = DimLevelType(c)
		default:
			return p.errf("expected a DimLevelType abbreviation (D, C, S or H), found %s", p.describe())
		}
		d.NotUnique = p.accept('+')
		d.NotOrdered = p.accept('~')
		if d.Type == DimDense && (d.NotUnique || d.NotOrdered) {
			return p.errAt(at, "a dense level D is unique and ordered: XLA refuses %s", d)
		}
		l.DimLevels = append(l.DimLevels, d)
		if p.accept(')') {
			return nil
		}
		if err := p.expect(',', "or ')' in D(…)"); err != nil {
			return err
		}
	}
}

func (p *parser) tiles(l *Layout) error {
	if p.peek() != '(' {
		return p.errf("expected '(' to start a tile after T, found %s", p.describe())
	}
	for p.peek() == '(' {
		open := p.pos
		p.pos++
		t := Tile{}
		if p.peek() == ')' {
			return p.errAt(open, "empty tile ()")
		}
		for {
			if p.accept('*') {
				if len(l.Tiles) > 0 {
					return p.errAt(p.pos-1, "combined dimension '*' is only allowed in the first tile")
				}
				t = append(t, Combined)
			} else {
				v, at, err := p.int("or '*' in a tile")
				if err != nil {
					return err
				}
				if v < 1 {
					return p.errAt(at, "tile dimension %d must be at least 1 (or '*')", v)
				}
				t = append(t, v)
			}
			if p.accept(')') {
				break
			}
			if err := p.expect(',', "or ')' in a tile"); err != nil {
				return err
			}
		}
		if t[len(t)-1] == Combined {
			return p.errAt(p.pos-1, "a tile cannot end with a combined dimension '*': nothing more minor to combine into")
		}
		l.Tiles = append(l.Tiles, t)
	}
	return nil
}

func (p *parser) splits(l *Layout) error {
	if p.peek() != '(' {
		return p.errf("expected '(' after SC, found %s", p.describe())
	}
	for p.accept('(') {
		d, at, err := p.int("as the split dimension")
		if err != nil {
			return err
		}
		if d < 0 {
			return p.errAt(at, "split dimension %d is negative", d)
		}
		for _, s := range l.Splits {
			if s.Dim == d {
				return p.errAt(at, "split dimension %d is given twice", d)
			}
		}
		if err := p.expect(':', "after the split dimension"); err != nil {
			return err
		}
		sc := SplitConfig{Dim: d}
		for {
			v, at, err := p.int("as a split index")
			if err != nil {
				return err
			}
			if v < 0 || len(sc.Indices) > 0 && v <= sc.Indices[len(sc.Indices)-1] {
				return p.errAt(at, "split indices must be non-negative and increasing, found %d", v)
			}
			sc.Indices = append(sc.Indices, v)
			if p.accept(')') {
				break
			}
			if err := p.expect(',', "or ')' in SC(…)"); err != nil {
				return err
			}
		}
		l.Splits = append(l.Splits, sc)
	}
	return nil
}

// validateLayout checks what needs the shape: split dimensions in range.
func (s *Shape) validateLayout(p *parser, at int) error {
	for _, sc := range s.Layout.Splits {
		if sc.Dim >= int64(len(s.Dims)) {
			return p.errAt(at, "split dimension %d is out of range for rank %d", sc.Dim, len(s.Dims))
		}
	}
	return nil
}
