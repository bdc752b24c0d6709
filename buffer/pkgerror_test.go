package buffer

import (
	"errors"
	"io/fs"
	"testing"
)

// TestErrorWords: an Error reads "PKG: WORD: details", its kind named by its word,
// and errors.Is finds the kind and what the details wrap.
func TestErrorWords(t *testing.T) {
	for _, c := range []struct {
		kind error
		want string
	}{
		{ErrFormat, "npy: invalid file format: bad magic: file does not exist"},
		{ErrDType, "npy: unsupported element type: bad magic: file does not exist"},
		{ErrSize, "npy: size mismatch: bad magic: file does not exist"},
		{ErrShape, "npy: unsupported shape: bad magic: file does not exist"},
		{ErrNotFound, "npy: tensor not found: bad magic: file does not exist"},
		{ErrNotMapped, "npy: not mapped: bad magic: file does not exist"},
		{errors.New("other: kind"), "npy: other: kind: bad magic: file does not exist"},
	} {
		err := Errorf("npy", c.kind, "bad magic: %w", fs.ErrNotExist)
		if err.Error() != c.want || !errors.Is(err, c.kind) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Errorf(%v): %q, want %q, wrapping both", c.kind, err, c.want)
		}
	}
	if k, ok := ErrFormat.(*Kind); !ok || k.Word() != "invalid file format" || k.Error() != "buffer: invalid file format" {
		t.Errorf("ErrFormat is %T %q", ErrFormat, ErrFormat)
	}
}
