package edgetext

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// The settings that manifest's errors name by field are named by the caller's words,
// wherever in the chain the error is, the rest of each message as it was.
func TestWithin(t *testing.T) {
	flags := map[string]string{"To": "--to", "Process": "--process"}
	name := func(f string) string {
		if w, ok := flags[f]; ok {
			return w
		}
		return f
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&manifest.MismatchError{First: "a", Second: "b", Diffs: []manifest.Difference{{Field: "checksum", Theirs: "crc32c", Ours: "sha256"}, {Field: "To", Theirs: "f32", Ours: "bf16"}}},
			"a and b describe different conversions: checksum crc32c in the first, sha256 in the second; --to f32 in the first, bf16 in the second"},
		{&manifest.NoPartialsError{Dir: "out"}, "out holds no partial manifests (manifest.process-I-of-N.json, written by --process I/N)"},
		{&manifest.NoPartialsError{Dir: "out", Merged: true}, "out is already merged: it holds manifest.json and no partial manifests (manifest.process-I-of-N.json)"},
		{fmt.Errorf("cannot write OUT o: %w", &manifest.ConflictError{Out: "o", Partial: "p", Diff: manifest.Difference{Field: "To", Theirs: `"f32"`, Ours: `"bf16"`}}),
			`cannot write OUT o: o holds p, of another conversion: --to is "f32" there but "bf16" in this run; nothing was written (give the processes the same options, or write to a new place)`},
		{&manifest.ConflictError{Out: "o", Partial: "p", Diff: manifest.Difference{Field: "checksum", Theirs: "crc32c", Ours: "sha256"}},
			"o holds p, of another conversion: checksum is crc32c there but sha256 in this run; nothing was written (give the processes the same options, or write to a new place)"},
	} {
		text := strings.ReplaceAll(c.err.Error(), "sharding: ", "")
		if got := Within(c.err, text, name); got != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.err, got, c.want)
		}
	}
}
