package placement

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
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
	for _, c := range testfiles.ReadJAXCases(t, "../..") {
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
