package npy

import (
	"fmt"
	"strconv"
)

// A tiny reader of the Python literals found in .npy headers: dicts, tuples, lists,
// strings, integers (Python 2 `3L` too), True, False and None. Values come back as
// string, int64, bool, nil, []any (tuple or list) and pyDict.

type pyDict struct {
	keys []string
	vals map[string]any
}

type pyParser struct {
	s     []byte
	pos   int
	depth int
}

const pyMaxDepth = 32

type pyError struct {
	pos int
	msg string
}

func (e *pyError) Error() string { return fmt.Sprintf("header byte %d: %s", e.pos, e.msg) }

func (p *pyParser) errf(format string, args ...any) error {
	return &pyError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *pyParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// parsePyLiteral parses the whole of s as one literal (trailing whitespace allowed).
func parsePyLiteral(s []byte) (any, error) {
	p := &pyParser{s: s}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return nil, p.errf("unexpected %q after the value", p.s[p.pos])
	}
	return v, nil
}

func (p *pyParser) value() (any, error) {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return nil, p.errf("unexpected end of header")
	}
	switch c := p.s[p.pos]; {
	case c == '{':
		return p.dict()
	case c == '(':
		return p.seq(')')
	case c == '[':
		return p.seq(']')
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.int()
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		start := p.pos
		for p.pos < len(p.s) && (p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z' || p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z') {
			p.pos++
		}
		switch w := string(p.s[start:p.pos]); w {
		case "True":
			return true, nil
		case "False":
			return false, nil
		case "None":
			return nil, nil
		default:
			p.pos = start
			return nil, p.errf("unexpected name %q", w)
		}
	default:
		return nil, p.errf("unexpected %q", c)
	}
}

func (p *pyParser) enter() error {
	p.depth++
	if p.depth > pyMaxDepth {
		return p.errf("nested too deeply")
	}
	return nil
}

func (p *pyParser) dict() (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++ // '{'
	d := pyDict{vals: map[string]any{}}
	for {
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			return d, nil
		}
		kpos := p.pos
		k, err := p.value()
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			p.pos = kpos
			return nil, p.errf("dict key is not a string")
		}
		if _, dup := d.vals[ks]; dup {
			p.pos = kpos
			return nil, p.errf("duplicate key %q", ks)
		}
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, p.errf("expected ':' after key %q", ks)
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		d.keys = append(d.keys, ks)
		d.vals[ks] = v
		p.skipSpace()
		if p.pos >= len(p.s) {
			return nil, p.errf("unterminated dict")
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case '}':
		default:
			return nil, p.errf("expected ',' or '}' in dict, found %q", p.s[p.pos])
		}
	}
}

func (p *pyParser) seq(end byte) (any, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++
	out := []any{}
	for {
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == end {
			p.pos++
			return out, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skipSpace()
		if p.pos >= len(p.s) {
			return nil, p.errf("unterminated %s", map[byte]string{')': "tuple", ']': "list"}[end])
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case end:
		default:
			return nil, p.errf("expected ',' or %q, found %q", end, p.s[p.pos])
		}
	}
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.pos]
	start := p.pos
	p.pos++
	var out []byte
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == q:
			p.pos++
			return string(out), nil
		case c == '\\':
			if p.pos+1 >= len(p.s) {
				p.pos = start
				return nil, p.errf("unterminated string")
			}
			p.pos++
			switch e := p.s[p.pos]; e {
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case '\\', '\'', '"':
				out = append(out, e)
			default:
				out = append(out, '\\', e)
			}
			p.pos++
		case c == '\n':
			p.pos = start
			return nil, p.errf("unterminated string")
		default:
			out = append(out, c)
			p.pos++
		}
	}
	p.pos = start
	return nil, p.errf("unterminated string")
}

func (p *pyParser) int() (any, error) {
	start := p.pos
	if c := p.s[p.pos]; c == '-' || c == '+' {
		p.pos++
	}
	digits := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == digits {
		p.pos = start
		return nil, p.errf("expected a number")
	}
	text := string(p.s[start:p.pos])
	if p.pos < len(p.s) && (p.s[p.pos] == 'L' || p.s[p.pos] == 'l') {
		p.pos++
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		p.pos = start
		return nil, p.errf("integer %s out of range", text)
	}
	return v, nil
}
