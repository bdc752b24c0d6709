package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
)

// streamOut is where OUT '-' (or /dev/stdout) streams its bytes: standard output itself,
// not the writer run collects a verb's report in (tests replace it).
var streamOut io.Writer = os.Stdout

// imageWriter is where writeImage puts OUT's bytes: the temporary file, or a stream.
type imageWriter interface {
	io.Writer
	io.WriterAt
}

// seqWriter streams an image that is written in order: WriteAt must continue where the
// last write ended (writeImage writes the header and then band after band).
type seqWriter struct {
	w   io.Writer
	off int64
}

func (s *seqWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.off += int64(n)
	return n, err
}

func (s *seqWriter) WriteAt(p []byte, off int64) (int, error) {
	if off != s.off {
		return 0, fmt.Errorf("cannot stream out of order (byte %d after %d)", off, s.off)
	}
	return s.Write(p)
}

// namedFD returns the descriptor OUT names as such: 1 for '-', /dev/stdout, /dev/fd/1
// or /proc/self/fd/1, 2 for /dev/stderr, N for /dev/fd/N; else -1 (and for 0, stdin).
func namedFD(out string) int {
	if out == "-" {
		return 1
	}
	if runtime.GOOS == "windows" {
		return -1
	}
	switch clean := filepath.Clean(out); clean {
	case "/dev/stdout":
		return 1
	case "/dev/stderr":
		return 2
	default:
		for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
			if n, ok := strings.CutPrefix(clean, dir); ok {
				if fd, err := strconv.Atoi(n); err == nil && fd > 0 {
					return fd
				}
			}
		}
	}
	return -1
}

// isStdout reports whether OUT names standard output, which then holds the bytes alone.
func isStdout(out string) bool { return namedFD(out) == 1 }

// isDevice reports whether path is (through any symlinks) a character device or a FIFO.
func isDevice(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0
}

// isStream reports whether OUT is written in place as a stream (see openStream).
func isStream(out string) bool { return namedFD(out) > 0 || isDevice(out) }

// openStream returns the stream OUT names, if it names one (see namedFD), or a
// character device or a FIFO. Those are written in place, in order and without a
// temporary file: renaming over them would replace the device, or /dev/stdout's link,
// with a file. close releases what openStream opened.
func openStream(out string) (w io.Writer, close func() error, ok bool, err error) {
	none := func() error { return nil }
	switch fd := namedFD(out); {
	case fd == 1:
		return streamOut, none, true, nil
	case fd == 2:
		return os.Stderr, none, true, nil
	case fd > 2:
		// The descriptor itself, as a shell's >&N: its offset and append mode hold.
		return os.NewFile(uintptr(fd), out), none, true, nil
	}
	if !isDevice(out) {
		return nil, nil, false, nil
	}
	f, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, false, fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	return f, f.Close, true, nil
}

// writeOutput writes OUT through write: streamed in place when OUT is a stream (see
// openStream), else to a temporary file beside the file OUT names (through symlinks)
// and renamed over it, so that a failure, a panic or a signal (see exitOnSignal) leaves
// that file as it was and nothing beside it. write's own errors are returned as they are.
func writeOutput(out string, write func(w imageWriter) error) error {
	w, closeStream, ok, err := openStream(out)
	if err != nil {
		return err
	}
	if ok {
		err := write(&seqWriter{w: w})
		if cerr := closeStream(); err == nil && cerr != nil {
			err = fmt.Errorf("cannot write OUT %s: %s", out, fileErr(cerr))
		}
		return err
	}
	// A killed earlier run left its temporary beside OUT: nobody holds it any more.
	buffer.RemoveStaleTemps(buffer.LinkTarget(out))
	var tmp string
	release := holdSignals() // the temporary file is made under the hold
	defer release()
	defer func() {
		if tmp != "" {
			untrack(tmp)
		}
	}()
	err = buffer.WriteFileAtomicFile(buffer.LinkTarget(out), func(f *os.File) error {
		tmp = f.Name()
		trackHeld(tmp) // until renamed: the fsync after this can be long
		release()
		return write(f)
	})
	if err == nil {
		setOutputInPlace(true)
	}
	return err
}

// checkOutName fails before any work when OUT cannot be written at all: an empty name.
func checkOutName(out string) error {
	if out == "" {
		return usagef("OUT is empty: name a file, or - for standard output")
	}
	return nil
}

// allTarget checks the OUT of convert --all, a new directory (or an empty one; with force
// any, which checkReplace then vets), before
// any work, and returns the path to create it at: OUT's symlink target if it is a link.
func allTarget(out string, force bool) (string, error) {
	if err := checkOutName(out); err != nil {
		return "", err
	}
	if isStream(out) {
		return "", usagef("with --all OUT is a new directory; %s cannot be one", out)
	}
	dest := buffer.LinkTarget(out)
	st, err := os.Stat(dest)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// "afile/": a file named as a directory (ENOTDIR), found before any work.
		return "", fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if err == nil && !force {
		if !st.IsDir() {
			return "", usagef("cannot write OUT %s: with --all OUT is a new directory, and this is a file", out)
		}
		if ents, err := os.ReadDir(dest); err != nil || len(ents) > 0 {
			return "", fmt.Errorf("cannot write OUT %s: with --all OUT is a new directory, and this one is not empty (--force replaces an earlier --all output)", out)
		}
	}
	return dest, nil
}
