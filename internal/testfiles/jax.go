package testfiles

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// JAXCase is one case of testdata/jax/jax-sharding.json, recorded from JAX 0.11.2 (see
// testdata/jax/README.md): NamedSharding(Mesh(devices[order].reshape(sizes), axes),
// P(*spec)) and what devices_indices_map and device_put made of an array of Shape.
type JAXCase struct {
	Mesh struct {
		Axes    []string `json:"axes"`
		Sizes   []int    `json:"sizes"`
		Devices []int    `json:"devices"` // in row-major order of the mesh
	} `json:"mesh"`
	Shape        []int64               `json:"shape"`
	Spec         []json.RawMessage     `json:"spec"`    // per dim null, "axis" or ["axis", …]
	Indices      map[string][][2]int64 `json:"indices"` // device id → [start, stop) per dim
	IndicesError string                `json:"indices_error"`
	DevicePut    string                `json:"device_put"` // "ok" or JAX's error
}

// ReadJAXCases reads the recorded placements from root, the repository's top
// directory: all 718 of them, 194 refused, or the test fails.
func ReadJAXCases(t testing.TB, root string) []JAXCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "jax", "jax-sharding.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Meta  map[string]any `json:"meta"`
		Cases []JAXCase      `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, c := range f.Cases {
		if !c.Placed() {
			refused++
		}
	}
	if len(f.Cases) != 718 || refused != 194 || f.Meta["jax"] != "0.11.2" {
		t.Fatalf("%d cases, %d refused, jax %v: not the recording testdata/jax/README.md describes", len(f.Cases), refused, f.Meta["jax"])
	}
	return f.Cases
}

// Placed reports whether jax.device_put accepted the case.
func (c *JAXCase) Placed() bool { return c.DevicePut == "ok" }

// MeshText is the mesh as --mesh takes it: "data=2,model=4".
func (c *JAXCase) MeshText() string {
	parts := make([]string, len(c.Mesh.Axes))
	for i, a := range c.Mesh.Axes {
		parts[i] = a + "=" + strconv.Itoa(c.Mesh.Sizes[i])
	}
	return strings.Join(parts, ",")
}

// DevicesText is the device ids as --devices takes them: "0,1,2,3".
func (c *JAXCase) DevicesText() string {
	parts := make([]string, len(c.Mesh.Devices))
	for i, d := range c.Mesh.Devices {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, ",")
}

// SpecText is the case's PartitionSpec as Python writes it: P(None, 'x', ('a', 'b')).
func (c *JAXCase) SpecText() string {
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
			parts[i] = "<bad entry " + string(raw) + ">" // ParseSpec refuses it
		}
	}
	return "P(" + strings.Join(parts, ", ") + ")"
}

// String names the case in test messages.
func (c *JAXCase) String() string {
	return fmt.Sprintf("mesh %s devices %v, shape %v, spec %s", c.MeshText(), c.Mesh.Devices, c.Shape, c.SpecText())
}

// jaxRefusal is what JAX's IndivisibleError says: the array axis and how many times
// it is partitioned. The recording cuts messages at 200 characters (after the type's
// name), in one case right after that number; the dim's size comes from the shape.
var jaxRefusal = regexp.MustCompile(`implies that array axis (\d+) is partitioned (\d+)`)

// Refusal is why JAX refused a case that it did not place: the dim, its size and the
// number of pieces the spec cut it into. The test fails where the recording does not
// say.
func (c *JAXCase) Refusal(t testing.TB) (dim int, size int64, count int) {
	t.Helper()
	m := jaxRefusal.FindStringSubmatch(c.IndicesError)
	if m == nil || !strings.HasPrefix(c.DevicePut, "IndivisibleError:") {
		t.Fatalf("%s: the recording does not say why JAX refused it: %q / %q", c, c.IndicesError, c.DevicePut)
	}
	dim, _ = strconv.Atoi(m[1])
	count, _ = strconv.Atoi(m[2])
	if dim >= len(c.Shape) {
		t.Fatalf("%s: JAX refused array axis %d", c, dim)
	}
	return dim, c.Shape[dim], count
}

// RefusalText is the part of the error that refuses the case as JAX did:
// "dim D of size S is not divisible by K".
func (c *JAXCase) RefusalText(t testing.TB) string {
	t.Helper()
	dim, size, count := c.Refusal(t)
	return fmt.Sprintf("dim %d of size %d is not divisible by %d", dim, size, count)
}

// CheckRanges checks that got gives every device of the case the [start, stop) ranges
// JAX gave it, and no other device any.
func (c *JAXCase) CheckRanges(t testing.TB, got map[int][][2]int64) {
	t.Helper()
	if len(got) != len(c.Indices) {
		t.Errorf("%s: %d devices hold a shard, JAX's %d", c, len(got), len(c.Indices))
	}
	for id, want := range c.Indices {
		n, err := strconv.Atoi(id)
		if err != nil {
			t.Fatalf("%s: device id %q", c, id)
		}
		r, ok := got[n]
		if !ok {
			t.Errorf("%s: device %d holds nothing here; JAX gives it %v", c, n, want)
			continue
		}
		if !slices.Equal(r, want) {
			t.Errorf("%s: device %d holds %v here, %v in JAX", c, n, r, want)
		}
	}
}
