package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
)

// In "-" is standard input (Job.Stdin). A stream cannot be memory-mapped or read twice,
// so it is copied into a temporary file first (memory stays bounded for any size),
// named with the extension its first bytes call for: .npy for NumPy's magic,
// .safetensors for a little-endian header length followed by '{', raw otherwise (which
// needs From). Messages name "-", not the temporary file.

// StdinName is how messages name In "-".
const StdinName = "- (standard input)"

// spoolStdin copies r into a temporary file and returns its path and a function that
// removes it.
func (n Names) spoolStdin(r io.Reader) (path string, cleanup func(), err error) {
	head := make([]byte, 9)
	k, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, n.errf(Input, "cannot read {in} %s: %s", StdinName, FileErr(err))
	}
	head = head[:k]
	f, err := os.CreateTemp("", "tpulayout-stdin-*"+sniffExt(head))
	if err != nil {
		return "", nil, n.errf(Input, "cannot read {in} %s: no room for its copy: %s", StdinName, FileErr(err))
	}
	cleanup = func() { os.Remove(f.Name()) }
	_, err = io.Copy(f, io.MultiReader(bytes.NewReader(head), r))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, n.errf(Input, "cannot read {in} %s: %s", StdinName, FileErr(err))
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

// renameStdin puts "-" back where a message names the temporary copy of standard
// input, keeping the error's kind.
func renameStdin(err error, tmp string) error {
	if err == nil || !strings.Contains(err.Error(), tmp) {
		return err
	}
	return &Error{Kind: KindOf(err), Msg: strings.ReplaceAll(err.Error(), tmp, StdinName)}
}
