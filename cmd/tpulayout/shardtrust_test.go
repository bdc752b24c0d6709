package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

// fourProcesses runs the sharded conversion of in as 4 processes, one after another
// (before, when set, runs before process i), into a new directory it returns.
func fourProcesses(t *testing.T, in string, before func(i int)) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	rules := embedRules(t)
	for i := range 4 {
		if before != nil {
			before(i)
		}
		mustRun(t, "convert", in, out, "--all", "--mesh", "data=2,model=4", "--rules", rules,
			"--to", "tpu:v5e", "--process", fmt.Sprintf("%d/4", i))
	}
	return out
}

// embedRules writes rules that cut embed in two along dim 0 and replicate the rest.
func embedRules(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "rules.json")
	writeText(t, p, `{"rules": [{"match": "^embed$", "spec": "P(\"data\")"}], "default": "P()"}`)
	return p
}

// TestMergeChecksFiles: merge trusted the partial manifests and never looked at the
// files. A deleted shard, a byte appended or changed, a source checkpoint replaced
// between the processes and a stray manifest of process 7 of 4 all merged, exit 0.
func TestMergeChecksFiles(t *testing.T) {
	dir := shardCheckpoint(t)
	in := filepath.Join(dir, "model.safetensors")
	shard := filepath.Join("embed", "0_0.bin")
	for _, c := range []struct {
		name   string
		spoil  func(out string)
		before func(i int)
		quick  bool // --quick still catches it
		want   string
	}{
		{name: "deleted shard", quick: true, want: "embed/0_0.bin is missing",
			spoil: func(out string) { os.Remove(filepath.Join(out, shard)) }},
		{name: "byte appended", quick: true, want: "has 57345 bytes, the manifest says 57344",
			spoil: func(out string) {
				f, _ := os.OpenFile(filepath.Join(out, shard), os.O_APPEND|os.O_WRONLY, 0)
				f.Write([]byte{0})
				f.Close()
			}},
		{name: "byte changed", want: "has crc32c",
			spoil: func(out string) {
				f, _ := os.OpenFile(filepath.Join(out, shard), os.O_WRONLY, 0)
				f.WriteAt([]byte{0x5a}, 100)
				f.Close()
			}},
		{name: "stray process", quick: true, want: "manifest.process-7-of-4.json, which no process writes",
			spoil: func(out string) {
				writeText(t, filepath.Join(out, "manifest.process-7-of-4.json"), string(readFile(t, filepath.Join(out, "manifest.process-0-of-4.json"))))
			}},
		{name: "foreign file", quick: true, want: "holds embed/notes.txt, which no partial manifest lists",
			spoil: func(out string) { writeText(t, filepath.Join(out, "embed", "notes.txt"), "x") }},
		{name: "source replaced", quick: true, want: "the checkpoint changed between the processes",
			before: func(i int) {
				if i != 0 && i != 2 {
					return
				}
				// From process 2 on, same names, dtypes and shapes: other data.
				seed := uint64(1 + 10*(i/2))
				tensors := []safetensors.NamedBuffer{
					{Name: "embed", Buf: testfiles.RandomBuffer(t, "f32[100,256]", seed)},
					{Name: "layers.0.attn.wq", Buf: testfiles.RandomBuffer(t, "f32[256,128]", seed+1)},
					{Name: "layers.0.mlp.w1", Buf: testfiles.RandomBuffer(t, "f32[128,512]", seed+2)},
					{Name: "layers.0.mlp.b1", Buf: testfiles.RandomBuffer(t, "bf16[512]", seed+3)},
					{Name: "step", Buf: testfiles.RandomBuffer(t, "s32[]", seed+4)},
				}
				if err := safetensors.Write(in, tensors, nil); err != nil {
					t.Fatal(err)
				}
			}},
	} {
		for _, quick := range []bool{false, true} {
			if quick && !c.quick {
				continue
			}
			t.Run(fmt.Sprintf("%s/quick=%v", c.name, quick), func(t *testing.T) {
				out := fourProcesses(t, in, c.before)
				if c.spoil != nil {
					c.spoil(out)
				}
				args := []string{"manifest", "merge", out}
				if quick {
					args = append(args, "--quick")
				}
				wantUsageError(t, args, c.want)
				if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
					t.Error("a refused merge wrote manifest.json")
				}
			})
		}
	}
	// Unspoiled, it merges, and verify finds nothing wrong.
	dir = shardCheckpoint(t) // in was replaced above: a fresh one
	out := fourProcesses(t, filepath.Join(dir, "model.safetensors"), nil)
	mustRun(t, "manifest", "merge", out)
	mustRun(t, "verify", out)
}

// TestRulesFileStrict: a rule keyed "pattern" (not "match") once matched every tensor,
// exit 0; a second "default" silently won.
func TestRulesFileStrict(t *testing.T) {
	dir := shardCheckpoint(t)
	in := filepath.Join(dir, "model.safetensors")
	for _, c := range []struct{ rules, want string }{
		{`{"rules":[{"pattern":"w$","spec":"P(\"data\")"}],"default":"P()"}`, `rule 1: unknown key "pattern"`},
		{`{"rules":[{"spec":"P(\"data\")"}],"default":"P()"}`, `rule 1 has no "match"`},
		{`{"rules":[{"match":"","spec":"P(\"data\")"}],"default":"P()"}`, `rule 1 has an empty "match"`},
		{`{"rules":[{"match":"w1$","spec":"P()"}],"default":"P(\"data\")","default":"P()"}`, `key "default" is given twice`},
		{`{"rules":[],"default":"P()","mesh":"data=2"}`, `unknown key "mesh"`},
	} {
		p := filepath.Join(t.TempDir(), "rules.json")
		writeText(t, p, c.rules)
		out := filepath.Join(t.TempDir(), "out")
		wantUsageError(t, []string{"convert", in, out, "--all", "--mesh", "data=2", "--rules", p, "--to", "tpu:v5e"}, c.want)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		wantUsageError(t, []string{"convert", in, filepath.Join(t.TempDir(), "out"), "--all", "--mesh", "data=2", "--rules", "/dev/zero", "--to", "tpu:v5e"},
			"larger than the limit")
	}
}

// TestManifestStrict: "checksum": "md5" was accepted and sha256 used anyway; an
// unknown key was ignored. A manifest naming one checksum over shards of the other
// is refused too.
func TestManifestStrict(t *testing.T) {
	dir := shardCheckpoint(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), out, "--all", "--mesh", "data=2", "--spec", "P()", "--to", "tpu:v5e")
	mp := filepath.Join(out, "manifest.json")
	good := string(readFile(t, mp))
	for _, c := range []struct{ old, new, want string }{
		{`"checksum": "crc32c"`, `"checksum": "md5"`, `checksum "md5"`},
		{`"checksum": "crc32c"`, `"checksum": "sha256"`, `has crc32c, the manifest's checksum is sha256`},
		{`"checksum": "crc32c"`, `"checksum": "crc32c", "signed": true`, `unknown key "signed"`},
		{`"checksum": "crc32c"`, `"checksum": "crc32c", "checksum": "crc32c"`, `key "checksum" is given twice`},
	} {
		writeText(t, mp, strings.Replace(good, c.old, c.new, 1))
		wantUsageError(t, []string{"gather", out, filepath.Join(t.TempDir(), "g.safetensors")}, c.want)
		wantUsageError(t, []string{"verify", out}, c.want)
	}
}

// TestGatherChecksShardFiles: with the file and sha256 of two shards swapped in the
// manifest, gather wrote the blocks swapped, exit 0.
func TestGatherChecksShardFiles(t *testing.T) {
	dir := shardCheckpoint(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "convert", filepath.Join(dir, "model.safetensors"), out, "--all", "--mesh", "data=2,model=4", "--rules", embedRules(t), "--to", "tpu:v5e")
	mp := filepath.Join(out, "manifest.json")
	good := string(readFile(t, mp))
	// Swap embed's two shards' "file" and "crc32c" lines.
	lines := strings.Split(good, "\n")
	var at []int
	for i, l := range lines {
		if strings.Contains(l, `"file": "embed/`) {
			at = append(at, i)
		}
	}
	if len(at) != 2 {
		t.Fatalf("embed has %d shard files in the manifest", len(at))
	}
	lines[at[0]], lines[at[1]] = lines[at[1]], lines[at[0]]
	lines[at[0]+2], lines[at[1]+2] = lines[at[1]+2], lines[at[0]+2] // crc32c two lines below
	writeText(t, mp, strings.Join(lines, "\n"))
	g := filepath.Join(t.TempDir(), "g.safetensors")
	wantUsageError(t, []string{"gather", out, g}, `shard [0 0] is in file "embed/1_0.bin", want "embed/0_0.bin"`)
	if _, err := os.Stat(g); err == nil {
		t.Error("a refused gather wrote OUT")
	}
	// A path outside OUTDIR is refused the same way.
	writeText(t, mp, strings.Replace(good, `"file": "embed/0_0.bin"`, `"file": "../../etc/0_0.bin"`, 1))
	wantUsageError(t, []string{"gather", out, g}, `is in file "../../etc/0_0.bin"`)
	// Ranges that disagree with the spec.
	writeText(t, mp, strings.Replace(good, `[0,50],`, `[50,100],`, 1))
	wantUsageError(t, []string{"gather", out, g}, "ranges [[50 100] [0 256]]")
	writeText(t, mp, good)
	mustRun(t, "gather", out, g)
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
