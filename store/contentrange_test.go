package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
)

func TestCheckContentRange(t *testing.T) {
	const size = 100
	for _, c := range []struct {
		cr   string
		off  int64
		n    int
		want string // "" for nil, "range" for a RangeError, "changed" for ErrChanged
	}{
		{"bytes 10-19/100", 10, 10, ""},
		{"bytes 10-19/*", 10, 10, ""},
		{"", 0, 10, ""},
		{"", 10, 10, "range"},                // a whole object's bytes do not start at 10
		{"bytes 20-29/100", 10, 10, "range"}, // another range of the same length
		{"bytes 10-18/100", 10, 10, "range"},
		{"bytes 10-20/100", 10, 10, "range"},
		{"bytes 10-19/200", 10, 10, "changed"},
		{"bytes 19-10/100", 10, 10, "range"},
		{"bytes 10-19/15", 10, 10, "range"},
		{"bytes +10-19/100", 10, 10, "range"},
		{"bytes 10-19", 10, 10, "range"},
		{"bytes */100", 10, 10, "range"},
		{"octets 10-19/100", 10, 10, "range"},
		{"bytes 10-99999999999999999999/100", 10, 10, "range"},
	} {
		err := checkContentRange(c.cr, c.off, c.n, size)
		var re *RangeError
		switch {
		case c.want == "" && err != nil,
			c.want == "range" && !errors.As(err, &re),
			c.want == "changed" && !errors.Is(err, ErrChanged):
			t.Errorf("checkContentRange(%q, %d, %d) = %v, want %s", c.cr, c.off, c.n, err, c.want)
		}
		if re != nil && (re.Off != c.off || re.Len != int64(c.n) || re.Size != size ||
			!strings.Contains(err.Error(), fmt.Sprintf("bytes=%d-%d", c.off, c.off+int64(c.n)-1)) || !strings.Contains(err.Error(), c.cr)) {
			t.Errorf("checkContentRange(%q): %v; want both ranges named", c.cr, err)
		}
	}
}

// FuzzContentRange: a Content-Range passes the check only when it says exactly
// the bytes asked for (or is absent, for a read from the start), and an error
// shows the header with no control character in it.
func FuzzContentRange(f *testing.F) {
	f.Add("bytes 0-9/10", int64(0), 10, int64(10))
	f.Add("bytes 10-19/*", int64(10), 10, int64(100))
	f.Add("bytes 5-4/3\x1b[2J", int64(5), 1, int64(3))
	f.Fuzz(func(t *testing.T, cr string, off int64, n int, size int64) {
		if off < 0 || n <= 0 || size <= 0 || off >= size || int64(n) > size-off {
			return // not a read ReadAt makes
		}
		err := checkContentRange(cr, off, n, size)
		first, last, total, perr := parseContentRange(cr)
		if perr == nil {
			if first < 0 || first > last || (total >= 0 && last >= total) {
				t.Fatalf("parseContentRange(%q) = %d, %d, %d", cr, first, last, total)
			}
			again := fmt.Sprintf("bytes %d-%d/%d", first, last, total)
			if f2, l2, t2, err := parseContentRange(again); total >= 0 && (err != nil || f2 != first || l2 != last || t2 != total) {
				t.Fatalf("parseContentRange(%q) = %d, %d, %d; of %q: %d, %d, %d, %v", cr, first, last, total, again, f2, l2, t2, err)
			}
		}
		if err == nil {
			if cr == "" && off != 0 || cr != "" && (perr != nil || first != off || last != off+int64(n)-1 || total >= 0 && total != size) {
				t.Fatalf("checkContentRange(%q, %d, %d, %d) passed", cr, off, n, size)
			}
			return
		}
		if strings.ContainsFunc(err.Error(), unicode.IsControl) {
			t.Fatalf("error %q holds a control character", err)
		}
	})
}
