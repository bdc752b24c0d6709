package convert

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
	"github.com/tpulayout/tpulayout/internal/bucketurl"
)

// Out: a file replaced atomically, or a stream written in place.

// ImageWriter is where an image goes: the temporary file, or a stream.
type ImageWriter interface {
	io.Writer
	io.WriterAt
}

// seqWriter streams an image that is written in order: WriteAt must continue where the
// last write ended (an image is written header first, then band after band).
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

// namedFD returns the descriptor out names as such: 1 for '-', /dev/stdout, /dev/fd/1
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

// IsStdout reports whether out names standard output, which then holds the bytes alone.
func IsStdout(out string) bool { return namedFD(out) == 1 }

// isDevice reports whether path is (through any symlinks) a character device or a FIFO.
func isDevice(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0
}

// IsStream reports whether out is written in place as a stream: '-', a descriptor
// (/dev/stdout, /dev/fd/N), a character device or a FIFO.
func IsStream(out string) bool { return namedFD(out) > 0 || isDevice(out) }

// stdout is where Out '-' (or /dev/stdout) streams: j.Stdout, or the process's.
func (j *Job) stdout() io.Writer {
	if j.Stdout != nil {
		return j.Stdout
	}
	return os.Stdout
}

// openStream returns the stream Out names, if it names one (see namedFD), or a
// character device or a FIFO. Those are written in place, in order and without a
// temporary file: renaming over them would replace the device, or /dev/stdout's link,
// with a file. close releases what openStream opened.
func (j *Job) openStream() (w io.Writer, close func() error, ok bool, err error) {
	out, n := j.Out, names{}
	none := func() error { return nil }
	switch fd := namedFD(out); {
	case fd == 1:
		return j.stdout(), none, true, nil
	case fd == 2:
		return os.Stderr, none, true, nil
	case fd > 2:
		// The descriptor, as a shell's >&N: its offset and append mode hold.
		f, closeFD, err := openFD(fd, out)
		if err != nil {
			return nil, nil, false, n.errf(Output, "cannot write {Out} %s: %s", out, err)
		}
		return f, closeFD, true, nil
	}
	if !isDevice(out) {
		return nil, nil, false, nil
	}
	f, err := os.OpenFile(out, os.O_WRONLY, 0)
	if err != nil {
		return nil, nil, false, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	return f, f.Close, true, nil
}

// WriteOutput writes j.Out through write: streamed in place when Out is a stream (see
// [IsStream]), else to a temporary file beside the file Out names (through symlinks)
// and renamed over it, so that a failure, a panic or a signal (see [Temps])
// leaves that file as it was and nothing beside it. write's own errors are returned as
// they are; the others are the file system's, unworded.
func (j *Job) WriteOutput(write func(w ImageWriter) error) error {
	out, n := j.Out, names{}
	if err := n.localOnly("{Out}", out); err != nil {
		return err
	}
	w, closeStream, ok, err := j.openStream()
	if err != nil {
		return err
	}
	if ok {
		err := write(&seqWriter{w: w})
		if cerr := closeStream(); err == nil && cerr != nil {
			err = n.errf(Output, "cannot write {Out} %s: %s", out, cerr)
		}
		return err
	}
	// A killed earlier run left its temporary beside Out: nobody holds it any more.
	buffer.RemoveStaleTemps(buffer.LinkTarget(out))
	var tmp string
	temps := j.temps()
	release := temps.Hold() // the temporary file is made under the hold
	defer release()
	defer func() {
		if tmp != "" {
			temps.Untrack(tmp)
		}
	}()
	err = buffer.WriteFileAtomicFileNamed(buffer.LinkTarget(out), j.outName, func(f *os.File) error {
		tmp = f.Name()
		temps.Track(tmp) // until renamed: the fsync after this can be long
		release()
		return write(f)
	})
	if err == nil {
		temps.Placed()
	}
	return err
}

// checkOutName fails before any work when Out cannot be written at all: an empty name.
func (n names) checkOutName(out string) error {
	if out == "" {
		return n.errf(Setting, "{Out} is empty: name a file, or - for standard output")
	}
	return nil
}

// localOnly refuses a bucket URL given as what (words as in errf: "{In}") where only
// local files and streams are taken: buckets are read and written by the sharded
// conversion alone (package sharding, which a conversion given a Mesh is).
func (n names) localOnly(what, name string) error {
	if !bucketurl.Is(name) {
		return nil
	}
	return n.errf(Setting, what+" %s is a bucket URL, which is not taken here: give a local file (buckets are read and written by a sharded conversion, convert {Mesh}, and by verify, gather's OUTDIR and manifest merge)", name)
}

// CheckOutName fails when out cannot be written at all: an empty name.
func (j *Job) CheckOutName() error { return names{}.checkOutName(j.Out) }

// checkOut fails early when Out cannot be a file we replace: a directory, or In itself.
func (j *Job) checkOut(in string) error {
	out, n := j.Out, names{}
	if IsStream(out) {
		return nil // written in place (see openStream)
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil // a missing Out is fine; an unwritable directory shows when we create it
	}
	if !st.Mode().IsRegular() {
		return n.errf(Output, "cannot write {Out} %s: it is not a regular file", out)
	}
	if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
		return n.errf(Setting, "{Out} %s is {In} itself; write to another file", out)
	}
	return nil
}

// allTarget checks the Out of All, a new directory (or an empty one; with Force any,
// which checkReplace then vets), before any work, and returns the path to create it
// at: Out's symlink target if it is a link.
func (j *Job) allTarget() (string, error) {
	out, n := j.Out, names{}
	if err := n.checkOutName(out); err != nil {
		return "", err
	}
	if IsStream(out) {
		return "", n.errf(Setting, "with {All} {Out} is a new directory; %s cannot be one", out)
	}
	dest := buffer.LinkTarget(out)
	st, err := os.Stat(dest)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// "afile/": a file named as a directory (ENOTDIR), found before any work.
		return "", n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	if err == nil && !j.Force {
		if !st.IsDir() {
			return "", n.errf(Setting, "cannot write {Out} %s: with {All} {Out} is a new directory, and this is a file", out)
		}
		if ents, err := os.ReadDir(dest); err != nil || len(ents) > 0 {
			return "", n.errf(Output, "cannot write {Out} %s: with {All} {Out} is a new directory, and this one is not empty ({Force} replaces an earlier {All} output)", out)
		}
	}
	return dest, nil
}
