package convert

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// plural prints n and the noun, adding "s" unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

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

// fmtDims prints dims as "[3,5]".
func fmtDims(d []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(v, 10))
	}
	return b.String() + "]"
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
