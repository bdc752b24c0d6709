package sharding

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
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

// TestCheckpointNotExist: a missing local checkpoint, index, or file that an index
// names is an error that errors.Is finds fs.ErrNotExist in, read through the
// checkpoint's source; an index naming missing files names them all
// (MissingFilesError), which had no cause to unwrap to.
func TestCheckpointNotExist(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "model.safetensors.index.json")
	testfiles.Tree(t, dir, map[string]string{"model.safetensors.index.json": `{"weight_map": {"x": "a.safetensors", "y": "b.safetensors"}}`})
	for _, path := range []string{
		filepath.Join(dir, "none.safetensors"),
		filepath.Join(dir, "none.index.json"),
		index,
	} {
		src, err := locate(path).checkpoint()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_, err = openFrom(src)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want one that is fs.ErrNotExist", path, err)
		}
	}
	_, err := OpenCheckpoint(index)
	var me *MissingFilesError
	if !errors.As(err, &me) || me.Index != index || strings.Join(me.Files, " ") != "a.safetensors b.safetensors" || len(me.Errs) != 2 {
		t.Errorf("OpenCheckpoint(%s): %#v, want a MissingFilesError naming a.safetensors and b.safetensors", index, err)
	}
}
