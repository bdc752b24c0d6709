package sharding

import (
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
