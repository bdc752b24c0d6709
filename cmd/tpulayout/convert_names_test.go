package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// TestConvertAllNames checks --all with tensor names that hold control characters and
// terminal escapes (printed quoted, never raw), names too long for a file name (a
// shortened name with a hash, distinct for names that share a long beginning), and
// names that differ only in case (distinct files, for file systems that ignore case).
func TestConvertAllNames(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("layer.", 60)
	names := []string{"red\x1b[31m!", "tab\there", "nl\nx", long + "a", long + "b", "W", "w"}
	var bufs []safetensors.NamedBuffer
	for i, n := range names {
		bufs = append(bufs, safetensors.NamedBuffer{Name: n, Buf: testfiles.RandomBuffer(t, "f32[8,128]", uint64(i))})
	}
	ckpt := filepath.Join(dir, "m.safetensors")
	if err := safetensors.Write(ckpt, bufs, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "imgs")
	got := mustRun(t, "convert", ckpt, out, "--all", "--to", "tpu:v5e")
	if strings.ContainsAny(got, "\x1b\t") || strings.Count(got, "\n") != len(names)+1 {
		t.Errorf("the table prints names raw:\n%q", got)
	}
	for _, q := range []string{`"red\x1b[31m!"`, `"tab\there"`, `"nl\nx"`} {
		if !strings.Contains(got, q) {
			t.Errorf("the table does not show %s:\n%s", q, got)
		}
	}
	var m convert.Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for i, e := range m.Tensors {
		if e.Name != names[i] || len(e.File) > 200 || files[strings.ToLower(e.File)] {
			t.Errorf("tensor %q: file %q (%d bytes)", e.Name, e.File, len(e.File))
		}
		files[strings.ToLower(e.File)] = true
		if b := readFile(t, filepath.Join(out, e.File)); len(b) != 8*128*4 {
			t.Errorf("tensor %q: %s holds %d bytes", e.Name, e.File, len(b))
		}
	}
}
