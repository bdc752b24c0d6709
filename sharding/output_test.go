package sharding

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
