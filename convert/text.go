package convert

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"
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

// WriteText prints what a job wrote to out (its Out) as `tpulayout convert` does:
// Out's shape, or with All one line per tensor (name, layout, file) and the manifest.
func (r *Result) WriteText(w io.Writer, out string) error {
	if r.Manifest == nil {
		_, err := fmt.Fprintln(w, r.Shape.String())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range r.Manifest.Tensors {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", NameText(e.Name), e.Layout, filepath.Join(out, e.File))
	}
	fmt.Fprintf(tw, "manifest\t\t%s\n", filepath.Join(out, "manifest.json"))
	return tw.Flush()
}
