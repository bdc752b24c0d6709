package hlo

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tpulayout/tpulayout/layout"
)

// SyntaxError reports malformed HLO text: the 1-based line and column (in bytes) where
// it went wrong and what was wrong.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("hlo: line %d, col %d: %s", e.Line, e.Col, e.Msg)
}

// maxDepth bounds bracket nesting, so hostile input cannot exhaust the stack.
const maxDepth = 1000

type scanner struct {
	in  string
	pos int
	// nested holds the instructions written as operands of the one being read;
	// anon counts the names given to them, per computation.
	nested []*Instruction
	anon   map[string]int
	// shapes holds the shapes read so far by their text, shared with the scanners of
	// nested operands.
	shapes map[string]*layout.Shape
	// names holds the names of the instructions defined so far in the computation
	// being read, against which operands are checked; nil when reading a lone
	// instruction. calls collects the computations its attributes name.
	names *nameSet
	calls *[]callRef
	// lineAt and lineNo cache the last line lookup: instructions come in file order.
	lineAt, lineNo int
	// slab holds instructions allocated together, handed out by newInstruction;
	// slabSize is how many the last block held.
	slab     []Instruction
	slabSize int
}

// maxSlab bounds the instructions allocated together: as many as fill 32 KiB, the
// largest size the Go allocator rounds to a size class, less the 8-byte header it
// puts before an object of pointers that large (a block one byte over 32 KiB, or
// rounded up to a class, would waste the difference on every block).
const maxSlab = (32<<10 - 8) / int(unsafe.Sizeof(Instruction{}))

// newInstruction returns a new zero Instruction, taken from a block of them allocated
// together (blocks double from 4 to maxSlab instructions), so that a long computation
// costs one allocation per block rather than one per instruction.
func (s *scanner) newInstruction() *Instruction {
	if len(s.slab) == 0 {
		s.slabSize = min(maxSlab, max(4, 2*s.slabSize))
		s.slab = make([]Instruction, s.slabSize)
	}
	in := &s.slab[0]
	s.slab = s.slab[1:]
	return in
}

// posError is a SyntaxError whose position is still a byte offset: the scanner builds
// one wherever a probe fails (most are discarded), so the line and column are worked
// out only for the error Parse or ParseInstruction returns (see syntaxError).
type posError struct {
	pos int
	msg string
}

func (e *posError) Error() string { return fmt.Sprintf("hlo: at byte %d: %s", e.pos, e.msg) }

func (s *scanner) errAt(pos int, format string, args ...any) error {
	return &posError{pos: min(max(pos, 0), len(s.in)), msg: fmt.Sprintf(format, args...)}
}

// parseWords is err, from package layout, as a message of this package quotes it: a
// *layout.ParseError by its fields (the input, the byte and what is wrong there),
// without the package's name; any other error whole.
func parseWords(err error) string {
	var pe *layout.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("parse %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
	}
	return err.Error()
}

// syntaxError turns a *posError from reading text into the *SyntaxError that names its
// line and column; other errors pass through.
func syntaxError(text string, err error) error {
	pe, ok := err.(*posError)
	if !ok {
		return err
	}
	pos := min(pe.pos, len(text))
	line := 1 + strings.Count(text[:pos], "\n")
	col := pos - strings.LastIndexByte(text[:pos], '\n')
	return &SyntaxError{Line: line, Col: col, Msg: pe.msg}
}

func (s *scanner) errf(format string, args ...any) error { return s.errAt(s.pos, format, args...) }

func (s *scanner) line(pos int) int {
	if pos < s.lineAt || s.lineNo == 0 {
		s.lineAt, s.lineNo = 0, 1
	}
	s.lineNo += strings.Count(s.in[s.lineAt:pos], "\n")
	s.lineAt = pos
	return s.lineNo
}

// space skips blanks, newlines and comments. With stopAtNewline it stops before a
// newline (attribute values end at one).
func (s *scanner) space(stopAtNewline bool) {
	in, p := s.in, s.pos
	for p < len(in) {
		c := in[p]
		if c > ' ' && c != '/' {
			break // neither a blank nor a comment
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' && !stopAtNewline {
			p++
			continue
		}
		if c == '/' && strings.HasPrefix(in[p:], "/*") {
			end := strings.Index(in[p+2:], "*/")
			if end < 0 {
				break // unterminated: the caller meets "/*" and reports it
			}
			p += end + 4
			continue
		}
		if c == '/' && strings.HasPrefix(in[p:], "//") {
			end := strings.IndexByte(in[p:], '\n')
			if end < 0 {
				p = len(in)
				break
			}
			p += end
			continue
		}
		break
	}
	s.pos = p
}

func (s *scanner) peek() byte {
	s.space(false)
	if s.pos < len(s.in) {
		return s.in[s.pos]
	}
	return 0
}

func (s *scanner) describe() string {
	s.space(false)
	if s.pos >= len(s.in) {
		return "the end (truncated?)"
	}
	if strings.HasPrefix(s.in[s.pos:], "/*") {
		return "an unterminated /* comment"
	}
	end := s.pos
	for end < len(s.in) && end-s.pos < 20 && s.in[end] != '\n' {
		end++
	}
	return fmt.Sprintf("%q", s.in[s.pos:end])
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isNameByte(c byte) bool {
	return isNameStart(c) || c >= '0' && c <= '9' || c == '.' || c == '-'
}

// name reads an identifier, with an optional leading '%'; it returns "" if none.
func (s *scanner) name() string {
	s.space(false)
	p := s.pos
	if p < len(s.in) && s.in[p] == '%' {
		p++
	}
	if p >= len(s.in) || !isNameStart(s.in[p]) {
		return ""
	}
	start := p
	for p < len(s.in) && isNameByte(s.in[p]) {
		p++
	}
	s.pos = p
	return s.in[start:p]
}

// word reads the next identifier if it equals w.
func (s *scanner) word(w string) bool {
	s.space(false)
	if strings.HasPrefix(s.in[s.pos:], w) {
		end := s.pos + len(w)
		if end == len(s.in) || !isNameByte(s.in[end]) {
			s.pos = end
			return true
		}
	}
	return false
}

// group reads a bracketed group starting at s.pos, which holds an opening bracket,
// up to its matching close, skipping strings and comments; it returns the text
// inside, brackets excluded.
func (s *scanner) group() (string, error) {
	text, _, _, err := s.groupSplit(nil, false)
	return text, err
}

// groupSplit is group that, with split, also splits the text inside at its commas
// outside nested brackets, strings and comments, returning the parts' byte ranges
// (from the text's start, untrimmed) appended to parts as splitTopAt does, and marks
// with bit i those of parts i < 64 that hold a '(' outside nested brackets or a '/'.
func (s *scanner) groupSplit(parts [][2]int, split bool) (text string, _ [][2]int, marks uint64, err error) {
	in, start := s.in, s.pos
	var stack []byte
	part := start + 1 // where the current part starts
	for p := start; p < len(in); p++ {
		c := in[p]
		if !groupBytes[c] {
			continue
		}
		switch c {
		case '(', '[', '{':
			if len(stack) == maxDepth {
				return "", nil, 0, s.errAt(p, "brackets nested more than %d deep", maxDepth)
			}
			if c == '(' && len(stack) == 1 && split && len(parts) < 64 {
				marks |= 1 << len(parts)
			}
			stack = append(stack, closer(c))
		case ')', ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return "", nil, 0, s.errAt(p, "unbalanced %q", c)
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				s.pos = p + 1
				if split && (len(parts) > 0 || stripComments(in[part:p]) != "") {
					parts = append(parts, [2]int{part - start - 1, p - start - 1})
				}
				return in[start+1 : p], parts, marks, nil
			}
		case ',':
			if len(stack) == 1 && split {
				parts = append(parts, [2]int{part - start - 1, p - start - 1})
				part = p + 1
			}
		case '"':
			s.pos = p
			if err := s.str(); err != nil {
				return "", nil, 0, err
			}
			p = s.pos - 1
		case '/':
			if split && len(parts) < 64 {
				marks |= 1 << len(parts)
			}
			if p+1 < len(in) && in[p+1] == '*' {
				end := strings.Index(in[p+2:], "*/")
				if end < 0 {
					return "", nil, 0, s.errAt(p, "unterminated /* comment")
				}
				p += end + 3
			}
		}
	}
	s.pos = len(in)
	return "", nil, 0, s.errAt(start, "%q is never closed: the text ends first (truncated?)", in[start])
}

// groupBytes are the bytes groupSplit acts on: brackets, ',', '"' and '/'.
var groupBytes = [256]bool{'(': true, '[': true, '{': true, ')': true, ']': true, '}': true, ',': true, '"': true, '/': true}

func closer(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// str skips a double-quoted string with backslash escapes starting at s.pos.
func (s *scanner) str() error {
	in, start := s.in, s.pos
	for p := start + 1; p < len(in); p++ {
		switch in[p] {
		case '\\':
			p++
		case '"':
			s.pos = p + 1
			return nil
		}
	}
	s.pos = len(in)
	return s.errAt(start, "string is never closed: the text ends first (truncated?)")
}

// shape reads a shape: a tuple `(…)`, a buffer `b(…)`, or `type[dims]` with an
// optional `{layout}`, and parses it with layout.Parse. A text read before gives the
// same *Shape again.
func (s *scanner) shape() (*layout.Shape, error) {
	s.space(false)
	start := s.pos
	if err := s.skipShape(); err != nil {
		return nil, err
	}
	text := s.in[start:s.pos]
	if sh, ok := s.shapes[text]; ok {
		return sh, nil
	}
	sh, err := layout.Parse(text)
	if err != nil {
		var pe *layout.ParseError
		if errors.As(err, &pe) {
			return nil, s.errAt(start+pe.Pos, "bad shape %s: %s", text, pe.Msg)
		}
		return nil, s.errAt(start, "bad shape %s: %s", text, err)
	}
	if i := physicalAt(sh, text); i >= 0 {
		return nil, s.errAt(start+i, "bad shape %s: a sparse layout's physical shape P(…) is the older XLA form, which XLA's parser now refuses", text)
	}
	if s.shapes != nil {
		s.shapes[text] = &sh
	}
	return &sh, nil
}

// physicalAt returns where in text the first P(…) of shape sh is written, or -1 when
// sh (or any element of a tuple) has none.
func physicalAt(sh layout.Shape, text string) int {
	has := false
	var walk func(layout.Shape)
	walk = func(s layout.Shape) {
		has = has || s.Layout.Physical != nil
		for _, e := range s.Elements {
			walk(e)
		}
	}
	walk(sh)
	if !has {
		return -1
	}
	for i := strings.Index(text, "P("); i >= 0; {
		if i > 0 && (text[i-1] == ':' || text[i-1] == ')') {
			return i
		}
		j := strings.Index(text[i+1:], "P(")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return 0
}

// skipShape moves s.pos past the text of a shape (see shape) without parsing it.
func (s *scanner) skipShape() error {
	s.space(false)
	start := s.pos
	if s.peek() == '(' {
		_, err := s.group()
		return err
	}
	t := s.name()
	if t == "" || s.in[start] == '%' {
		s.pos = start
		return s.errf("expected a shape, found %s", s.describe())
	}
	switch {
	case t == "b" && s.pos < len(s.in) && s.in[s.pos] == '(':
		_, err := s.group()
		return err
	case s.pos < len(s.in) && s.in[s.pos] == '[':
		if _, err := s.group(); err != nil {
			return err
		}
		// '{' starts a layout only when a number, '-', ':' or '}' follows, as in XLA.
		if s.pos < len(s.in) && s.in[s.pos] == '{' {
			rest := strings.TrimLeft(s.in[s.pos+1:], " ")
			if rest != "" && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == '-' || rest[0] == ':' || rest[0] == '}') {
				if _, err := s.group(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	s.pos = start
	return s.errf("expected a shape such as f32[8,128], found %s", s.describe())
}

// value reads the value of attribute name: text up to a ',' or newline outside
// brackets, or a '}' that closes the enclosing computation. Text after the value on its
// line, past a blank (`sharding={replicated} junk`), is an error, as in XLA.
//
// Blanks and line breaks right after '=' are skipped, as XLA's lexer does: a value may
// start on the next line (`sharding=` then `{replicated}`).
func (s *scanner) value(name string) (string, error) {
	s.space(false)
	in, start := s.in, s.pos
	for p := start; p < len(in); {
		c := in[p]
		if !valueBytes[c] {
			p++
			continue
		}
		s.pos = p
		switch c {
		case ',', '\n', '}', ')', ']':
			return s.valueText(start, p)
		case ' ', '\t', '\r':
			s.space(true)
			if s.pos < len(in) && !strings.ContainsRune(",\n})]", rune(in[s.pos])) {
				return "", s.errf("unexpected %s after the value of attribute %s", s.describe(), name)
			}
			return s.valueText(start, p)
		case '(', '[', '{':
			if _, err := s.group(); err != nil {
				return "", err
			}
		case '"':
			if err := s.str(); err != nil {
				return "", err
			}
		}
		p = s.pos
	}
	s.pos = len(in)
	return s.valueText(start, len(in))
}

// valueBytes are the bytes value acts on: those that end a value, blanks, opening
// brackets and '"'.
var valueBytes = [256]bool{',': true, '\n': true, '}': true, ')': true, ']': true, ' ': true, '\t': true, '\r': true, '(': true, '[': true, '{': true, '"': true}

func (s *scanner) valueText(start, end int) (string, error) {
	v := strings.TrimSpace(s.in[start:end])
	if v == "" {
		return "", s.errf("missing attribute value")
	}
	return v, nil
}

// callRef is a computation named by an instruction's attribute, at byte pos.
type callRef struct {
	name string
	pos  int
}

// callAttrs are the attributes whose value names computations: `%c` or `{%a, %b}`.
var callAttrs = map[string]bool{
	"to_apply": true, "calls": true, "condition": true, "body": true, "select": true,
	"scatter": true, "branch_computations": true, "called_computations": true,
	"true_computation": true, "false_computation": true,
}

// attrs reads `, name=value` pairs while a comma follows; it returns them when keep.
func (s *scanner) attrs(keep bool) ([]Attr, error) {
	var as []Attr
	for s.peek() == ',' {
		s.pos++
		n := s.name()
		if n == "" {
			return nil, s.errf("expected an attribute name after ',', found %s", s.describe())
		}
		if s.peek() != '=' {
			return nil, s.errf("expected '=' after attribute %s, found %s", n, s.describe())
		}
		s.pos++
		s.space(false)
		at := s.pos
		v, err := s.value(n)
		if err != nil {
			return nil, err
		}
		if callAttrs[n] && s.calls != nil {
			s.noteCalls(v, at)
		}
		if keep {
			as = append(as, Attr{n, v})
		}
	}
	return as, nil
}

// noteCalls records the computations named by the value v, written at byte at.
func (s *scanner) noteCalls(v string, at int) {
	body := strings.TrimSuffix(strings.TrimPrefix(v, "{"), "}")
	off := at + len(v) - len(strings.TrimPrefix(v, "{"))
	for _, r := range splitTopAt(nil, body) {
		name := strings.TrimSpace(body[r[0]:r[1]])
		lead := strings.Index(body[r[0]:r[1]], name)
		*s.calls = append(*s.calls, callRef{strings.TrimPrefix(name, "%"), off + r[0] + lead})
	}
}

// splitTop splits text at commas outside brackets and strings, trimming each part and
// dropping /*…*/ comments; an empty text gives no parts.
func splitTop(text string) []string {
	var parts []string
	for _, r := range splitTopAt(nil, text) {
		parts = append(parts, stripComments(text[r[0]:r[1]]))
	}
	return parts
}

// splitTopAt is splitTop as byte ranges of text, untrimmed, appended to parts.
func splitTopAt(parts [][2]int, text string) [][2]int {
	depth, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '/':
			if strings.HasPrefix(text[i:], "/*") {
				if end := strings.Index(text[i+2:], "*/"); end >= 0 {
					i += end + 3
				}
			}
		case ',':
			if depth == 0 {
				parts = append(parts, [2]int{start, i})
				start = i + 1
			}
		}
	}
	if stripComments(text[start:]) != "" || len(parts) > 0 {
		parts = append(parts, [2]int{start, len(text)})
	}
	return parts
}

func stripComments(s string) string {
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			return strings.TrimSpace(s)
		}
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return strings.TrimSpace(s)
		}
		s = s[:i] + s[i+2+j+2:]
	}
}

// instruction reads `[ROOT] name = shape opcode(operands), attrs`.
func (s *scanner) instruction() (*Instruction, error) {
	s.space(false)
	in := s.newInstruction()
	in.Line, in.pos = s.line(s.pos), s.pos
	in.Root = s.word("ROOT")
	in.Name = s.name()
	if in.Name == "" {
		return nil, s.errf("expected an instruction name, found %s", s.describe())
	}
	if s.peek() != '=' {
		return nil, s.errf("expected '=' after instruction name %s, found %s", in.Name, s.describe())
	}
	s.pos++
	if err := s.rhs(in, false); err != nil {
		return nil, err
	}
	return in, nil
}

// rhs reads what follows `name =`: `[shape] opcode(operands)`, then the attributes
// unless nested (an operand written as an instruction takes none).
func (s *scanner) rhs(in *Instruction, nested bool) error {
	var err error
	if s.opcodeFollows() {
		// No shape written: XLA infers it for some opcodes (see inferShapes).
		in.Inferred, in.Shape = true, &layout.Shape{}
	} else if in.Shape, err = s.shape(); err != nil {
		return err
	}
	at := s.pos
	if in.Opcode = s.name(); in.Opcode == "" || s.in[at:s.pos][0] == '%' {
		s.pos = at
		return s.errf("expected the opcode of %s after its shape, found %s", in.Name, s.describe())
	}
	in.Known = isKnownOpcode(in.Opcode)
	if s.pos >= len(s.in) || s.in[s.pos] != '(' {
		return s.errf("expected '(' after opcode %s, found %s", in.Opcode, s.describe())
	}
	open := s.pos
	if err := s.operands(in); err != nil {
		return err
	}
	ops := s.in[open:s.pos]
	if !nested {
		start := s.pos
		if _, err = s.attrs(false); err != nil {
			return err
		}
		in.attrs = s.in[start:s.pos]
	}
	if in.Inferred && !inferable[in.Opcode] {
		return s.errAt(at, "%s = %s(…) has no shape: XLA infers a shape only for opcodes such as tuple, get-tuple-element and elementwise ops, not for %s; write it, as in %s = f32[8]{0} %s(…)", in.Name, in.Opcode, in.Opcode, in.Name, in.Opcode)
	}
	if in.Opcode == "parameter" {
		if _, ok := in.ParameterNumber(); !ok {
			return s.errAt(at, "parameter %s needs one non-negative number, not %s", in.Name, ops)
		}
	}
	return nil
}

// operands reads `(a, b, …)` at s.pos into in.ops (see [Instruction.Operands]). An
// operand written as an instruction, as XLA's parser allows (`add(f32[10]
// parameter(0), x)`), becomes an instruction of its own, named as XLA names it
// (`parameter.anon`), put in s.nested to precede in; the operand is then its name.
func (s *scanner) operands(in *Instruction) error {
	open := s.pos
	var buf [4][2]int
	_, parts, marks, err := s.groupSplit(buf[:0], true) // marks: see nestedFollows
	if err != nil {
		return err
	}
	end := s.pos
	if s.anon == nil {
		s.anon = map[string]int{} // shared with the scanners of nested operands
	}
	var texts []string // the operand texts, once one is written as an instruction
	for i, r := range parts {
		a, b := open+1+r[0], open+1+r[1]
		text := stripComments(s.in[a:b])
		if probe := (scanner{in: s.in[:b], pos: a}); (i >= 64 || marks>>i&1 != 0) && probe.nestedFollows() {
			sub := &scanner{in: s.in[:b], pos: a, anon: s.anon, shapes: s.shapes, names: s.names, calls: s.calls}
			n := &Instruction{Line: s.line(sub.pos), pos: sub.pos}
			if err := sub.rhs(n, true); err != nil {
				return err
			}
			if sub.peek() != 0 {
				return sub.errf("unexpected %s after the instruction written as an operand of %s", sub.describe(), in.Name)
			}
			n.Name = s.anonName(n.Opcode)
			s.nested = append(s.nested, sub.nested...)
			s.nested = append(s.nested, n)
			text = n.Name
			if texts == nil {
				texts = make([]string, 0, len(parts))
				for _, q := range parts[:i] {
					texts = append(texts, stripComments(s.in[open+1+q[0]:open+1+q[1]]))
				}
			}
		} else if err := s.checkOperand(in, text, a, b); err != nil {
			return err
		}
		if texts != nil {
			texts = append(texts, text)
		}
	}
	in.ops = s.in[open+1 : end-1]
	if texts != nil {
		// Operands splits this as it split the text: each part has no comma outside
		// brackets, and splitting trims it.
		in.ops = strings.Join(texts, ", ")
	}
	return nil
}

// checkOperand refuses an operand, written at s.in[a:b] as `[shape] name`, that names
// no instruction defined before it in the computation, as XLA's parser does. The
// operands of parameter (its number) and constant (its literal) are not names.
func (s *scanner) checkOperand(in *Instruction, text string, a, b int) error {
	if s.names == nil || in.Opcode == "parameter" || in.Opcode == "constant" {
		return nil
	}
	name := text
	if i := strings.LastIndexAny(text, " \t\r\n"); i >= 0 {
		name = text[i+1:]
	}
	name = strings.TrimPrefix(name, "%")
	if s.names.has(name) {
		return nil
	}
	for _, n := range s.nested {
		if n.Name == name {
			return nil
		}
	}
	at := a
	if i := strings.LastIndex(s.in[a:b], name); i >= 0 {
		at = a + i
		if at > a && s.in[at-1] == '%' {
			at--
		}
	}
	return s.errAt(at, "operand %s of %s is not defined before it in this computation", name, in.Name)
}

// nestedFollows reports whether an instruction, `[shape] opcode(`, starts at s.pos
// (rather than `[shape] name`); s.pos is left at its start. It is false for a part
// of an operand list that holds neither a '(' outside nested brackets nor a '/' (the
// start of a comment, which group does not skip as space does when it is `//`), as
// groupSplit marks them: the '(' after an opcode, or around a tuple shape, is one.
func (s *scanner) nestedFollows() bool {
	s.space(false)
	start := s.pos
	defer func() { s.pos = start }()
	if !s.opcodeFollows() && s.skipShape() != nil {
		return false
	}
	at := s.pos
	n := s.name()
	return n != "" && s.in[at] != '%' && s.pos < len(s.in) && s.in[s.pos] == '('
}

// anonName names an instruction written as an operand as XLA does: opcode.anon, then
// opcode.anon.1, …
func (s *scanner) anonName(opcode string) string {
	if s.anon == nil {
		s.anon = map[string]int{}
	}
	base := opcode + ".anon"
	n := s.anon[base]
	s.anon[base] = n + 1
	if n == 0 {
		return base
	}
	return base + "." + strconv.Itoa(n)
}

// opcodeFollows reports whether the text at s.pos is `opcode(` rather than a shape:
// a name, not a dtype or `b`, followed right away by '('.
func (s *scanner) opcodeFollows() bool {
	save := s.pos
	defer func() { s.pos = save }()
	n := s.name()
	if n == "" || s.in[save:s.pos][0] == '%' || s.pos >= len(s.in) || s.in[s.pos] != '(' {
		return false
	}
	if _, ok := layout.DTypeByName(n); ok || n == "b" {
		return false
	}
	return true
}

// ParseInstruction reads one instruction, such as a line pasted from a dump:
// `%p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), sharding={replicated}`.
func ParseInstruction(text string) (*Instruction, error) {
	s := &scanner{in: text, shapes: map[string]*layout.Shape{}}
	in, err := s.instruction()
	if err == nil && s.peek() != 0 {
		err = s.errf("unexpected %s after the instruction", s.describe())
	}
	if err != nil {
		return nil, syntaxError(text, err)
	}
	return in, nil
}

// Parse reads an HLO module's text. The `HloModule name` line may be left out, as
// XLA's parser allows: the module is then unnamed and holds the computations.
//
// The module's strings (names, operands, attribute values) share text's memory rather
// than copying it, so text must not be changed while the module is in use; and
// instructions written with the same shape text share that Shape's slices, so a
// caller changes a Shape only after cloning it.
func Parse(text []byte) (*Module, error) {
	if len(text) == 0 {
		return ParseString("")
	}
	return ParseString(unsafe.String(&text[0], len(text)))
}

// ParseString is [Parse] of text held as a string.
func ParseString(text string) (*Module, error) {
	s := &scanner{in: text, shapes: map[string]*layout.Shape{}}
	m, err := s.module()
	if err != nil {
		return nil, syntaxError(s.in, err)
	}
	return m, nil
}

// module reads a whole module's text.
func (s *scanner) module() (*Module, error) {
	m := &Module{}
	if s.word("HloModule") {
		m.HeaderLine = true
		if m.Name = s.name(); m.Name == "" {
			return nil, s.errf("expected the module name after HloModule, found %s", s.describe())
		}
		if s.pos < len(s.in) && s.in[s.pos] == ':' {
			s.pos++ // older XLA printed `HloModule name:`
		}
		var err error
		if m.Attrs, err = s.attrs(true); err != nil {
			return nil, err
		}
		if v, ok := m.Attr("entry_computation_layout"); ok {
			if m.EntryLayout, err = parseEntryLayout(v); err != nil {
				return nil, s.errAt(strings.Index(s.in, v), "entry_computation_layout: %s", err)
			}
		}
	} else if err := s.checkHeaderless(); err != nil {
		return nil, err
	}
	names := map[string]int{}
	var calls []callRef
	s.calls = &calls
	for s.peek() != 0 {
		if s.skipStackFrameTables() {
			continue
		}
		calls = calls[:0]
		c, err := s.computation()
		if err != nil {
			return nil, err
		}
		for _, r := range calls {
			if _, ok := names[r.name]; !ok {
				return nil, s.errAt(r.pos, "computation %s, called from %s, is not defined before it", r.name, c.Name)
			}
		}
		if l, dup := names[c.Name]; dup {
			return nil, &SyntaxError{Line: c.Line, Col: 1, Msg: fmt.Sprintf("computation %s is defined twice (first on line %d)", c.Name, l)}
		}
		names[c.Name] = c.Line
		if c.Entry {
			if m.EntryMarked {
				return nil, &SyntaxError{Line: c.Line, Col: 1, Msg: fmt.Sprintf("second ENTRY computation %s (the first is %s)", c.Name, m.Entry.Name)}
			}
			m.Entry, m.EntryMarked = c, true
		}
		m.Computations = append(m.Computations, c)
	}
	if len(m.Computations) == 0 {
		return nil, s.errf("module %s has no computations (truncated?)", m.Name)
	}
	for _, c := range m.Computations {
		c.inferShapes()
	}
	if m.Entry == nil {
		m.Entry = m.Computations[len(m.Computations)-1]
	}
	return m, nil
}

// checkHeaderless checks the start of a module without an `HloModule` line: XLA's
// parser reads such text as a module only when it starts with ENTRY or with a
// computation's name and its '{'; anything else (`%name (…`, an instruction) it reads
// as a single instruction, not a module.
func (s *scanner) checkHeaderless() error {
	save := s.pos
	defer func() { s.pos = save }()
	if s.word("ENTRY") {
		return nil
	}
	n := s.name()
	if n == "" {
		return s.errf("expected 'HloModule name' or a computation at the start of an HLO module, found %s", s.describe())
	}
	if s.peek() != '{' {
		return s.errf("a module without an HloModule line starts with ENTRY or a computation (%s {…}), as XLA's parser takes it; found %s after %s", n, s.describe(), n)
	}
	return nil
}

// skipStackFrameTables skips the stack-frame tables that newer XLA prints between
// the header and the computations (FileNames, FunctionNames, FileLocations,
// StackFrames: a header line, then entries that start with a number); they hold no
// shapes. It reports whether it skipped one.
func (s *scanner) skipStackFrameTables() bool {
	save := s.pos
	for _, w := range []string{"FileNames", "FunctionNames", "FileLocations", "StackFrames"} {
		if !s.word(w) {
			continue
		}
		rest := strings.TrimLeft(s.in[s.pos:], " \t\r")
		if rest != "" && rest[0] != '\n' {
			s.pos = save // a computation with that name
			return false
		}
		for {
			nl := strings.IndexByte(s.in[s.pos:], '\n')
			if nl < 0 {
				s.pos = len(s.in)
				return true
			}
			s.pos += nl + 1
			line := strings.TrimSpace(s.in[s.pos:min(len(s.in), s.pos+strings.IndexByte(s.in[s.pos:]+"\n", '\n'))])
			if line != "" && (line[0] < '0' || line[0] > '9') {
				return true
			}
		}
	}
	return false
}

// computation reads `[ENTRY] name [(params) -> shape] { instructions }`.
func (s *scanner) computation() (*Computation, error) {
	s.space(false)
	c := &Computation{Line: s.line(s.pos)}
	s.anon = nil
	c.Entry = s.word("ENTRY")
	if c.Name = s.name(); c.Name == "" {
		return nil, s.errf("expected a computation (name {…}) or ENTRY, found %s", s.describe())
	}
	if s.peek() == '(' {
		open := s.pos
		params, err := s.group()
		if err != nil {
			return nil, err
		}
		for _, p := range splitTop(params) {
			name, shapeText, ok := strings.Cut(p, ":")
			if !ok {
				return nil, s.errAt(open, "parameter %q of %s needs the form name: shape", p, c.Name)
			}
			sh, err := layout.Parse(strings.TrimSpace(shapeText))
			if err != nil {
				return nil, s.errAt(open, "parameter %s of %s: %s", strings.TrimSpace(name), c.Name, parseWords(err))
			}
			c.Params = append(c.Params, Param{strings.TrimPrefix(strings.TrimSpace(name), "%"), sh})
		}
		s.space(false)
		if !strings.HasPrefix(s.in[s.pos:], "->") {
			return nil, s.errf("expected '->' and the result shape after the parameters of %s, found %s", c.Name, s.describe())
		}
		s.pos += 2
		res, err := s.shape()
		if err != nil {
			return nil, err
		}
		c.Result = res
	}
	if s.peek() != '{' {
		return nil, s.errf("expected '{' to open computation %s, found %s", c.Name, s.describe())
	}
	open := s.pos
	s.pos++
	if err := s.instructionList(c, open); err != nil {
		return nil, err
	}
	return c, nil
}

// instructionList reads the instructions of c up to its closing '}' and the
// attributes after it; open is where its '{' is.
func (s *scanner) instructionList(c *Computation, open int) error {
	names := newNameSet(s.in)
	s.names = names
	defer func() { s.names = nil }()
	var list blockList
	for {
		switch s.peek() {
		case 0:
			return s.errAt(open, "computation %s is never closed: the text ends first (truncated?)", c.Name)
		case '}':
			s.pos++
			c.Instructions = list.all()
			if len(c.Instructions) == 0 {
				return s.errAt(open, "computation %s has no instructions", c.Name)
			}
			if c.Root == nil {
				c.Root = c.Instructions[len(c.Instructions)-1]
			}
			if err := s.checkParameters(c); err != nil {
				return err
			}
			_, err := s.attrs(false) // execution_thread="…"
			return err
		}
		s.nested = nil
		in, err := s.instruction()
		if err != nil {
			return err
		}
		for _, n := range s.nested {
			if !names.add(n, false) {
				return &SyntaxError{Line: n.Line, Col: 1, Msg: fmt.Sprintf("instruction %s (written as an operand) is defined twice in %s (first on line %d)", n.Name, c.Name, list.lineOf(n.Name))}
			}
			list.add(n)
		}
		if !names.add(in, true) {
			return &SyntaxError{Line: in.Line, Col: 1, Msg: fmt.Sprintf("instruction %s is defined twice in %s (first on line %d)", in.Name, c.Name, list.lineOf(in.Name))}
		}
		if in.Root {
			if c.Root != nil {
				return &SyntaxError{Line: in.Line, Col: 1, Msg: fmt.Sprintf("second ROOT in %s: %s (the first is %s)", c.Name, in.Name, c.Root.Name)}
			}
			c.Root = in
		}
		list.add(in)
	}
}

// blockList collects a computation's instructions in blocks that double up to
// maxBlock, so a long computation is listed without append's repeated copies and
// discarded arrays, and a short one without a large block.
type blockList struct {
	blocks [][]*Instruction
	n      int
}

const maxBlock = 1 << 14

func (l *blockList) add(in *Instruction) {
	if k := len(l.blocks); k == 0 || len(l.blocks[k-1]) == cap(l.blocks[k-1]) {
		size := 8
		if k > 0 {
			size = min(2*cap(l.blocks[k-1]), maxBlock)
		}
		l.blocks = append(l.blocks, make([]*Instruction, 0, size))
	}
	b := &l.blocks[len(l.blocks)-1]
	*b = append(*b, in)
	l.n++
}

// all returns the instructions in order, in a slice of their number.
func (l *blockList) all() []*Instruction {
	out := make([]*Instruction, 0, l.n)
	for _, b := range l.blocks {
		out = append(out, b...)
	}
	return out
}

// lineOf returns the line of the first instruction named name, 0 when none is.
func (l *blockList) lineOf(name string) int {
	for _, b := range l.blocks {
		for _, in := range b {
			if in.Name == name {
				return in.Line
			}
		}
	}
	return 0
}

// checkParameters refuses what XLA refuses of c's parameter instructions: a number
// used twice, and numbers other than 0…n-1 for n parameters (a gap).
func (s *scanner) checkParameters(c *Computation) error {
	var params []*Instruction
	first := map[int]*Instruction{}
	for _, in := range c.Instructions {
		k, ok := in.ParameterNumber()
		if !ok {
			continue
		}
		if p, dup := first[k]; dup {
			return s.errAt(in.pos, "parameter %s of %s has number %d, as %s (line %d) has: each number is used once", in.Name, c.Name, k, p.Name, p.Line)
		}
		first[k] = in
		params = append(params, in)
	}
	for _, in := range params {
		if k, _ := in.ParameterNumber(); k >= len(params) {
			return s.errAt(in.pos, "parameter %s of %s has number %d, but %s has %d parameters: they are numbered 0 to %d without gaps", in.Name, c.Name, k, c.Name, len(params), len(params)-1)
		}
	}
	return nil
}
