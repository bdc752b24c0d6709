package manifest

import "bytes"

// compactArrays rewrites indented JSON so that arrays holding no objects or arrays
// print on one line.
func compactArrays(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			j := skipString(b, i)
			out.Write(b[i : j+1])
			i = j
			continue
		}
		if c != '[' {
			out.WriteByte(c)
			continue
		}
		j, flat := i+1, true
		for ; j < len(b) && b[j] != ']'; j++ {
			if b[j] == '[' || b[j] == '{' {
				flat = false
				break
			}
			if b[j] == '"' {
				for j++; j < len(b) && b[j] != '"'; j++ {
					if b[j] == '\\' {
						j++
					}
				}
			}
		}
		if !flat || j >= len(b) {
			out.WriteByte(c)
			continue
		}
		out.WriteByte('[')
		inStr := false
		for k := i + 1; k < j; k++ {
			ch := b[k]
			switch {
			case inStr:
				out.WriteByte(ch)
				if ch == '\\' {
					k++
					out.WriteByte(b[k])
				} else if ch == '"' {
					inStr = false
				}
			case ch == '"':
				inStr = true
				out.WriteByte(ch)
			case ch == ' ' || ch == '\n' || ch == '\t':
			case ch == ',':
				out.WriteString(",")
			default:
				out.WriteByte(ch)
			}
		}
		out.WriteByte(']')
		i = j
	}
	return out.Bytes()
}

// compactObjects rewrites the output of compactArrays so that an object holding only
// numbers, strings and one-line arrays prints on one line: {"id": 1, "coords": [0,1]}.
func compactObjects(b []byte) []byte {
	var out bytes.Buffer
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			j := skipString(b, i)
			out.Write(b[i : j+1])
			i = j
			continue
		}
		if c != '{' {
			out.WriteByte(c)
			continue
		}
		// Flat: no '{' before the matching '}', and no '[' that opens a line.
		j, flat := i+1, true
		for ; j < len(b) && b[j] != '}'; j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j)
			case '{':
				flat = false
			case '[':
				if j+1 < len(b) && b[j+1] == '\n' {
					flat = false
				}
			}
			if !flat {
				break
			}
		}
		if !flat || j >= len(b) {
			out.WriteByte(c)
			continue
		}
		// Join the lines: drop each newline and its indentation, and the ones around
		// the braces.
		out.WriteByte('{')
		for k := i + 1; k < j; k++ {
			switch b[k] {
			case '"':
				e := skipString(b, k)
				out.Write(b[k : e+1])
				k = e
			case '\n':
				for k+1 < j && (b[k+1] == ' ' || b[k+1] == '\t') {
					k++
				}
				if prev := out.Bytes()[out.Len()-1]; prev != '{' && k+1 < j {
					out.WriteByte(' ')
				}
			default:
				out.WriteByte(b[k])
			}
		}
		out.WriteByte('}')
		i = j
	}
	return out.Bytes()
}

// skipString returns the index of the quote that closes the JSON string opened at i.
func skipString(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' {
			j++
		}
		j++
	}
	return min(j, len(b)-1)
}
