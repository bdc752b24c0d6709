package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/sharding/manifest"
)

// TestPlaceJAX runs every placement JAX 0.11.2 recorded (testdata/jax) through
// `tpulayout place --json`: each device's ranges exactly JAX's, replicas one entry,
// the output as docs/schema/place.json says; and each case device_put refused refused
// on one line naming the dim and both sizes, exit status 2.
func TestPlaceJAX(t *testing.T) {
	schema := compileShardSchema(t, "place")
	for _, c := range testfiles.ReadJAXCases(t, filepath.Join("..", "..")) {
		args := []string{"place", "bf16[" + dimsText(c.Shape) + "]",
			"--mesh", c.MeshText(), "--devices", c.DevicesText(), "--spec", c.SpecText(), "--json"}
		out, errOut, code := runCmd(t, args...)
		if !c.Placed() {
			want := "tpulayout place: dims [" + dimsText(c.Shape) + "]: " + c.RefusalText(t)
			if code != 2 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", &c, code, out, errOut, want)
			}
			continue
		}
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d: %s", &c, code, errOut)
		}
		checkSchema(t, schema, strings.Join(args, " "), out)
		var r struct {
			Shards []struct {
				Ranges  [][2]int64 `json:"ranges"`
				Devices []int      `json:"devices"`
			} `json:"shards"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%s: %v\n%s", &c, err, out)
		}
		ranges := map[int][][2]int64{}
		seen := map[string]bool{}
		for _, s := range r.Shards {
			key := fmt.Sprint(s.Ranges)
			if seen[key] {
				t.Errorf("%s: two entries hold %v: replicas are one entry", &c, s.Ranges)
			}
			seen[key] = true
			for _, id := range s.Devices {
				ranges[id] = s.Ranges
			}
		}
		c.CheckRanges(t, ranges)
	}
}

func dimsText(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	return strings.Join(parts, ",")
}

// The text and JSON forms, a replicated mesh with a permuted device order, rules by
// tensor name, and the refusals.
func TestPlaceTranscript(t *testing.T) {
	text := mustRun(t, "place", "bf16[4096,1024]{1,0:T(8,128)(2,1)}", "--mesh", "data=2,model=4", "--spec", `P("model")`, "--devices", "7,6,5,4,3,2,1,0")
	want := `bf16[4096,1024], spec P("model"), mesh data=2,model=4 (8 devices): 4 shards of [1024,1024], each on 2 devices
index  ranges                devices
[0,0]  [0,1024)×[0,1024)     3,7
[1,0]  [1024,2048)×[0,1024)  2,6
[2,0]  [2048,3072)×[0,1024)  1,5
[3,0]  [3072,4096)×[0,1024)  0,4
`
	if text != want {
		t.Errorf("place: got\n%s\nwant\n%s", text, want)
	}
	js := mustRun(t, "place", "f32[8,6]", "--mesh", "x=2,y=2", "--spec", `P(("y", "x"))`, "--json", "--tensor", "w")
	want = `{
  "name": "w",
  "dtype": "f32",
  "shape": [8,6],
  "spec": "P((\"y\", \"x\"))",
  "mesh": {
    "axes": ["x","y"],
    "sizes": [2,2],
    "devices": [0,1,2,3]
  },
  "shard_shape": [2,6],
  "shards": [
    {
      "index": [0,0],
      "ranges": [
        [0,2],
        [0,6]
      ],
      "devices": [0]
    },
    {
      "index": [1,0],
      "ranges": [
        [2,4],
        [0,6]
      ],
      "devices": [2]
    },
    {
      "index": [2,0],
      "ranges": [
        [4,6],
        [0,6]
      ],
      "devices": [1]
    },
    {
      "index": [3,0],
      "ranges": [
        [6,8],
        [0,6]
      ],
      "devices": [3]
    }
  ]
}
`
	if js != want {
		t.Errorf("place --json: got\n%s\nwant\n%s", js, want)
	}
	// The schema can fail: a manifest shard's file, or a shard without devices.
	schema := compileShardSchema(t, "place")
	checkSchema(t, schema, "place --json", js)
	for _, bad := range []string{
		strings.Replace(js, `"devices": [0]`, `"devices": [0], "file": "w/0_0.bin"`, 1),
		strings.Replace(js, `,
      "devices": [0]`, "", 1),
	} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil || bad == js {
			t.Fatalf("%v\n%s", err, bad)
		}
		if schema.Validate(v) == nil {
			t.Errorf("docs/schema/place.json accepts:\n%s", bad)
		}
	}
	rules := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(rules, []byte(`{"rules": [{"match": "embed", "spec": "P(None, \"model\")"}], "default": "P()"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, spec := range map[string]string{"embed": `P(None, "model")`, "norm": `P()`} {
		out := mustRun(t, "place", "bf16[16,8]", "--mesh", "data=2,model=4", "--rules", rules, "--tensor", name)
		if !strings.HasPrefix(out, `"`+name+`" bf16[16,8], spec `+spec+",") {
			t.Errorf("--rules --tensor %s: %s", name, out)
		}
	}
	// The big mesh's replicas in runs, in the text and (as the manifest writes them) in JSON.
	out := mustRun(t, "place", "s8[4]", "--mesh", "x=256", "--spec", "P()")
	if !strings.HasSuffix(out, "[0]    [0,4)   0-255\n") {
		t.Errorf("a replicated tensor on 256 devices:\n%s", out)
	}
	var r manifest.PlacementReport
	if err := json.Unmarshal([]byte(mustRun(t, "place", "s8[4]", "--mesh", "x=256", "--spec", "P()", "--json")), &r); err != nil || len(r.Shards) != 1 || len(r.Shards[0].Devices) != 256 {
		t.Errorf("%+v, %v", r, err)
	}

	wantError(t, []string{"place", "bf16[16,6]", "--mesh", "x=8", "--spec", `P(None, "x")`, "--tensor", "w"},
		`tpulayout place: tensor "w" (dims [16,6]): dim 1 of size 6 is not divisible by 8, the product of the mesh axes x(8) that spec P(None, "x") shards it over`)
	wantUsageError(t, []string{"place", "bf16[16,6]", "--mesh", "x=8", "--rules", rules}, "--rules needs --tensor NAME")
	wantUsageError(t, []string{"place", "bf16[16,6]", "--spec", `P("x")`}, "missing --mesh")
	wantUsageError(t, []string{"place", "bf16[16,6]", "--mesh", "x=8"}, "a placement needs one of --spec")
	wantUsageError(t, []string{"place", "--mesh", "x=8", "--spec", "P()"}, "missing SHAPE")
	wantUsageError(t, []string{"place", "bf16[16,6]", "--mesh", "x=8", "--spec", "P()", "--devices", "0,1,x"}, `--devices: bad device list "0,1,x"`)
	wantUsageError(t, []string{"place", "bf16[16,6]", "--mesh", "x=8", "--spec", "P()", "--devices", "0,1"}, "8 devices, but only 2 device ids")
	wantError(t, []string{"place", "bf16[16", "--mesh", "x=8", "--spec", "P()"}, "tpulayout place: ")
}

// wantError checks that the command fails with exit status 2, one line on stderr that
// starts with prefix, and nothing on stdout.
func wantError(t *testing.T, args []string, prefix string) {
	t.Helper()
	out, errOut, code := runCmd(t, args...)
	if code != 2 || out != "" || !strings.HasPrefix(errOut, prefix) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("tpulayout %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out, errOut, prefix)
	}
}
