package sharding

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsUnwrap: the errors of a conversion and of a gather unwrap to their
// cause, name the option they are about, and word it as the caller names it.
func TestErrorsUnwrap(t *testing.T) {
	dir := t.TempDir()
	flag := func(f string) string { return "--" + strings.ToLower(f) }
	_, err := Convert(ConvertOptions{Checkpoint: filepath.Join(dir, "none.safetensors"), Out: filepath.Join(dir, "out"),
		Mesh: "x=4", Spec: `P("x")`, To: "tpu:v5e"})
	var ce *ConvertError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &ce) || ce.Field != "Checkpoint" || ce.Setting {
		t.Errorf("missing checkpoint: %v (%+v)", err, ce)
	}
	_, err = Convert(ConvertOptions{Checkpoint: filepath.Join(fixtureDir, "rows_x4.safetensors"), Out: filepath.Join(dir, "out"),
		Mesh: "x=4", To: "tpu:v5e"})
	if !errors.As(err, &ce) || ce.Field != "Spec" || !ce.Setting ||
		ce.Text(flag, nil) != "a sharded conversion needs one of --spec (one PartitionSpec for all tensors) or --rules FILE" {
		t.Errorf("no spec: %q (%+v)", ce.Text(flag, nil), ce)
	}
	out := filepath.Join(dir, "conv")
	if _, err := Convert(ConvertOptions{Checkpoint: filepath.Join(fixtureDir, "rows_x4.safetensors"), Out: out,
		Mesh: "x=4", Spec: `P("x")`, To: "tpu:v5e"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "no", "such", "g.safetensors")
	_, err = GatherOutdir(out, file)
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &ce) || ce.Field != "Out" ||
		!strings.HasPrefix(ce.Text(flag, nil), "cannot write OUT "+file+": ") {
		t.Errorf("gather into a missing directory: %q (%+v)", ce.Text(flag, nil), ce)
	}
}

// errMsg is err's message without the package's "sharding: " prefixes, which the tests
// compare the rest of.
func errMsg(err error) string { return strings.ReplaceAll(err.Error(), "sharding: ", "") }
