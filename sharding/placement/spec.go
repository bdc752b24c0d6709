package placement

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is a PartitionSpec: for each leading dim of an array, the mesh axes that shard
// it, majormost first (nil: not sharded). Dims past the end of the spec are not
// sharded; mesh axes named nowhere replicate the array.
type Spec [][]string

// ParseSpec reads a PartitionSpec as written in Python: P("data", "model"),
// P(None, "model"), P(("data", "model")), P(); PartitionSpec(…) and single quotes
// work too. A tuple of axes shards one dim over all of them, the first majormost.
func ParseSpec(text string) (Spec, error) {
	p := &specParser{s: text}
	p.space()
	switch {
	case p.word("PartitionSpec"), p.word("P"):
	default:
		return nil, p.errorf("want P(…)")
	}
	p.space()
	if !p.eat('(') {
		return nil, p.errorf("want '(' after P")
	}
	spec := Spec{}
	for {
		p.space()
		if p.eat(')') {
			break
		}
		entry, err := p.entry()
		if err != nil {
			return nil, err
		}
		spec = append(spec, entry)
		p.space()
		if p.eat(',') {
			continue
		}
		if !p.eat(')') {
			return nil, p.errorf("want ',' or ')'")
		}
		break
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.errorf("unexpected text after ')'")
	}
	return spec, nil
}

type specParser struct {
	s string
	i int
}

func (p *specParser) errorf(format string, args ...any) error {
	return &SyntaxError{What: "spec", Input: p.s, Pos: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *specParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *specParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// word consumes w when it is followed by a non-identifier character.
func (p *specParser) word(w string) bool {
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	j := p.i + len(w)
	if j < len(p.s) && validName(p.s[p.i:j+1]) {
		return false
	}
	p.i = j
	return true
}

// entry reads None, a quoted axis name, or a tuple of quoted names.
func (p *specParser) entry() ([]string, error) {
	switch {
	case p.word("None"):
		return nil, nil
	case p.eat('('):
		var names []string
		for {
			p.space()
			if p.eat(')') {
				return names, nil
			}
			name, err := p.name()
			if err != nil {
				return nil, err
			}
			names = append(names, name)
			p.space()
			if p.eat(',') {
				continue
			}
			if !p.eat(')') {
				return nil, p.errorf("want ',' or ')' in a tuple of axes")
			}
			return names, nil
		}
	}
	name, err := p.name()
	if err != nil {
		return nil, err
	}
	return []string{name}, nil
}

func (p *specParser) name() (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		return "", p.errorf("want None, a quoted mesh axis name or a tuple of them")
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated axis name")
	}
	name := p.s[p.i+1 : p.i+1+end]
	if !validName(name) {
		return "", p.errorf("bad axis name %q", name)
	}
	p.i += end + 2
	return name, nil
}

// String prints the spec in the form ParseSpec reads: P("data", None, ("x", "y")).
func (s Spec) String() string {
	parts := make([]string, len(s))
	for i, e := range s {
		switch len(e) {
		case 0:
			parts[i] = "None"
		case 1:
			parts[i] = strconv.Quote(e[0])
		default:
			q := make([]string, len(e))
			for j, a := range e {
				q[j] = strconv.Quote(a)
			}
			parts[i] = "(" + strings.Join(q, ", ") + ")"
		}
	}
	return "P(" + strings.Join(parts, ", ") + ")"
}

// Check reports whether s fits mesh m for an array of rank rank: every axis known, no
// axis used twice, no more entries than dims.
func (s Spec) Check(m *Mesh, rank int) error {
	if len(s) > rank {
		entries := "entries"
		if len(s) == 1 {
			entries = "entry"
		}
		return &SpecError{Spec: s, Msg: fmt.Sprintf("has %d %s, but the array has rank %d", len(s), entries, rank)}
	}
	used := map[string]int{}
	for d, e := range s {
		for _, a := range e {
			if m.axis(a) < 0 {
				return &SpecError{Spec: s, Axis: a, Msg: fmt.Sprintf("names mesh axis %q, which mesh %s does not have", a, m)}
			}
			if prev, ok := used[a]; ok {
				if prev == d {
					return &SpecError{Spec: s, Axis: a, Msg: fmt.Sprintf("uses mesh axis %q twice on dim %d", a, d)}
				}
				return &SpecError{Spec: s, Axis: a, Msg: fmt.Sprintf("uses mesh axis %q twice (dims %d and %d)", a, prev, d)}
			}
			used[a] = d
		}
	}
	return nil
}
