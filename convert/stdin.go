package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
)

// In "-" is standard input (Job.Stdin); an In that is not a regular file (a FIFO,
// <(…), /dev/stdin on a pipe, a character device) is a stream too. A stream cannot be
// memory-mapped, sized or read twice, so it is copied into a temporary file first
// (memory stays bounded for any size), named with the extension In's name has, or for
// a name without one, the extension its first bytes call for: .npy for NumPy's magic,
// .safetensors for a little-endian header length followed by '{', raw otherwise (which
// needs From). Messages name In, not the temporary file.

// StdinName is how messages name In "-".
const StdinName = "- (standard input)"

// spool copies r, the stream named name (as messages name it), into a temporary file
// and returns its path and a function that removes it. ext is the extension of the
// copy, or "" for the one r's first bytes call for.
func (n names) spool(r io.Reader, name, ext string) (path string, cleanup func(), err error) {
	head := make([]byte, 9)
	k, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, n.errf(Input, "cannot read {In} %s: %s", name, err)
	}
	head = head[:k]
	if ext == "" {
		ext = sniffExt(head)
	}
	f, err := os.CreateTemp("", "tpulayout-stdin-*"+ext)
	if err != nil {
		return "", nil, n.errf(Input, "cannot read {In} %s: no room for its copy: %s", name, err)
	}
	cleanup = func() { os.Remove(f.Name()) }
	_, err = io.Copy(f, io.MultiReader(bytes.NewReader(head), r))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, n.errf(Input, "cannot read {In} %s: %s", name, err)
	}
	return f.Name(), cleanup, nil
}

// sniffExt is the file extension for what head, a stream's first bytes, starts.
func sniffExt(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x93NUMPY")):
		return ".npy"
	case len(head) == 9 && head[8] == '{' && binary.LittleEndian.Uint64(head) < 100<<20:
		return ".safetensors"
	}
	return ""
}

// isStream reports whether path names something that is not a regular file (after
// links): a FIFO, a socket, a character device. A missing path is not one.
func isStream(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.Mode().IsRegular() && !st.IsDir()
}
