package report

import "encoding/json"

// JSON is v as the reports print it: indented, with arrays of numbers and strings kept
// on one line, and a final newline.
func JSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(compactArrays(b), '\n'), nil
}

// compactArrays rewrites indented JSON so that arrays holding no objects or arrays print
// on one line: [\n    3,\n    5\n  ] becomes [3,5].
func compactArrays(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' { // copy a string whole
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:j+1]...)
			i = j
			continue
		}
		if c != '[' {
			out = append(out, c)
			continue
		}
		// Find the matching ']' if no '[' or '{' comes first (outside strings).
		flat, j := true, i+1
		for ; j < len(b) && b[j] != ']'; j++ {
			switch b[j] {
			case '[', '{':
				flat = false
			case '"':
				for j++; j < len(b) && b[j] != '"'; j++ {
					if b[j] == '\\' {
						j++
					}
				}
			}
			if !flat {
				break
			}
		}
		if !flat || j >= len(b) {
			out = append(out, c)
			continue
		}
		out = append(out, '[')
		inStr := false
		for k := i + 1; k < j; k++ {
			switch ch := b[k]; {
			case inStr:
				out = append(out, ch)
				if ch == '\\' {
					k++
					out = append(out, b[k])
				} else if ch == '"' {
					inStr = false
				}
			case ch == '"':
				inStr = true
				out = append(out, ch)
			case ch == ' ' || ch == '\n' || ch == '\t':
			default:
				out = append(out, ch)
			}
		}
		out = append(out, ']')
		i = j
	}
	return out
}
