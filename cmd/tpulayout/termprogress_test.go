package main

import (
	"bytes"
	"testing"
)

// TestTermProgressLines checks both forms of the progress line: rewritten with "\r"
// on a terminal, one whole line per step elsewhere (a log file of --progress).
func TestTermProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := newTermProgress(&buf, "convert", true)
	p.Total(3 << 10)
	p.Stage("reading")
	p.Add(1 << 10)
	p.Add(2 << 10)
	p.Done() // nothing new to say: no repeated last line
	want := "convert: reading\n" +
		"convert: 1.00 KiB of 3.00 KiB (33%)\n" +
		"convert: 3.00 KiB of 3.00 KiB (100%)\n"
	if got := buf.String(); got != want {
		t.Errorf("progress into a file:\n%q\nwant\n%q", got, want)
	}
	if newTermProgress(&buf, "convert", false) != nil {
		t.Errorf("progress, not forced, into a non-terminal")
	}

	// The terminal form (newTermProgress picks it for a terminal, which tests lack).
	buf.Reset()
	p = &termProgress{w: &buf, label: "convert", total: 2 << 10, shown: -1}
	p.Add(2 << 10)
	p.Done()
	want = "\rconvert: 2.00 KiB of 2.00 KiB (100%)   \r\033[K" // erased at the end
	if got := buf.String(); got != want {
		t.Errorf("progress on a terminal: %q, want %q", got, want)
	}
	var none *termProgress // shows nothing, and does not panic
	none.Total(1)
	none.Add(1)
	none.Stage("x")
	none.Done()
}

// Progress never shows 100% before the end, nor 0% once something is done.
func TestWholePercent(t *testing.T) {
	for _, c := range []struct {
		pct  float64
		want string
	}{{0, "0%"}, {0.4, "<1%"}, {1, "1%"}, {50.7, "50%"}, {99.6, "99%"}, {100, "100%"}} {
		if got := wholePercent(c.pct); got != c.want {
			t.Errorf("wholePercent(%v) = %q, want %q", c.pct, got, c.want)
		}
	}
}
