package convert

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/hlo"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// Shape arguments: what a user may write where a shape is wanted.

// Size limits of the text files read whole (an HLO module, a manifest of All). Far
// above real files (the largest HLO dumps of big models are tens of MB); low enough that
// /dev/zero, a FIFO that never ends or a checkpoint named by mistake fails at once
// instead of filling memory.
const (
	MaxModuleBytes   = 256 << 20
	MaxManifestBytes = 64 << 20
)

// ReadTextFile reads the text file at path whole, at most limit bytes; what names it in
// errors ("MODULE"), as "cannot read MODULE PATH: …". The read is bounded as it goes: a
// regular file over the limit is refused before any byte is read, and a stream (a
// device, a pipe) as soon as it passes the limit or sends a NUL byte, which no text
// file holds, so /dev/zero or a binary file named by mistake fails at once.
func ReadTextFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputf("cannot read %s %s: %s", what, path, err)
	}
	defer f.Close()
	tooLarge := func() error {
		return inputf("cannot read %s %s: it is larger than the limit of %s for a text file", what, path, SizeText(limit))
	}
	size := int64(512)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > limit {
			return nil, tooLarge()
		}
		size = fi.Size() + 1 // the +1 sees a file that grew, and EOF, without growing b
	}
	b := make([]byte, 0, size)
	r := io.LimitReader(f, limit+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		if i := bytes.IndexByte(b[len(b):len(b)+n], 0); i >= 0 {
			return nil, inputf("cannot read %s %s: byte %d is NUL: it is not a text file", what, path, len(b)+i)
		}
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, inputf("cannot read %s %s: %s", what, path, err)
		}
	}
	if int64(len(b)) > limit {
		return nil, tooLarge()
	}
	return b, nil
}

// ReadModule reads and parses an HLO text file.
func ReadModule(path string) (*hlo.Module, error) {
	b, err := ReadTextFile(path, "MODULE", MaxModuleBytes)
	if err != nil {
		return nil, err
	}
	return parseModule(path, b)
}

// CompileShape parses and compiles a shape argument (see [ParseShape]). A parse error
// names the byte where the text went wrong.
func CompileShape(text string) (*layout.Indexer, error) {
	sh, err := ParseShape(text)
	return CompileParsed(text, sh, err)
}

// CompileParsed is [CompileShape] for a text already given to [ParseShape], with what
// it returned: a caller that looks at the shape first need not parse it (an HLO
// module, say) twice.
func CompileParsed(text string, sh layout.Shape, err error) (*layout.Indexer, error) {
	if err != nil {
		var pe *layout.ParseError
		if errors.As(err, &pe) {
			return nil, inputf("bad shape %q: at byte %d: %s", layout.Quote(pe.Input), pe.Pos, pe.Msg)
		}
		return nil, inputf("bad shape %q: %s", layout.Quote(text), err)
	}
	ix, err := layout.Compile(sh)
	if err != nil {
		return nil, inputf("shape %q: %s", layout.Quote(text), err)
	}
	return ix, nil
}

// hloRef is `hlo:MODULE.txt:param=N` or `hlo:MODULE.txt:result=N` (a tuple parameter's
// element is picked by a ' {I}' after it).
var hloRef = regexp.MustCompile(`^hlo:(.+):(param|result)=([0-9]+)$`)

// instructionStart matches the start of a pasted instruction: `[ROOT] [%]name =`.
var instructionStart = regexp.MustCompile(`^\s*(ROOT\s+)?%?[A-Za-z_][A-Za-z0-9_.\-]*\s*=`)

// shapeIndex matches a shape index such as `{1}` or `{1,0}` at the end of the text.
var shapeIndex = regexp.MustCompile(`^\{\s*[0-9]+(\s*,\s*[0-9]+)*\s*\}\s*$`)

// cutShapeIndex splits a trailing shape index off text: "(a, b) {1}" gives "(a, b)"
// and [1]. An index right after '=' is an attribute value (dimensions={1}), not one.
func cutShapeIndex(text string) (string, []int) {
	i := strings.LastIndexByte(text, '{')
	if i <= 0 || !shapeIndex.MatchString(text[i:]) {
		return text, nil
	}
	body := strings.TrimSpace(text[:i])
	if body == "" || strings.HasSuffix(body, "=") {
		return text, nil
	}
	var index []int
	inner := strings.TrimSpace(text[i:])
	for part := range strings.SplitSeq(inner[1:len(inner)-1], ",") {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return text, nil // out of range
		}
		index = append(index, v)
	}
	return body, index
}

// ParseShape reads a shape argument: a shape in XLA's text form, a pasted HLO
// instruction line, a tuple shape or instruction followed by a shape index ` {N}`,
// or hlo:MODULE.txt:param=N / result=N. A tuple must name its element unless it has
// only one. A plain shape's parse error is returned as the *layout.ParseError.
func ParseShape(text string) (layout.Shape, error) {
	if strings.HasPrefix(text, "hlo:") {
		body, index := cutShapeIndex(text)
		sh, err := hloRefShape(body)
		if err != nil {
			return sh, err
		}
		return pickElement(sh, index)
	}
	sh, err := layout.Parse(text)
	if err == nil {
		return pickElement(sh, nil)
	}
	body, index := cutShapeIndex(text)
	if index != nil {
		if s, perr := layout.Parse(body); perr == nil && s.Kind == layout.Tuple {
			return pickElement(s, index)
		}
	}
	if instructionStart.MatchString(body) {
		in, ierr := hlo.ParseInstruction(body)
		if ierr != nil {
			return layout.Shape{}, fmt.Errorf("bad HLO instruction %q: %s", body, strings.TrimPrefix(ierr.Error(), "hlo: "))
		}
		return pickElement(*in.Shape, index)
	}
	return layout.Shape{}, err
}

// pickElement returns s, or its element at index; a tuple needs an index unless it
// has exactly one element.
func pickElement(s layout.Shape, index []int) (layout.Shape, error) {
	if index == nil && s.Kind == layout.Tuple {
		if len(s.Elements) == 1 {
			return pickElement(s.Elements[0], nil)
		}
		var list []string
		for i, e := range s.Elements {
			if i == 8 {
				list = append(list, "…")
				break
			}
			list = append(list, fmt.Sprintf("{%d} %s", i, e))
		}
		return layout.Shape{}, fmt.Errorf("it is a tuple of %s, not an array; append the index of one, such as ' {0}' (%s)",
			report.Plural(int64(len(s.Elements)), "element"), strings.Join(list, ", "))
	}
	e, err := hlo.Element(s, index)
	if err != nil {
		return layout.Shape{}, errors.New(strings.TrimPrefix(err.Error(), "hlo: "))
	}
	if e.Kind == layout.Tuple {
		return pickElement(e, nil)
	}
	return e, nil
}

// hloRefShape reads the shape of an entry parameter or result of a module file.
func hloRefShape(text string) (layout.Shape, error) {
	m := hloRef.FindStringSubmatch(text)
	if m == nil {
		return layout.Shape{}, usagef("bad %q: write hlo:MODULE.txt:param=N or hlo:MODULE.txt:result=N", text)
	}
	var sh layout.Shape
	err := WithModule(m[1], func(mod *hlo.Module) error {
		var err error
		sh, err = entryShape(text, m, mod)
		return err
	})
	return sh, err
}

// entryShape returns the shape of the entry parameter or result that the match m of
// hloRef in text names, in mod.
func entryShape(text string, m []string, mod *hlo.Module) (layout.Shape, error) {
	n, err := strconv.Atoi(m[3])
	if err != nil {
		return layout.Shape{}, usagef("bad %q: %s %s is out of range", text, m[2], m[3]) // not strconv's message
	}
	// The header's entry_computation_layout, when there is one, is the layout the
	// module's callers use, as the hlo report lists.
	el := mod.EntryLayout
	if m[2] == "param" {
		p, err := mod.Parameter(n)
		if err != nil {
			return layout.Shape{}, fmt.Errorf("%s: %s", m[1], strings.TrimPrefix(err.Error(), "hlo: "))
		}
		if el != nil && len(el.Params) == len(mod.Entry.Parameters()) {
			return el.Params[n], nil
		}
		return *p.Shape, nil
	}
	rs := mod.Results()
	if el != nil {
		rs = nil
		report.FlattenShape(el.Result, nil, func(_ string, s layout.Shape) { rs = append(rs, hlo.Result{Shape: s}) })
	}
	if n >= len(rs) {
		return layout.Shape{}, fmt.Errorf("%s: entry computation %s has %s, so no result %d",
			m[1], mod.Entry.Name, report.Plural(int64(len(rs)), "result"), n)
	}
	if rs[n].NoShape {
		return layout.Shape{}, fmt.Errorf("%s: result %d of entry computation %s has no shape written, and none is inferred here; write it in the file", m[1], n, mod.Entry.Name)
	}
	return rs[n].Shape, nil
}
