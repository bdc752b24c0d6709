package main

import (
	"encoding/json"
	"fmt"
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

// TestShardTableQuotesNames: the sharded conversion's table printed tensor names raw:
// a newline, a tab, ESC [31m, NUL.
func TestShardTableQuotesNames(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "m.safetensors")
	names := []string{"a\nb", "t\tab", "\x1b[31mred", "nul\x00"}
	var tensors []safetensors.NamedBuffer
	for i, n := range names {
		tensors = append(tensors, safetensors.NamedBuffer{Name: n, Buf: testfiles.RandomBuffer(t, "f32[8]", uint64(i))})
	}
	if err := safetensors.Write(in, tensors, nil); err != nil {
		t.Fatal(err)
	}
	got := mustRun(t, "convert", in, filepath.Join(dir, "out"), "--all", "--mesh", "d=2", "--spec", "P()", "--to", "tpu:v5e")
	for _, n := range names {
		if !strings.Contains(got, fmt.Sprintf("%q", n)) {
			t.Errorf("the table does not quote %q:\n%s", n, got)
		}
	}
	if strings.ContainsAny(got, "\t\x1b\x00") || strings.Count(got, "\n") != len(names)+1 {
		t.Errorf("the table holds raw control characters:\n%q", got)
	}
}
