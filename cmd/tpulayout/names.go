package main

import (
	"strconv"
	"unicode"
)

// nameText prints a tensor name for a table: as it is when every character is a
// visible one, else quoted with Go's escapes, so that control characters and terminal
// escapes in a file's names cannot rewrite the terminal or shift the columns.
func nameText(name string) string {
	for _, r := range name {
		if r == '"' || r == '\\' || !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return strconv.Quote(name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}
