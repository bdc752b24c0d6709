package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// IN - is standard input for convert, as DUMP - is for validate. A stream cannot be
// memory-mapped or read twice, so it is copied into a temporary file first (memory stays
// bounded for any size), named with the extension its first bytes call for: .npy for
// NumPy's magic, .safetensors for a little-endian header length followed by '{', raw
// otherwise (which needs --from). Messages name "-", not the temporary file.

const stdinName = "- (standard input)"

// spoolStdin copies r into a temporary file and returns its path and a function that
// removes it.
func spoolStdin(r io.Reader) (path string, cleanup func(), err error) {
	head := make([]byte, 9)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, fmt.Errorf("cannot read IN %s: %s", stdinName, fileErr(err))
	}
	head = head[:n]
	f, err := os.CreateTemp("", "tpulayout-stdin-*"+sniffExt(head))
	if err != nil {
		return "", nil, fmt.Errorf("cannot read IN %s: no room for its copy: %s", stdinName, fileErr(err))
	}
	cleanup = func() { os.Remove(f.Name()) }
	_, err = io.Copy(f, io.MultiReader(bytes.NewReader(head), r))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("cannot read IN %s: %s", stdinName, fileErr(err))
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

// renameStdin puts "-" back where a message names the temporary copy of standard input,
// keeping the error's kind (usage or not).
func renameStdin(err error, tmp string) error {
	if err == nil || !strings.Contains(err.Error(), tmp) {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), tmp, stdinName)
	var ue *usageError
	if errors.As(err, &ue) {
		return &usageError{msg}
	}
	return errors.New(msg)
}
