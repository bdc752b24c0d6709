package sharding

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// checkJAXRefusal checks that err refuses case c as JAX did: an *IndivisibleError for
// the same dim and number of pieces, with a message naming both sizes.
func checkJAXRefusal(t *testing.T, c *testfiles.JAXCase, err error) {
	t.Helper()
	dim, size, count := c.Refusal(t)
	var ie *IndivisibleError
	if !errors.As(err, &ie) {
		t.Errorf("%s: JAX refuses it (%s), here: %v", c, c.RefusalText(t), err)
		return
	}
	if ie.Dim != dim || ie.Count != count || ie.Size != size {
		t.Errorf("%s: refused for dim %d of size %d in %d pieces, JAX for dim %d of size %d in %d", c, ie.Dim, ie.Size, ie.Count, dim, size, count)
	}
	if !strings.Contains(err.Error(), c.RefusalText(t)) {
		t.Errorf("%s: error %q does not say %q", c, err, c.RefusalText(t))
	}
}

// TestPlaceAgainstJAX holds Place to every placement that JAX 0.11.2 recorded: each
// device's [start, stop) per dim exactly, and every case device_put refused refused for
// the same dim.
func TestPlaceAgainstJAX(t *testing.T) {
	placed, refused := 0, 0
	for _, c := range testfiles.ReadJAXCases(t, "..") {
		m, err := NewMesh(c.Mesh.Axes, c.Mesh.Sizes, c.Mesh.Devices)
		if err != nil {
			t.Fatalf("%s: %v", &c, err)
		}
		spec, err := ParseSpec(c.SpecText())
		if err != nil {
			t.Fatalf("%s: %v", &c, err)
		}
		pl, err := Place(m, spec, c.Shape)
		if !c.Placed() {
			refused++
			checkJAXRefusal(t, &c, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: JAX places it, here: %v", &c, err)
			continue
		}
		placed++
		ranges := map[int][][2]int64{}
		for _, id := range m.Devices {
			s, ok := pl.ShardOf(id)
			if !ok {
				t.Fatalf("%s: device %d has no shard", &c, id)
			}
			ranges[id] = pl.Ranges(s)
		}
		c.CheckRanges(t, ranges)
	}
	if placed != 524 || refused != 194 {
		t.Errorf("checked %d placements and %d refusals, want 524 and 194", placed, refused)
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
			checkJAXRefusal(t, &c, err)
			var ce *ConvertError
			if !errors.As(err, &ce) || ce.Setting {
				t.Errorf("%s: %T %v, want a *ConvertError that is not a usage error", &c, err, err)
			}
			dims := strings.ReplaceAll(fmtInts(c.Shape), "_", ",")
			if !strings.HasPrefix(ErrorText(err, nil), "dims ["+dims+"]: "+c.RefusalText(t)) {
				t.Errorf("%s: %q does not start with the dims", &c, ErrorText(err, nil))
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
