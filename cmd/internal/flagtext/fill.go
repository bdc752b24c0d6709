package flagtext

import "strings"

// Fill breaks the words of s into lines of at most width columns (a word longer than
// that takes a line of its own), the first after the prefix first and the others
// after rest.
func Fill(s string, width int, first, rest string) []string {
	var lines []string
	line, prefix := "", first
	for _, word := range strings.Fields(s) {
		if line != "" && Columns(prefix+line+" "+word) > width {
			lines = append(lines, prefix+line)
			line, prefix = "", rest
		}
		if line == "" {
			line = word
		} else {
			line += " " + word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, prefix+line)
	}
	return lines
}

// Columns is the width of one line on a terminal: a rune a column, a tab to the next
// multiple of 8.
func Columns(line string) int {
	n := 0
	for _, r := range line {
		if r == '\t' {
			n += 8 - n%8
		} else {
			n++
		}
	}
	return n
}
