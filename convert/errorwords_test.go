package convert

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
)

// TestWordsQuoteReaderCause: an input that a reader refuses is an error about its
// path whose cause is the reader's *buffer.FileError naming the same file; Words
// quotes that cause without the name, which the sentence gives already, and Error
// quotes it whole.
func TestWordsQuoteReaderCause(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"bad.npy", "bad.safetensors"} {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, []byte("not an array file at all"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e"}).Run()
		var e *Error
		var fe *buffer.FileError
		if !errors.As(err, &e) || e.Path != in || !errors.As(e.Err, &fe) || fe.Name != in || !errors.Is(err, buffer.ErrFormat) {
			t.Fatalf("%s: %v, want an Error about %s caused by a FileError naming it", name, err, in)
		}
		words := e.Words(nil, func(c error) string { return c.Error() })
		if want := "cannot read In " + in + ": " + fe.Err.Error(); words != want {
			t.Errorf("%s: Words %q, want %q", name, words, want)
		}
		if want := "cannot read In " + in + ": " + in + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Error %q, want it to start %q", name, err, want)
		}
	}
}
