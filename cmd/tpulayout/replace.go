package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Replacing the output directory of convert --all --force: the new tree is built in a
// temporary directory beside OUT (runAll does that) and swapped in here, so that OUT
// always holds either the old tree or the new one, never a mix, both or neither.

// errNoExchange: the system cannot swap two paths atomically (see exchange).
var errNoExchange = errors.New("atomic exchange not supported")

// Function variables so that tests can make each step fail.
var (
	exchangeFn = exchange
	renameFn   = os.Rename
)

// checkReplace checks, before any conversion, that --force may replace out with the
// output of --all converting in: out is missing, or a directory (not a symbolic link)
// that is empty or that an earlier --all wrote (checkOwned: our manifest, listing
// everything there), and in does not lie inside it.
func checkReplace(out, in string) error {
	st, err := os.Lstat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		return usagef("--force does not replace OUT %s: it is a symbolic link", out)
	case !st.IsDir():
		return usagef("--force replaces the directory of an earlier --all, and OUT %s is a file", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if inside(in, out) {
		return usagef("IN %s lies inside OUT %s, which --force would replace", in, out)
	}
	if len(ents) > 0 {
		if err := checkOwned(out); err != nil {
			return fmt.Errorf("--force replaces only a directory that --all wrote, and OUT %s %s", out, err)
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

// place moves the finished tree tmp to out: with --force it replaces an existing out,
// otherwise out is missing or an empty directory (runAll checked).
func (c *convertFlags) place(tmp, out string) error {
	if c.force {
		return replaceDir(tmp, out)
	}
	os.Remove(out) // an empty directory, checked before; the rename needs it gone
	return os.Rename(tmp, out)
}

// replaceDir puts the directory tmp in place of out and removes the old tree. Where the
// system can swap the two atomically (Linux: renameat2 RENAME_EXCHANGE) it does;
// elsewhere it renames out aside, renames tmp in, and on failure renames out back.
// Signals are held during the renames; tmp is tracked as a temporary (runAll tracks it)
// and after a swap holds the old tree, which an interrupt then removes.
func replaceDir(tmp, out string) error {
	if _, err := os.Lstat(out); errors.Is(err, os.ErrNotExist) {
		return renameFn(tmp, out)
	}
	release := holdSignals()
	err := exchangeFn(tmp, out)
	if err == nil {
		release()
		removeOld(tmp, out)
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
	trackHeld(aside) // an interrupt now removes the old tree
	release()
	removeOld(aside, out)
	untrack(aside)
	return nil
}

// removeOld removes the replaced tree; a failure leaves it beside out, with a note. It
// checks the tree again first: what appeared in it since checkReplace is not ours to
// remove, so the tree is then left beside out.
func removeOld(old, out string) {
	if ents, err := os.ReadDir(old); err == nil && len(ents) == 0 {
		os.Remove(old)
		return
	}
	if err := checkOwned(old); err != nil {
		fmt.Fprintf(progressOut, "tpulayout convert: note: OUT %s is replaced; the old tree, left at %s, %s\n", out, old, err)
		return
	}
	if err := os.RemoveAll(old); err != nil {
		fmt.Fprintf(progressOut, "tpulayout convert: note: OUT %s is replaced, but the old tree could not be removed from %s: %s\n", out, old, fileErr(err))
	}
}
