package main

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
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

// maxStem is the most bytes of a tensor name a file name keeps: file systems take 255
// bytes at most, and room is left for a hash, a "-N" and ".bin".
const maxStem = 160

// shortStem shortens a file name stem (ASCII, see fileNameFor) longer than maxStem to
// its first bytes and a hash of the whole tensor name, so that long names that share a
// beginning still get distinct files.
func shortStem(stem, name string) string {
	if len(stem) <= maxStem {
		return stem
	}
	sum := sha256.Sum256([]byte(name))
	return strings.TrimRight(stem[:maxStem], "._-") + "-" + hex.EncodeToString(sum[:8])
}
