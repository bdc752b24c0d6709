package sharding

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

// jaxCase is one case of testdata/jax/jax-sharding.json, recorded from JAX 0.11.2 (see
// testdata/jax/README.md): NamedSharding(Mesh(devices[order].reshape(sizes), axes),
// P(*spec)) and what devices_indices_map and device_put made of an array of shape.
type jaxCase struct {
	Mesh struct {
		Axes    []string `json:"axes"`
		Sizes   []int    `json:"sizes"`
		Devices []int    `json:"devices"`
	} `json:"mesh"`
	Shape        []int64               `json:"shape"`
	Spec         []json.RawMessage     `json:"spec"` // null, "axis" or ["axis", …]
	Indices      map[string][][2]int64 `json:"indices"`
	IndicesError string                `json:"indices_error"`
	DevicePut    string                `json:"device_put"`
}

// readJAXCases reads the recorded placements: all 718 of them, 194 refused.
func readJAXCases(t *testing.T) []jaxCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "jax", "jax-sharding.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Meta  map[string]any `json:"meta"`
		Cases []jaxCase      `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range f.Cases {
		if c.DevicePut != "ok" {
			refused++
		}
	}
	if len(f.Cases) != 718 || refused != 194 || f.Meta["jax"] != "0.11.2" {
		t.Fatalf("%d cases, %d refused, jax %v: not the recording testdata/jax/README.md describes", len(f.Cases), refused, f.Meta["jax"])
	}
	return f.Cases
}

// spec is the case's PartitionSpec as Python writes it: P(None, 'x', ('a', 'b')).
func (c *jaxCase) spec(t *testing.T) string {
	parts := make([]string, len(c.Spec))
	for i, raw := range c.Spec {
		var one string
		var many []string
		switch {
		case string(raw) == "null":
			parts[i] = "None"
		case json.Unmarshal(raw, &one) == nil:
			parts[i] = "'" + one + "'"
		case json.Unmarshal(raw, &many) == nil:
			q := make([]string, len(many))
			for j, a := range many {
				q[j] = "'" + a + "'"
			}
			parts[i] = "(" + strings.Join(q, ", ") + ")"
		default:
			t.Fatalf("spec entry %s", raw)
		}
	}
	return "P(" + strings.Join(parts, ", ") + ")"
}

func (c *jaxCase) name() string {
	return fmt.Sprintf("mesh %v %v devices %v, shape %v, spec %v", c.Mesh.Axes, c.Mesh.Sizes, c.Mesh.Devices, c.Shape, c.spec(nil))
}

// jaxRefusal is what JAX's IndivisibleError says: the array axis and how many times
// it is partitioned. The recording cuts messages at 200 characters (after the type's
// name), in one case right after that number; the dim's size comes from the shape.
var jaxRefusal = regexp.MustCompile(`implies that array axis (\d+) is partitioned (\d+)`)

// checkJAXRefusal checks that err refuses case c as JAX did: an *IndivisibleError for
// the same dim and number of pieces, with a message naming both sizes.
func checkJAXRefusal(t *testing.T, c *jaxCase, err error) {
	t.Helper()
	m := jaxRefusal.FindStringSubmatch(c.IndicesError)
	if m == nil || !strings.HasPrefix(c.DevicePut, "IndivisibleError:") {
		t.Fatalf("%s: the recording does not say why JAX refused it: %q / %q", c.name(), c.IndicesError, c.DevicePut)
	}
	var ie *IndivisibleError
	if !errors.As(err, &ie) {
		t.Errorf("%s: JAX refuses it (%s), here: %v", c.name(), m[0], err)
		return
	}
	dim, _ := strconv.Atoi(m[1])
	count, _ := strconv.Atoi(m[2])
	if dim >= len(c.Shape) {
		t.Fatalf("%s: JAX refused array axis %d", c.name(), dim)
	}
	size := c.Shape[dim]
	if ie.Dim != dim || ie.Count != count || ie.Size != size {
		t.Errorf("%s: refused for dim %d of size %d in %d pieces, JAX for dim %d of size %d in %d", c.name(), ie.Dim, ie.Size, ie.Count, dim, size, count)
	}
	want := fmt.Sprintf("dim %d of size %d is not divisible by %d", dim, size, count)
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: error %q does not say %q", c.name(), err, want)
	}
}

// checkJAXRanges checks that ranges gives every device of the case the [start, stop)
// ranges JAX gave it, and no other device any.
func checkJAXRanges(t *testing.T, c *jaxCase, ranges map[int][][2]int64) {
	t.Helper()
	if len(ranges) != len(c.Indices) {
		t.Errorf("%s: %d devices hold a shard, JAX's %d", c.name(), len(ranges), len(c.Indices))
	}
	for id, want := range c.Indices {
		n, err := strconv.Atoi(id)
		if err != nil {
			t.Fatalf("%s: device id %q", c.name(), id)
		}
		got, ok := ranges[n]
		if !ok {
			t.Errorf("%s: device %d holds nothing here; JAX gives it %v", c.name(), n, want)
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: device %d holds %v here, %v in JAX", c.name(), n, got, want)
		}
	}
}

// TestPlaceAgainstJAX holds Place to every placement that JAX 0.11.2 recorded: each
// device's [start, stop) per dim exactly, and every case device_put refused refused for
// the same dim.
func TestPlaceAgainstJAX(t *testing.T) {
	placed, refused := 0, 0
	for _, c := range readJAXCases(t) {
		m, err := NewMesh(c.Mesh.Axes, c.Mesh.Sizes, c.Mesh.Devices)
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		spec, err := ParseSpec(c.spec(t))
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		pl, err := Place(m, spec, c.Shape)
		if c.DevicePut != "ok" {
			refused++
			checkJAXRefusal(t, &c, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: JAX places it, here: %v", c.name(), err)
			continue
		}
		placed++
		ranges := map[int][][2]int64{}
		for _, id := range m.Devices {
			s, ok := pl.ShardOf(id)
			if !ok {
				t.Fatalf("%s: device %d has no shard", c.name(), id)
			}
			ranges[id] = pl.Ranges(s)
		}
		checkJAXRanges(t, &c, ranges)
	}
	if placed != 524 || refused != 194 {
		t.Errorf("checked %d placements and %d refusals, want 524 and 194", placed, refused)
	}
}

// TestPlaceTensorAgainstJAX runs every recorded case through PlaceTensor, the query
// of `tpulayout place`, with the mesh, devices and spec as text: replicas grouped
// into one shard each, their ranges JAX's, and the refusals the conversion's error.
func TestPlaceTensorAgainstJAX(t *testing.T) {
	for _, c := range readJAXCases(t) {
		o := PlaceOptions{Mesh: meshText(c.Mesh.Axes, c.Mesh.Sizes), Devices: c.Mesh.Devices, Spec: c.spec(t)}
		r, err := PlaceTensor(o, layout.NewShape(layout.BF16, c.Shape...))
		if c.DevicePut != "ok" {
			checkJAXRefusal(t, &c, err)
			var ce *ConvertError
			if !errors.As(err, &ce) || ce.Usage {
				t.Errorf("%s: %T %v, want a *ConvertError that is not a usage error", c.name(), err, err)
			}
			dims := strings.ReplaceAll(fmtInts(c.Shape), "_", ",")
			if !strings.HasPrefix(ErrorText(err), "dims ["+dims+"]: dim ") {
				t.Errorf("%s: %q does not start with the dims", c.name(), ErrorText(err))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: JAX places it, here: %v", c.name(), err)
			continue
		}
		ranges := map[int][][2]int64{}
		for _, s := range r.Shards {
			if len(s.Devices) != len(c.Mesh.Devices)/len(r.Shards) || !slices.IsSorted(s.Devices) {
				t.Errorf("%s: shard %v is held by %v", c.name(), s.Index, s.Devices)
			}
			for _, id := range s.Devices {
				if _, twice := ranges[id]; twice {
					t.Errorf("%s: device %d holds two shards", c.name(), id)
				}
				ranges[id] = s.Ranges
			}
		}
		checkJAXRanges(t, &c, ranges)
		// Devices holding the same ranges are one shard: no two shards alike.
		for i := 1; i < len(r.Shards); i++ {
			for j := range i {
				if slices.Equal(r.Shards[i].Ranges, r.Shards[j].Ranges) {
					t.Errorf("%s: shards %v and %v hold the same ranges", c.name(), r.Shards[i].Index, r.Shards[j].Index)
				}
			}
		}
	}
}
