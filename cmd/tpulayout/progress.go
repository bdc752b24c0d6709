package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressOut is where long-running verbs report progress: standard error, whatever
// writer run was given for its one-line errors (tests replace it).
var progressOut io.Writer = os.Stderr

// progressEvery is the least time between two progress lines.
const progressEvery = 200 * time.Millisecond

// progress prints a throttled "\r"-rewritten line such as
//
//	convert: 1.50 GiB of 8.00 GiB (18%)
//
// to progressOut when it is a terminal. Elsewhere (--progress into a file or a pipe) it
// prints one whole line per step instead, without "\r", so that a log reads cleanly.
// A nil *progress prints nothing, so callers need not check.
type progress struct {
	w       io.Writer
	label   string
	total   int64
	done    int64
	last    time.Time
	printed bool
	lines   bool  // not a terminal: one line per step
	shown   int64 // done when last printed, in lines mode
}

// newProgress returns a progress reporter when forced (--progress) or when progressOut
// is a terminal, and nil otherwise.
func newProgress(forced bool, label string, total int64) *progress {
	w := progressOut
	f, ok := w.(*os.File)
	term := ok && isTerminal(f)
	if !forced && !term {
		return nil
	}
	return &progress{w: w, label: label, total: total, lines: !term, shown: -1}
}

// add records n more units done and prints the line if enough time has passed.
func (p *progress) add(n int64) {
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

// stage replaces the line with a message such as "validate: comparing".
func (p *progress) stage(msg string) {
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

func (p *progress) print() {
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(p.done) / float64(p.total)
	}
	if p.lines {
		if p.done != p.shown {
			p.shown = p.done
			fmt.Fprintf(p.w, "%s: %s of %s (%s)\n", p.label, sizeText(p.done), sizeText(p.total), wholePercent(pct))
		}
		return
	}
	fmt.Fprintf(p.w, "\r%s: %s of %s (%s)   ", p.label, sizeText(p.done), sizeText(p.total), wholePercent(pct))
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

// finish ends the report. In a log (lines mode) it prints the final state; on a terminal
// it erases the rewritten line, so that the screen holds what the command printed (the
// report, the shape line, an error) and not a stale "100%" or "comparing" between them.
func (p *progress) finish() {
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

// Total, Add and Done are the job's calls (convert.Progress).
func (p *progress) Total(n int64) {
	if p != nil {
		p.total = n
	}
}
func (p *progress) Add(n int64) { p.add(n) }
func (p *progress) Done()       { p.finish() }
