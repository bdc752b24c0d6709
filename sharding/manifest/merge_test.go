package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// memDir is a conversion's output in memory: files by slash path.
type memDir map[string][]byte

// loadDir reads the tree under testdata/NAME.
func loadDir(t *testing.T, name string) memDir {
	t.Helper()
	d := memDir{}
	root := filepath.Join("testdata", name)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		d[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (d memDir) Check(rel string, s Shard, hash bool) string {
	b, ok := d[rel]
	switch {
	case !ok:
		return "is missing"
	case int64(len(b)) != s.Bytes:
		return fmt.Sprintf("has %d bytes, the manifest says %d", len(b), s.Bytes)
	case !hash:
		return ""
	}
	h := s.NewHash()
	h.Write(b)
	if msg := s.SumDiffers(h); msg != "" {
		return "has " + msg
	}
	return ""
}

func (d memDir) Unlisted(listed map[string]bool) string {
	var out []string
	for name := range d {
		top, _, _ := strings.Cut(name, "/")
		switch {
		case IsPartialName(name):
		case !listed[top]:
			out = append(out, top)
		case top != name && !listed[name]:
			out = append(out, name)
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return ""
	}
	return out[0]
}

func (d memDir) Has(rel string) bool { _, ok := d[rel]; return ok }

func (d memDir) List() ([]string, error) {
	var names []string
	for name := range d {
		top, _, _ := strings.Cut(name, "/")
		if !slices.Contains(names, top) {
			names = append(names, top)
		}
	}
	slices.Sort(names)
	return names, nil
}

func (d memDir) ReadFile(name string) ([]byte, error) {
	b, ok := d[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return b, nil
}

func (d memDir) WriteFile(name string, data []byte) error {
	d[name] = bytes.Clone(data)
	return nil
}

func (d memDir) Remove(name string) error { delete(d, name); return nil }

// A merge of two processes' partial manifests writes the manifest of a one-process
// conversion, byte for byte, and removes the partial manifests.
func TestMerge(t *testing.T) {
	for _, quick := range []bool{false, true} {
		d := loadDir(t, "two")
		var prog countProgress
		m, err := Merge("out", d, MergeOptions{Quick: quick, Progress: &prog})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile("testdata/merged.json")
		if got := d[FileName]; !bytes.Equal(got, want) {
			t.Errorf("merged manifest:\n%s\nwant\n%s", got, want)
		}
		if d.Has(PartialName(0, 2)) || d.Has(PartialName(1, 2)) {
			t.Error("the partial manifests are left")
		}
		if len(m.Devices) != 4 || prog.total != m.ShardBytes() || prog.done != prog.total {
			t.Errorf("%d devices, progress %+v of %d bytes", len(m.Devices), prog, m.ShardBytes())
		}
	}
}

type countProgress struct{ total, done int64 }

func (p *countProgress) Total(n int64) { p.total = n }
func (p *countProgress) Add(n int64)   { p.done += n }

// Each refusal of a merge is its typed error, naming what is at fault.
func TestMergeRefusals(t *testing.T) {
	p0, p1 := PartialName(0, 2), PartialName(1, 2)
	edit := func(name, old, new string) func(memDir) {
		return func(d memDir) { d[name] = bytes.Replace(d[name], []byte(old), []byte(new), 1) }
	}
	cases := []struct {
		name  string
		edit  func(memDir)
		want  string // in the message
		check func(error) bool
	}{
		{"to", edit(p1, `"to": "f32"`, `"to": "bf16"`), "describe different conversions: to f32 in the first, bf16 in the second",
			func(err error) bool {
				var me *MismatchError
				return errors.As(err, &me) && me.First == p0 && me.Second == p1 && me.Diffs[0].Field == "To"
			}},
		{"mesh", edit(p1, `"sizes": [2,2]`, `"sizes": [1,4]`), "describe different conversions: mesh", nil},
		{"source", edit(p1, `"bytes": 8272`, `"bytes": 8273`), "source file multi_ab.safetensors: 8272 bytes, fingerprint 41b23d1ba857… in the first; multi_ab.safetensors: 8273 bytes", nil},
		{"dtype", edit(p1, `"dtype": "bf16"`, `"dtype": "f32"`), `tensor "x" differs between partial manifests ` + p0 + ` and ` + p1 + `: dtype bf16 in the first, f32 in the second`,
			func(err error) bool { var me *MismatchError; return errors.As(err, &me) && me.Tensor == "x" }},
		{"shard", func(d memDir) {
			edit(p1, `"file": "x/1_0.bin"`, `"file": "x/0_0.bin"`)(d)
			edit(p1, `"index": [1,0]`, `"index": [0,0]`)(d)
		}, "was written with different contents by two processes", func(err error) bool {
			var me *MismatchError
			return errors.As(err, &me) && me.Shard != nil && me.Shard.File == "x/0_0.bin"
		}},
		{"process", edit(p1, `"process": "1/2"`, `"process": "0/2"`), p1 + ` says it is process "0/2", want 1/2`, nil},
		{"missing", func(d memDir) { delete(d, p1) }, "out lacks the manifests of process(es) 1 of 2", nil},
		{"no process", func(d memDir) { d["manifest.process-2-of-2.json"] = nil }, "which no process writes", nil},
		{"two counts", func(d memDir) { d[PartialName(0, 3)] = nil }, "partial manifests of 2 and of 3 processes", nil},
		{"none", func(d memDir) { delete(d, p0); delete(d, p1) }, "out holds no partial manifests (manifest.process-I-of-N.json, written by process I/N)",
			func(err error) bool {
				var ne *NoPartialsError
				return errors.As(err, &ne) && !ne.Merged && ne.Dir == "out"
			}},
		{"merged", func(d memDir) { delete(d, p0); delete(d, p1); d[FileName] = nil }, "out is already merged",
			func(err error) bool { var ne *NoPartialsError; return errors.As(err, &ne) && ne.Merged }},
		{"parse", edit(p1, `"format"`, `"formats"`), "manifest out/" + p1 + `: not a valid manifest: unknown key "formats"`,
			func(err error) bool { var fe *FormatError; return errors.As(err, &fe) }},
		{"device twice", edit(p1, `{"id": 2,`, `{"id": 0,`), "device 0 appears in two partial manifests", nil},
		{"missing file", func(d memDir) { delete(d, "x/1_0.bin") }, `tensor "x": shard file x/1_0.bin is missing`,
			func(err error) bool { var me *MergeError; return errors.As(err, &me) && me.Tensor == "x" }},
		{"short file", func(d memDir) { d["x/1_0.bin"] = d["x/1_0.bin"][1:] }, "has 8191 bytes, the manifest says 8192", nil},
		{"changed file", func(d memDir) { d["x/1_0.bin"] = bytes.Repeat([]byte{1}, 8192) }, "has crc32c", nil},
		{"unlisted", func(d memDir) { d["x/2_0.bin"] = nil }, "out holds x/2_0.bin, which no partial manifest lists", nil},
		{"placement", edit(p1, `[16,32]`, `[15,32]`), "shard x/1_0.bin is listed at [1 0] on devices [2 3], ranges [[15 32] [0 128]]",
			func(err error) bool { var fe *FormatError; return errors.As(err, &fe) && fe.Tensor == "x" }},
		{"spec", func(d memDir) {
			edit(p0, `"spec": "P(\"data\")"`, `"spec": "P(\"model\")"`)(d)
			edit(p1, `"spec": "P(\"data\")"`, `"spec": "P(\"model\")"`)(d)
		}, `spec P("model") puts shard [0 0] on devices [0 2]`, nil},
		{"layout", func(d memDir) {
			edit(p0, `"layout": "f32[16,128]{1,0}"`, `"layout": "f32[16,12"`)(d)
			edit(p1, `"layout": "f32[16,128]{1,0}"`, `"layout": "f32[16,12"`)(d)
		}, `tensor "x": layout f32[16,12`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := loadDir(t, "two")
			c.edit(d)
			_, err := Merge("out", d, MergeOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) || c.check != nil && !c.check(err) {
				t.Fatalf("Merge: %T %v, want an error with %q", err, err, c.want)
			}
			if d.Has(FileName) && c.name != "merged" {
				t.Error("a refused merge wrote manifest.json")
			}
		})
	}
}
