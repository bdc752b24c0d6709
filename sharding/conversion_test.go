package sharding

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// TestConvertOptions runs each NumPy fixture through Convert, the options struct with
// the layout given as the CLI's --to, and checks the directory equals ConvertDir's
// (which TestFixtures checks against NumPy's images) file for file, the summary agrees
// with the manifest, and Verify finds nothing wrong. To hlo:MODULE:param=N, which the
// CLI's convert --mesh took alone before, gives the same tensors and images as the
// layout that parameter has, written alone.
func TestConvertOptions(t *testing.T) {
	for _, c := range readFixtures(t) {
		t.Run(c.Name, func(t *testing.T) {
			mesh, spec, dst := c.parse(t)
			ckptPath := filepath.Join(fixtureDir, c.Name+".safetensors")
			to := layoutAlone(dst)
			tmp := t.TempDir()
			got := filepath.Join(tmp, "lib")
			sum, err := Convert(ConvertOptions{Checkpoint: ckptPath, Out: got, Mesh: c.Mesh,
				Devices: c.Devices, Spec: c.Spec, To: to, DType: dst.DType.String(), All: true})
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Join(tmp, "dir")
			convertLocal(t, ckptPath, want, jobOptions{Mesh: mesh, To: to, Source: ckptPath,
				SpecFor: specAll(spec), Target: targetAll(dst)})
			sameTree(t, got, want)

			module := filepath.Join(tmp, "module.txt")
			text := "HloModule m\n\nENTRY main {\n  ROOT p0 = " + c.Layout + " parameter(0)\n}\n"
			if err := os.WriteFile(module, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			viaHLO := filepath.Join(tmp, "hlo")
			hsum, err := Convert(ConvertOptions{Checkpoint: ckptPath, Out: viaHLO, Mesh: c.Mesh,
				Devices: c.Devices, Spec: c.Spec, To: "hlo:" + module + ":param=0", All: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(hsum.Manifest.Tensors, sum.Manifest.Tensors) {
				t.Errorf("To hlo: tensors %+v, want %+v", hsum.Manifest.Tensors, sum.Manifest.Tensors)
			}
			// The manifests differ in To alone; the images are the same.
			hloFiles, files := readTree(t, viaHLO), readTree(t, got)
			delete(hloFiles, manifest.FileName)
			delete(files, manifest.FileName)
			sameContents(t, hloFiles, files)
			if sum.ManifestPath != got+"/"+manifest.FileName || len(sum.Tensors) != len(sum.Manifest.Tensors) {
				t.Errorf("summary names %s and %d tensors", sum.ManifestPath, len(sum.Tensors))
			}
			var bytes int64
			for i, ts := range sum.Tensors {
				mt := sum.Manifest.Tensors[i]
				if ts.Name != mt.Name || ts.Spec != mt.Spec || ts.Layout != mt.Layout || ts.Shards != len(mt.Shards) {
					t.Errorf("summary %+v, manifest %s %s %s %d shards", ts, mt.Name, mt.Spec, mt.Layout, len(mt.Shards))
				}
				for _, s := range mt.Shards {
					bytes += s.Bytes
				}
			}
			if sum.Bytes != bytes {
				t.Errorf("summary says %d bytes, the shards %d", sum.Bytes, bytes)
			}
			r, err := VerifyOutdir(got, "")
			if err != nil || len(r.Problems) > 0 {
				t.Errorf("verify: %v %v", err, r)
			}
		})
	}
}

// TestConvertErrors checks what each wrong option gives: the CLI's message, and Usage
// where the options alone are wrong.
func TestConvertErrors(t *testing.T) {
	ckpt := filepath.Join(fixtureDir, "rows_x4.safetensors")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.json")
	os.WriteFile(rules, []byte(`{"rules": [{"match": "^nothing$", "spec": "P()"}], "default": "P()"}`), 0o644)
	ok := ConvertOptions{Checkpoint: ckpt, Out: filepath.Join(dir, "out"), Mesh: "x=4", Spec: `P("x")`, To: "tpu:v5e"}
	cases := []struct {
		change func(o *ConvertOptions)
		usage  bool
		want   string
	}{
		{func(o *ConvertOptions) { o.Mesh = "" }, true, "missing Mesh: the device mesh, such as data=2,model=4"},
		{func(o *ConvertOptions) { o.Checkpoint = "w.npy" }, true, "a sharded conversion reads a .safetensors checkpoint or its model.safetensors.index.json, not w.npy"},
		{func(o *ConvertOptions) { o.Out = "" }, true, "OUTDIR is empty: name a new directory or a bucket prefix"},
		{func(o *ConvertOptions) { o.All, o.Tensor = true, "w" }, true, "All and Tensor exclude each other"},
		{func(o *ConvertOptions) { o.Rules = rules }, true, "Spec and Rules exclude each other: give one PartitionSpec for all tensors (Spec) or a rules FILE (Rules)"},
		{func(o *ConvertOptions) { o.Spec = "" }, true, "a sharded conversion needs one of Spec (one PartitionSpec for all tensors) or Rules FILE"},
		{func(o *ConvertOptions) { o.To = "" }, true, "missing To: the device layout of the shards, tpu:GEN or a layout alone such as '{1,0:T(8,128)(2,1)}'"},
		{func(o *ConvertOptions) { o.Mesh = "x=0" }, true, "Mesh: "},
		{func(o *ConvertOptions) { o.Process, o.Processes = 4, 4 }, true, `bad Process "4/4": want I/N with 0 ≤ I < N, such as 0/4`},
		{func(o *ConvertOptions) { o.Checkpoint = filepath.Join(dir, "none.safetensors") }, false, "cannot read IN " + filepath.Join(dir, "none.safetensors") + ": "},
		{func(o *ConvertOptions) { o.Spec = `P("y")` }, false, `"y"`},
		{func(o *ConvertOptions) { o.Spec = "Q(" }, true, "Spec: "},
		{func(o *ConvertOptions) { o.Spec, o.Rules, o.All = "", rules, true }, false, "Rules " + rules + `: rule 1 ("^nothing$") matches no tensor of the checkpoint, or only ones an earlier rule took`},
		{func(o *ConvertOptions) { o.Spec, o.Rules = "", filepath.Join(dir, "none.json") }, false, "Rules " + filepath.Join(dir, "none.json") + ": no such file or directory"},
		{func(o *ConvertOptions) { o.To = "tpu:v9" }, false, `bad To "tpu:v9"`},
		{func(o *ConvertOptions) { o.Tensor = "nope" }, false, `has no tensor "nope"`},
	}
	for _, c := range cases {
		o := ok
		c.change(&o)
		_, err := Convert(o)
		var ce *ConvertError
		if !errors.As(err, &ce) {
			t.Errorf("%+v: %v, not a *ConvertError", o, err)
			continue
		}
		text := errMsg(err)
		if ce.Setting != c.usage || !strings.Contains(text, c.want) || strings.Contains(text, "sharding: ") {
			t.Errorf("%+v: %q (usage %v), want %q (usage %v)", o, text, ce.Setting, c.want, c.usage)
		}
	}
	if _, err := os.Stat(ok.Out); !os.IsNotExist(err) {
		t.Errorf("a failed conversion left %s: %v", ok.Out, err)
	}
}

// TestConvertGuessed: with To tpu:GEN the summary lists the tensors whose default
// layout the XLA dumps do not back, as the CLI's note does; a layout given is no guess.
func TestConvertGuessed(t *testing.T) {
	for _, c := range []struct {
		ckpt, to string
		guess    bool
	}{{"s8_quads", "tpu:v5e", true}, {"mesh2d_both", "tpu:v5e", false}, {"s8_quads", "{1,0:T(32,128)(4,1)}", false}} {
		sum, err := Convert(ConvertOptions{Checkpoint: filepath.Join(fixtureDir, c.ckpt+".safetensors"),
			Out: filepath.Join(t.TempDir(), "o"), Mesh: "x=2", Spec: "P()", To: c.to})
		if err != nil {
			t.Fatal(err)
		}
		if c.guess != (len(sum.Guessed) == 1) || sum.Guessed == nil {
			t.Fatalf("%s --to %s: guessed %+v", c.ckpt, c.to, sum.Guessed)
		}
		if c.guess {
			g := sum.Guessed[0]
			if g.Tensor != "x" || g.Layout != sum.Tensors[0].Layout || !strings.Contains(g.Why, "T(32,128)(4,1)") {
				t.Errorf("guessed %+v for %s", g, sum.Tensors[0].Layout)
			}
		}
	}
}

// TestTextOptions: Devices and Process from text, with the command's messages and
// as usage errors.
func TestTextOptions(t *testing.T) {
	if ids, err := DevicesOption("[3, 2,1,0]"); err != nil || !slices.Equal(ids, []int{3, 2, 1, 0}) {
		t.Errorf("DevicesOption: %v, %v", ids, err)
	}
	_, err := DevicesOption("0,x")
	if ce, ok := err.(*ConvertError); !ok || !ce.Setting || errMsg(err) != `Devices: bad device list "0,x": "x" is not a device id` {
		t.Errorf("DevicesOption(0,x): %v", err)
	}
	if i, n, err := ProcessOption("1/4"); err != nil || i != 1 || n != 4 {
		t.Errorf("ProcessOption(1/4): %d, %d, %v", i, n, err)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "0/0", "a/b", ""} {
		_, _, err := ProcessOption(bad)
		want := `bad Process "` + bad + `": want I/N with 0 ≤ I < N, such as 0/4`
		if ce, ok := err.(*ConvertError); !ok || !ce.Setting || errMsg(err) != want {
			t.Errorf("ProcessOption(%q): %v", bad, err)
		}
	}
}

// TestConvertRulesJSON: rules given as text convert as the same rules in a file do,
// and are refused with the file's messages, less the file's name.
func TestConvertRulesJSON(t *testing.T) {
	ckpt := filepath.Join(fixtureDir, "rows_x4.safetensors")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "file"), 0o755)
	os.Mkdir(filepath.Join(dir, "text"), 0o755)
	base := ConvertOptions{Checkpoint: ckpt, Mesh: "x=4", To: "tpu:v5e", All: true}
	for k, text := range []string{
		`{"rules": [{"match": "^x$", "spec": "P(\"x\")"}]}`,
		`{"rules": [{"match": "^nothing$", "spec": "P()"}], "default": "P()"}`,
		`{"rules": [{"match": "", "spec": "P()"}]}`,
		`{"rules": [{"match": "x", "spec": "P()", "extra": 1}]}`,
		`{"rules": []}`,
	} {
		file := filepath.Join(dir, "rules.json")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		fromFile, fromText := base, base
		fromFile.Rules, fromFile.Out = file, filepath.Join(dir, "file", string(rune('a'+k)))
		fromText.RulesJSON, fromText.Out = []byte(text), filepath.Join(dir, "text", string(rune('a'+k)))
		_, ferr := Convert(fromFile)
		_, terr := Convert(fromText)
		if (ferr == nil) != (terr == nil) {
			t.Fatalf("%s: file %v, text %v", text, ferr, terr)
		}
		if ferr == nil {
			os.Remove(filepath.Join(fromFile.Out, manifest.FileName)) // it names the source only
			os.Remove(filepath.Join(fromText.Out, manifest.FileName))
			sameTree(t, fromFile.Out, fromText.Out)
			continue
		}
		want := strings.NewReplacer("rules file "+file+": ", "", "Rules "+file, "Rules").Replace(errMsg(ferr))
		if got := errMsg(terr); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", text, got, want)
		}
	}
	both := base
	both.Rules, both.RulesJSON, both.Out = "r.json", []byte(`{}`), filepath.Join(dir, "both")
	if _, err := Convert(both); err == nil || !strings.Contains(err.Error(), "Rules and RulesJSON exclude each other") {
		t.Errorf("Rules and RulesJSON both: %v", err)
	}
}

// TestConvertPad: Pad is convert's Pad, checked against each tensor's image type,
// its errors naming the field Pad.
func TestConvertPad(t *testing.T) {
	c := readFixtures(t)[0] // bf16
	for pad, want := range map[string]string{
		"zero": "", "leave": "", "-2.5": "",
		"0.1":  `tensor "x": Pad 0.1 is not exact in bf16, which would hold 0.10009765625`,
		"nope": `bad Pad "nope": want zero, leave or a number`,
	} {
		_, err := Convert(ConvertOptions{Checkpoint: filepath.Join(fixtureDir, c.Name+".safetensors"),
			Out: filepath.Join(t.TempDir(), "out"), Mesh: c.Mesh, Spec: c.Spec, All: true, To: "tpu:v5e", Pad: pad})
		got := ""
		if err != nil {
			got = errMsg(err)
		}
		if got != want {
			t.Errorf("Pad %q: got %q, want %q", pad, got, want)
		}
	}
}
