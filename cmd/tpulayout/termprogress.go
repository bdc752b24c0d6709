package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/tpulayout/tpulayout/convert"
)

// progressEvery is the least time between two rewrites of a terminal's line.
const progressEvery = 200 * time.Millisecond

// termProgress is a convert.Progress (and a sharding one) for people: a throttled "\r"-rewritten line such as
//
//	convert: 1.50 GiB of 8.00 GiB (18%)
//
// on a terminal, or elsewhere (a log file, a pipe) one whole line per step, without
// "\r", so that a log reads cleanly. A nil *termProgress shows nothing, so callers
// need not check.
type termProgress struct {
	w       io.Writer
	label   string
	total   int64
	done    int64
	last    time.Time
	printed bool
	lines   bool  // not a terminal: one line per step
	shown   int64 // done when last printed, in lines mode
}

// newTermProgress returns a display labelled label on w when w is a terminal, or
// when forced (then as lines where w is not a terminal), and nil otherwise.
func newTermProgress(w io.Writer, label string, forced bool) *termProgress {
	f, ok := w.(*os.File)
	term := ok && isTerminal(f)
	if !forced && !term {
		return nil
	}
	return &termProgress{w: w, label: label, lines: !term, shown: -1}
}

// Total sets the bytes that make 100%.
func (p *termProgress) Total(n int64) {
	if p != nil {
		p.total = n
	}
}

// Add records n more bytes done and prints the line if enough time has passed.
func (p *termProgress) Add(n int64) {
	if p == nil {
		return
	}
	p.done += n
	if p.lines {
		p.print()
		return
	}
	if now := time.Now(); now.Sub(p.last) >= progressEvery {
		p.last = now
		p.print()
	}
}

// Stage replaces the line with a message such as "validate: comparing" (a
// validate.Options.Stage).
func (p *termProgress) Stage(msg string) {
	if p == nil {
		return
	}
	if p.lines {
		fmt.Fprintf(p.w, "%s: %s\n", p.label, msg)
		return
	}
	fmt.Fprintf(p.w, "\r%s: %-40s", p.label, msg)
	p.printed = true
}

func (p *termProgress) print() {
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(p.done) / float64(p.total)
	}
	if p.lines {
		if p.done != p.shown {
			p.shown = p.done
			fmt.Fprintf(p.w, "%s: %s of %s (%s)\n", p.label, convert.SizeText(p.done), convert.SizeText(p.total), wholePercent(pct))
		}
		return
	}
	fmt.Fprintf(p.w, "\r%s: %s of %s (%s)   ", p.label, convert.SizeText(p.done), convert.SizeText(p.total), wholePercent(pct))
	p.printed = true
}

// wholePercent prints a percentage between 0 and 100 in whole percents rounded down,
// except that one above 0 is never "0%": 99.6 is "99%", 0.4 is "<1%".
func wholePercent(pct float64) string {
	if pct > 0 && pct < 1 {
		return "<1%"
	}
	return fmt.Sprintf("%d%%", int(pct))
}

// Done ends the display. In a log (lines mode) it prints the final state; on a
// terminal it erases the rewritten line, so that the screen holds what the program
// printed (a report, an error) and not a stale "100%" or "comparing" between them.
func (p *termProgress) Done() {
	if p == nil {
		return
	}
	if p.lines {
		if p.total > 0 {
			p.print()
		}
		return
	}
	if p.printed {
		fmt.Fprint(p.w, "\r\033[K") // carriage return, then erase to the end of the line
		p.printed = false
	}
}
