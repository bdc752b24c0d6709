package sharding

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// PlaceTensor takes the spec from rules by the tensor's name, as a conversion does.
func TestPlaceTensorRules(t *testing.T) {
	rules := []byte(`{"rules": [{"match": "attn", "spec": "P(None, \"model\")"}], "default": "P(\"data\")"}`)
	sh := layout.NewShape(layout.F32, 8, 16)
	for _, c := range []struct{ name, spec string }{{"layer0/attn/w", `P(None, "model")`}, {"mlp/w", `P("data")`}} {
		r, err := PlaceTensor(PlaceOptions{Mesh: "data=2,model=4", RulesJSON: rules, Tensor: c.name}, sh)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if r.Spec != c.spec || r.Name != c.name {
			t.Errorf("%s: spec %s, name %q; want %s", c.name, r.Spec, r.Name, c.spec)
		}
	}
	path := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(path, []byte(`{"rules": [{"match": "attn", "spec": "P(\"model\")"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := PlaceTensor(PlaceOptions{Mesh: "data=2,model=4", Rules: path, Tensor: "attn"}, sh)
	if err != nil || r.Spec != `P("model")` || len(r.Shards) != 4 || len(r.Shards[0].Devices) != 2 {
		t.Fatalf("%+v, %v", r, err)
	}
	_, err = PlaceTensor(PlaceOptions{Mesh: "data=2,model=4", Rules: path, Tensor: "mlp"}, sh)
	if err == nil || errMsg(err) != `tensor "mlp" matches no rule and the rules have no default` {
		t.Errorf("a name no rule matches: %v", err)
	}
}

// The query refuses wrong options as a conversion does, with usage errors, and an
// indivisible dim with the conversion's error, which names the tensor when it has a name.
func TestPlaceTensorErrors(t *testing.T) {
	sh := layout.NewShape(layout.BF16, 16, 6)
	dyn, err := layout.Parse("f32[<=8,4]")
	if err != nil {
		t.Fatal(err)
	}
	tuple, err := layout.Parse("(f32[8], f32[4])")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o     PlaceOptions
		sh    layout.Shape
		usage bool
		want  string
	}{
		{PlaceOptions{Spec: `P("x")`}, sh, true, "missing Mesh: the device mesh, such as data=2,model=4"},
		{PlaceOptions{Mesh: "x=8"}, sh, true, "a placement needs one of Spec (one PartitionSpec for all tensors) or Rules FILE"},
		{PlaceOptions{Mesh: "x=8", Spec: `P("x")`, Rules: "r.json"}, sh, true, "Spec and Rules exclude each other"},
		{PlaceOptions{Mesh: "x=8", Rules: "r.json"}, sh, true, "Rules needs Tensor NAME, the tensor's name that the rules match"},
		{PlaceOptions{Mesh: "x=8", Spec: `P("x")`}, dyn, true, "dim 0 of f32[<=8,4]{1,0} is dynamic: a placement needs every dim's size"},
		{PlaceOptions{Mesh: "x=8", Spec: `P("x")`}, tuple, true, "is not an array"},
		{PlaceOptions{Mesh: "x=8,x=2", Spec: `P("x")`}, sh, true, `Mesh: mesh axis "x" appears twice`},
		{PlaceOptions{Mesh: "x=8", Devices: []int{0, 1}, Spec: `P("x")`}, sh, true, "Mesh: mesh x=8 has 8 devices, but only 2 device ids are given"},
		{PlaceOptions{Mesh: "x=8", Spec: `P(x)`}, sh, true, "Spec: bad spec"},
		{PlaceOptions{Mesh: "x=8", Spec: `P("y")`}, sh, false, `spec P("y") names mesh axis "y", which mesh x=8 does not have`},
		{PlaceOptions{Mesh: "x=8", Spec: `P(None, "x")`}, sh, false,
			`dims [16,6]: dim 1 of size 6 is not divisible by 8, the product of the mesh axes x(8) that spec P(None, "x") shards it over`},
		{PlaceOptions{Mesh: "x=8", Spec: `P(None, "x")`, Tensor: "w"}, sh, false,
			`tensor "w" (dims [16,6]): dim 1 of size 6 is not divisible by 8, the product of the mesh axes x(8) that spec P(None, "x") shards it over`},
	} {
		_, err := PlaceTensor(c.o, c.sh)
		var ce *ConvertError
		if !errors.As(err, &ce) || ce.Setting != c.usage || !strings.Contains(errMsg(err), c.want) {
			t.Errorf("%+v %s: %v (%T), want usage %v and %q", c.o, c.sh, err, err, c.usage, c.want)
		}
	}
}

// A conversion refuses an indivisible dim with the same text as the query.
func TestPlaceTensorErrorIsConversions(t *testing.T) {
	m, err := placement.ParseMesh("x=8", nil)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := placement.ParseSpec(`P(None, "x")`)
	if err != nil {
		t.Fatal(err)
	}
	_, perr := PlaceTensor(PlaceOptions{Mesh: "x=8", Spec: spec.String(), Tensor: "w"}, layout.NewShape(layout.F32, 16, 6))
	_, cerr := placeTensor(m, spec, "w", []int64{16, 6})
	var ie *placement.IndivisibleError
	if perr == nil || errMsg(perr) != errMsg(cerr) || !errors.As(perr, &ie) || ie.Dim != 1 || ie.Count != 8 {
		t.Errorf("query: %v; conversion: %v", perr, cerr)
	}
}

// The text form: a line on the array and how it is cut, then each shard's index,
// ranges and devices in runs.
func TestPlacementReportText(t *testing.T) {
	for _, c := range []struct {
		o    PlaceOptions
		sh   layout.Shape
		want string
	}{
		{PlaceOptions{Mesh: "data=2,model=4", Spec: `P(None, "data")`, Devices: []int{0, 1, 2, 3, 7, 6, 5, 4}}, layout.NewShape(layout.BF16, 4096, 1024),
			`bf16[4096,1024], spec P(None, "data"), mesh data=2,model=4 (8 devices): 2 shards of [4096,512], each on 4 devices
index  ranges               devices
[0,0]  [0,4096)×[0,512)     0-3
[0,1]  [0,4096)×[512,1024)  4-7
`},
		{PlaceOptions{Mesh: "x=2", Spec: "P()", Tensor: "step"}, layout.NewShape(layout.S32),
			`"step" s32[], spec P(), mesh x=2 (2 devices): 1 shard of [], each on 2 devices
index  ranges  devices
[]     -       0-1
`},
	} {
		r, err := PlaceTensor(c.o, c.sh)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("got\n%s\nwant\n%s", b.String(), c.want)
		}
	}
}

func TestDeviceIDsRunText(t *testing.T) {
	for _, c := range []struct {
		ids  manifest.DeviceIDs
		want string
	}{
		{manifest.DeviceIDs{0}, "0"}, {manifest.DeviceIDs{0, 4}, "0,4"}, {manifest.DeviceIDs{0, 1, 2, 3, 8, 9, 10, 11}, "0-3,8-11"},
		{manifest.DeviceIDs{5, 6, 9}, "5-6,9"}, {manifest.DeviceIDs{}, ""},
	} {
		if got := c.ids.RunText(); got != c.want {
			t.Errorf("%v: %q, want %q", c.ids, got, c.want)
		}
	}
}

// TestPlaceTensorAgainstJAX runs every recorded case through PlaceTensor, the query
// of `tpulayout place`, with the mesh, devices and spec as text: replicas grouped
// into one shard each, their ranges JAX's, and the refusals the conversion's error.
func TestPlaceTensorAgainstJAX(t *testing.T) {
	for _, c := range testfiles.ReadJAXCases(t, "..") {
		o := PlaceOptions{Mesh: c.MeshText(), Devices: c.Mesh.Devices, Spec: c.SpecText()}
		r, err := PlaceTensor(o, layout.NewShape(layout.BF16, c.Shape...))
		if !c.Placed() {
			dim, size, count := c.Refusal(t)
			var ie *placement.IndivisibleError
			if !errors.As(err, &ie) || ie.Dim != dim || ie.Count != count || ie.Size != size {
				t.Errorf("%s: JAX refuses it (%s), here: %v", &c, c.RefusalText(t), err)
			}
			var ce *ConvertError
			if !errors.As(err, &ce) || ce.Setting {
				t.Errorf("%s: %T %v, want a *ConvertError that is not a usage error", &c, err, err)
			}
			if !strings.HasPrefix(errMsg(err), "dims "+report.DimsText(c.Shape)+": "+c.RefusalText(t)) {
				t.Errorf("%s: %q does not start with the dims", &c, errMsg(err))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: JAX places it, here: %v", &c, err)
			continue
		}
		ranges := map[int][][2]int64{}
		for _, s := range r.Shards {
			if len(s.Devices) != len(c.Mesh.Devices)/len(r.Shards) || !slices.IsSorted(s.Devices) {
				t.Errorf("%s: shard %v is held by %v", &c, s.Index, s.Devices)
			}
			for _, id := range s.Devices {
				if _, twice := ranges[id]; twice {
					t.Errorf("%s: device %d holds two shards", &c, id)
				}
				ranges[id] = s.Ranges
			}
		}
		c.CheckRanges(t, ranges)
		// Devices holding the same ranges are one shard: no two shards alike.
		for i := 1; i < len(r.Shards); i++ {
			for j := range i {
				if slices.Equal(r.Shards[i].Ranges, r.Shards[j].Ranges) {
					t.Errorf("%s: shards %v and %v hold the same ranges", &c, r.Shards[i].Index, r.Shards[j].Index)
				}
			}
		}
	}
}
