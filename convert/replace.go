package convert

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Replacing the output directory of All with Force: the new tree is built in a
// temporary directory beside Out (runAll does that) and swapped in here, so that Out
// always holds either the old tree or the new one, never a mix, both or neither.

// errNoExchange: the system cannot swap two paths atomically (see exchange).
var errNoExchange = errors.New("atomic exchange not supported")

// Function variables so that tests can make each step fail.
var (
	exchangeFn = exchange
	renameFn   = os.Rename
)

// checkReplace checks, before any conversion, that Force may replace out with the
// output of All converting in: out is missing, or a directory (not a symbolic link)
// that is empty or that an earlier All wrote (CheckOwned: our manifest, listing
// everything there), and in does not lie inside it.
func (n names) checkReplace(out, in string) error {
	st, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		return n.errf(Setting, "{Force} does not replace {Out} %s: it is a symbolic link", out)
	case !st.IsDir():
		return n.errf(Setting, "{Force} replaces the directory of an earlier {All}, and {Out} %s is a file", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	if inside(in, out) {
		return n.errf(Setting, "{In} %s lies inside {Out} %s, which {Force} would replace", in, out)
	}
	if len(ents) > 0 {
		if err := n.checkOwned(out); err != nil {
			return n.errf(Output, "{Force} replaces only a directory that {All} wrote, and {Out} %s %s", out, err)
		}
	}
	return nil
}

// inside reports whether path lies inside the directory dir, symbolic links resolved.
func inside(path, dir string) bool {
	p, err1 := filepath.EvalSymlinks(path)
	d, err2 := filepath.EvalSymlinks(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	p, err1 = filepath.Abs(p)
	d, err2 = filepath.Abs(d)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// place moves the finished tree tmp to out: with Force it replaces an existing out,
// otherwise out is missing or an empty directory (runAll checked).
func (j *Job) place(tmp, out string) error {
	if j.Force {
		return j.replaceDir(tmp, out)
	}
	os.Remove(out) // an empty directory, checked before; the rename needs it gone
	return os.Rename(tmp, out)
}

// replaceDir is ReplaceDir for All: the old tree must be one All wrote.
func (j *Job) replaceDir(tmp, out string) error {
	return replaceDir(tmp, out, "{Out}", names{}.checkOwned, j.note, j.temps())
}

// ReplaceDir puts the finished directory tmp in place of the directory out and removes
// the old tree. Where the system can swap the two atomically (Linux: renameat2
// RENAME_EXCHANGE) it does; elsewhere it renames out aside, renames tmp in, and on
// failure renames out back. temps (nil: none) is held during the renames; the caller
// tracks tmp as a temporary, which after a swap holds the old tree, so that an
// interrupt then removes it. The old tree is removed only when owned, checking it
// again, accepts it (what appeared in it meanwhile is not ours to remove); otherwise,
// or when removing fails, it is left beside out and note hears where and why, out
// named by what ("OUT", "OUTDIR").
func ReplaceDir(tmp, out, what string, owned func(dir string) error, note func(string), temps Temps) error {
	if temps == nil {
		temps = TempFuncs{}
	}
	return replaceDir(tmp, out, strings.ReplaceAll(what, "%", "%%"), owned, func(m Message) { note(m.String()) }, temps)
}

// replaceDir is ReplaceDir with notes as messages, whose format what is part of.
func replaceDir(tmp, out, what string, owned func(dir string) error, note func(Message), temps Temps) error {
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return renameFn(tmp, out)
	}
	release := temps.Hold()
	err := exchangeFn(tmp, out)
	if err == nil {
		release()
		removeOld(tmp, out, what, owned, note)
		return nil
	}
	// No atomic swap: rename the old tree aside under a new name, then the new one in.
	aside, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), "."+filepath.Base(filepath.Clean(out))+".old*")
	if err != nil {
		release()
		return err
	}
	os.Remove(aside) // only its name is wanted: rename onto a directory fails on Windows
	if err := renameFn(out, aside); err != nil {
		release()
		return err // nothing moved
	}
	if err := renameFn(tmp, out); err != nil {
		if rerr := renameFn(aside, out); rerr != nil {
			release()
			return fmt.Errorf("%v; and the old directory could not be put back: it is at %s (%v)", err, aside, rerr)
		}
		release()
		return err // the old tree is back
	}
	temps.Track(aside) // an interrupt now removes the old tree
	release()
	removeOld(aside, out, what, owned, note)
	temps.Untrack(aside)
	return nil
}

// removeOld removes the replaced tree old if owned accepts it; otherwise, or when
// removing fails, it leaves it beside out, with a note.
func removeOld(old, out, what string, owned func(string) error, note func(Message)) {
	if ents, err := os.ReadDir(old); err == nil && len(ents) == 0 {
		os.Remove(old)
		return
	}
	if err := owned(old); err != nil {
		note(names{}.message("note: "+what+" %s is replaced; the old tree, left at %s, %s", out, old, err))
		return
	}
	if err := os.RemoveAll(old); err != nil {
		note(names{}.message("note: "+what+" %s is replaced, but the old tree could not be removed from %s: %s", out, old, err))
	}
}
