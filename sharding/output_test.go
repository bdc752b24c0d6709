package sharding

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestOutputs converts one checkpoint into a directory and into a bucket prefix of
// each test server, in one process and in two merged; every output's manifest is
// the directory's, byte for byte, verifies, and gathers into the same checkpoint.
func TestOutputs(t *testing.T) {
	ckpt := filepath.Join(fixtureDir, "mesh2d_both.safetensors")
	outs := []struct{ name, out string }{{"dir", filepath.Join(t.TempDir(), "out")}}
	for _, srv := range storetest.All(t) {
		srv.Point(t, srv.Endpoint)
		outs = append(outs, struct{ name, out string }{srv.Name(), srv.Scheme + "://" + srv.NewBucket(t) + "/out"})
	}
	var want, wantGathered []byte
	for _, o := range outs {
		for _, procs := range []int{1, 2} {
			out := o.out + "-" + string(rune('0'+procs))
			t.Run(o.name+"-"+string(rune('0'+procs)), func(t *testing.T) {
				for p := range procs {
					opt := ConvertOptions{Checkpoint: ckpt, Out: out, Mesh: "data=2,model=2", Spec: `P("data", "model")`,
						To: "tpu:v5e", Process: p, Processes: procs}
					if procs == 1 {
						opt.Processes = 0
					}
					sum, err := Convert(opt)
					if err != nil {
						t.Fatal(err)
					}
					var text bytes.Buffer
					if err := sum.WriteText(&text); err != nil || !strings.Contains(text.String(), sum.ManifestPath) {
						t.Errorf("summary %q, %v", text.String(), err)
					}
				}
				var m *manifest.Manifest
				var err error
				if procs > 1 {
					if m, err = MergeOutdir(out, MergeOptions{}); err != nil {
						t.Fatal(err)
					}
				} else if m, err = ReadManifestAt(out); err != nil {
					t.Fatal(err)
				}
				js, err := m.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				if want == nil {
					want = js
				} else if !bytes.Equal(js, want) {
					t.Errorf("manifest differs from the first output's:\n%s\nwant\n%s", js, want)
				}
				r, err := VerifyOutdir(out, "")
				if err != nil || len(r.Problems) > 0 {
					t.Fatalf("verify: %v, %v", r, err)
				}
				file := filepath.Join(t.TempDir(), "g.safetensors")
				if _, err := GatherOutdir(out, file); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if wantGathered == nil {
					wantGathered = got
				} else if !bytes.Equal(got, wantGathered) {
					t.Error("gathered checkpoint differs from the first output's")
				}
			})
		}
	}
}

// TestConvertKnowsOutdir: convert.CheckOwned, which must not import this package, knows
// a sharded conversion's directory by its manifest's format, so convert All Force
// refuses to replace one.
func TestConvertKnowsOutdir(t *testing.T) {
	dir := t.TempDir()
	m := []byte(`{"format": "` + manifest.Format + `"}`)
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), m, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := convert.CheckOwned(dir); err == nil || !strings.Contains(err.Error(), "is a sharded conversion's directory") {
		t.Errorf("convert.CheckOwned(a sharded conversion's directory): %v", err)
	}
}

// TestForceReplacesOwned: with Force a sharded conversion replaces an OUTDIR that one
// wrote, and refuses (leaving it as it was) one that holds anything its manifest does
// not list, one without a sharded manifest, a bucket prefix and a split run.
func TestForceReplacesOwned(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	o := ConvertOptions{Checkpoint: filepath.Join(fixtureDir, "rows_x4.safetensors"), Out: out, Mesh: "x=4", Spec: `P("x")`, To: "tpu:v5e"}
	if _, err := Convert(o); err != nil {
		t.Fatal(err)
	}
	if err := CheckOwned(out); err != nil {
		t.Fatalf("CheckOwned(a conversion's OUTDIR): %v", err)
	}
	var ne *NotEmptyError
	if _, err := Convert(o); !errors.As(err, &ne) || ne.Dir != out || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a second conversion without Force: %v, want a *NotEmptyError of %s", err, out)
	} else if got := ne.Words(func(f string) string { return "<" + f + ">" }, nil); !strings.Contains(got, "(<Force> replaces one") {
		t.Errorf("NotEmptyError in a caller's words: %q", got)
	}
	o.Force, o.Spec = true, "P()"
	if _, err := Convert(o); err != nil {
		t.Fatalf("Force onto a conversion's OUTDIR: %v", err)
	}
	m, err := ReadManifest(filepath.Join(out, manifest.FileName))
	if err != nil || m.Tensors[0].Spec != "P()" || len(m.Tensors[0].Shards) != 1 {
		t.Fatalf("after Force: %+v, %v", m, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("Force left %d entries beside OUTDIR", len(ents))
	}
	shard := filepath.Join(out, filepath.FromSlash(m.Tensors[0].Shards[0].File))
	for _, c := range []struct {
		make, undo func()
		want       string
	}{
		{func() { os.WriteFile(filepath.Join(out, "notes.txt"), nil, 0o644) }, func() { os.Remove(filepath.Join(out, "notes.txt")) }, "holds notes.txt"},
		{func() { os.WriteFile(filepath.Join(filepath.Dir(shard), "x.bin"), nil, 0o644) }, func() { os.Remove(filepath.Join(filepath.Dir(shard), "x.bin")) }, "x.bin"},
		{func() { os.Rename(shard, shard+".keep"); os.Mkdir(shard, 0o755) }, func() { os.Remove(shard); os.Rename(shard+".keep", shard) }, "holds "},
		{func() { os.Rename(filepath.Join(out, manifest.FileName), filepath.Join(dir, "m")) }, func() { os.Rename(filepath.Join(dir, "m"), filepath.Join(out, manifest.FileName)) }, "has no manifest.json"},
	} {
		c.make()
		before := treeNames(t, out)
		_, err := Convert(o)
		var oe *OwnedError
		if err == nil || !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) || oe.Dir != out {
			t.Errorf("Force onto a tree that is not all ours: %v, want an *OwnedError saying %q", err, c.want)
		} else if got := oe.Words(func(f string) string { return "<" + f + ">" }, nil); !strings.HasPrefix(got, "<Force> replaces only") {
			t.Errorf("OwnedError in a caller's words: %q", got)
		}
		if after := treeNames(t, out); !slices.Equal(before, after) {
			t.Errorf("a refused Force changed OUTDIR: %q, was %q", after, before)
		}
		c.undo()
	}
	if err := CheckOwned(out); err != nil {
		t.Errorf("CheckOwned after undoing: %v", err)
	}
	for _, change := range []func(o *ConvertOptions){
		func(o *ConvertOptions) { o.Out = "s3://bucket/prefix" },
		func(o *ConvertOptions) { o.Process, o.Processes = 0, 2 },
	} {
		p := o
		change(&p)
		var ce *ConvertError
		if _, err := Convert(p); !errors.As(err, &ce) || !ce.Setting || !strings.Contains(err.Error(), "Force") {
			t.Errorf("Force with %+v: %v, want a usage error", p, err)
		}
	}
}

// treeNames lists every path under dir, relative to it.
func treeNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		names = append(names, rel)
		return nil
	})
	return names
}

// TestForeignKeyEscaped: a prefix holding an object this conversion did not write
// stops it with a message naming the object; a key with control characters (a
// terminal escape) is printed escaped (\x1b), as the store's errors print what a
// server sent.
func TestForeignKeyEscaped(t *testing.T) {
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			srv.Point(t, srv.Endpoint)
			if srv.Fake == nil {
				t.Skip("the key is put through the fake")
			}
			bucket := srv.NewBucket(t)
			srv.Fake.Put(bucket, "out/\x1b[31mred\x1b[0m.bin", []byte("x"), nil)
			_, err := Convert(ConvertOptions{Checkpoint: "../testdata/sharding/rows_x4.safetensors",
				Out: srv.Scheme + "://" + bucket + "/out", Mesh: "x=4", Spec: `P("x")`, To: "tpu:v5e"})
			if err == nil {
				t.Fatal("converted into a prefix holding another's object")
			}
			msg := err.Error()
			if strings.ContainsFunc(msg, unicode.IsControl) || !strings.Contains(msg, "object(s) this conversion did not write") {
				t.Fatalf("%q: want the key escaped", msg)
			}
			if srv.Scheme == "gs" && !strings.Contains(msg, `\x1b[31mred\x1b[0m.bin`) {
				t.Fatalf("%q: want the key escaped as \\x1b", msg)
			}
		})
	}
}
