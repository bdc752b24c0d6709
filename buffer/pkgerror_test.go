package buffer

import (
	"errors"
	"io/fs"
	"testing"
)

// TestErrorWords: an Error reads "PKG: WORD: details", its kind named by its word,
// and errors.Is finds the kind and what the details wrap.
func TestErrorWords(t *testing.T) {
	words := map[error]string{
		ErrFormat:                 "invalid file format",
		ErrDType:                  "unsupported element type",
		ErrSize:                   "size mismatch",
		ErrShape:                  "unsupported shape",
		ErrNotFound:               "tensor not found",
		ErrNotMapped:              "not mapped",
		errors.New("other: kind"): "other: kind",
	}
	for kind, word := range words {
		err := Errorf("npy", kind, "bad magic: %w", fs.ErrNotExist)
		if want := "npy: " + word + ": bad magic: file does not exist"; err.Error() != want || !errors.Is(err, kind) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Errorf(%v): %q, want %q, wrapping both", kind, err, want)
		}
	}
	if k, ok := ErrFormat.(*Kind); !ok || k.Word() != "invalid file format" || k.Error() != "buffer: invalid file format" {
		t.Errorf("ErrFormat is %T %q", ErrFormat, ErrFormat)
	}
}
