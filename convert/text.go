package convert

import (
	"fmt"
	"strconv"
	"unicode"
)

// SizeText prints a byte count for people: "512 B", "1.50 KiB", "8.00 GiB".
func SizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/unit, 0
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.2f %ciB", f, "KMGTP"[i])
}

// NameText prints a tensor or file name for a table or a message: as it is when every
// character is a visible one, else quoted with Go's escapes, so that control characters
// and terminal escapes in a file's names cannot rewrite the terminal or shift columns.
func NameText(name string) string {
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
