package layout

import (
	"regexp"
	"strings"
	"testing"
)

// layoutAttrs lists the attribute letters of the first array layout in text (the
// braces after the first ']'), each with its value, by scanning the text itself
// rather than through the parser: D(…), T(…)(…), L(n), #(t), *(t), E(n), S(n),
// SC(…)(…), P(…), M(n).
func layoutAttrs(text string) map[string]string {
	close := strings.IndexByte(text, ']')
	if close < 0 || strings.HasPrefix(strings.TrimSpace(text), "(") {
		return nil
	}
	rest := text[close+1:]
	open := strings.IndexByte(rest, '{')
	colon := strings.IndexByte(rest, ':')
	if open < 0 || colon < open {
		return nil
	}
	body := rest[colon+1:]
	attrs := map[string]string{}
	for i := skipBlank(body, 0); i < len(body) && body[i] != '}'; i = skipBlank(body, i) {
		name := string(body[i])
		i++
		if name == "S" && i < len(body) && body[i] == 'C' {
			name, i = "SC", i+1
		}
		// The value: one or more (…) groups, nested brackets included, blanks and
		// comments between them skipped as the parser skips them.
		var value strings.Builder
		for {
			i = skipBlank(body, i)
			if i >= len(body) || body[i] != '(' {
				break
			}
			start, depth := i, 0
			for ; i < len(body); i++ {
				if body[i] == '(' {
					depth++
				} else if body[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
			value.WriteString(strings.Join(strings.Fields(body[start:i]), ""))
			if name != "T" && name != "SC" {
				break
			}
		}
		attrs[name] = value.String()
	}
	return attrs
}

// skipBlank returns the index of the first byte of body at or after i that is not a
// blank (space, tab, newline, carriage return) or inside a /*…*/ comment, as the
// parser skips them between tokens.
func skipBlank(body string, i int) int {
	for i < len(body) {
		switch {
		case strings.IndexByte(" \t\n\r", body[i]) >= 0:
			i++
		case strings.HasPrefix(body[i:], "/*"):
			end := strings.Index(body[i+2:], "*/")
			if end < 0 {
				return len(body)
			}
			i += end + 4
		default:
			return i
		}
	}
	return i
}

// defaultValue matches the attribute values XLA does not print: L(1), E(0), S(0), M(0).
var defaultValue = regexp.MustCompile(`^\((0+|-0+)\)$`)

// checkAttrsKept fails when in's layout has an attribute that out's lacks, except one
// at the value XLA leaves unprinted: an attribute is never dropped silently.
func checkAttrsKept(t *testing.T, in, out string) {
	t.Helper()
	got := layoutAttrs(out)
	for name, v := range layoutAttrs(in) {
		if _, ok := got[name]; ok {
			continue
		}
		if defaultValue.MatchString(v) && (name == "E" || name == "S" || name == "M") || name == "L" && (v == "(1)" || v == "(01)") {
			continue
		}
		t.Errorf("%q printed as %q: attribute %s%s dropped", in, out, name, v)
	}
}

// TestAttrsKept checks layoutAttrs itself; TestParseAccepted runs checkAttrsKept on
// every accepted case.
func TestAttrsKept(t *testing.T) {
	// The check can fail: the old reading of D(…) dropped it.
	if attrs := layoutAttrs("f32[10,10]{1,0:D(D,C)*(u32)}"); attrs["D"] != "(D,C)" || attrs["*"] != "(u32)" {
		t.Errorf("layoutAttrs = %v", attrs)
	}
	if attrs := layoutAttrs("f32[10,10]{1,0}"); len(attrs) != 0 {
		t.Errorf("layoutAttrs of a plain layout = %v", attrs)
	}
}
