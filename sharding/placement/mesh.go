package placement

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Mesh is a logical grid of devices, as jax.sharding.Mesh: named axes with sizes, and
// the device ids laid over the grid in row-major order of the axes (the last axis
// varies fastest).
type Mesh struct {
	Axes    []string
	Sizes   []int
	Devices []int // len = product of Sizes; Devices[p] sits at row-major position p
}

// MaxDevices is the most devices a mesh may have.
const MaxDevices = 1 << 20

// meshErr is a *MeshError for the mesh of axes and sizes.
func meshErr(axes []string, sizes []int, format string, args ...any) error {
	return &MeshError{Mesh: meshText(axes, sizes), Msg: fmt.Sprintf(format, args...)}
}

// NewMesh checks and builds a mesh. devices nil means ids 0 … n-1 in row-major order;
// otherwise it must hold exactly one distinct non-negative id per position.
func NewMesh(axes []string, sizes []int, devices []int) (*Mesh, error) {
	if len(axes) == 0 {
		return nil, &MeshError{Msg: "a mesh needs at least one axis"}
	}
	if len(axes) != len(sizes) {
		return nil, &MeshError{Msg: fmt.Sprintf("%d mesh axis names but %d sizes", len(axes), len(sizes))}
	}
	n := 1
	for i, a := range axes {
		if !validName(a) {
			return nil, meshErr(axes, sizes, "bad mesh axis name %q: want letters, digits and '_', not starting with a digit", a)
		}
		if slices.Index(axes, a) != i {
			return nil, meshErr(axes, sizes, "mesh axis %q appears twice", a)
		}
		if sizes[i] < 1 {
			return nil, meshErr(axes, sizes, "mesh axis %q has size %d; sizes must be at least 1", a, sizes[i])
		}
		if n > MaxDevices/sizes[i] {
			return nil, meshErr(axes, sizes, "mesh %s has more than %d devices", meshText(axes, sizes), MaxDevices)
		}
		n *= sizes[i]
	}
	if devices == nil {
		devices = make([]int, n)
		for i := range devices {
			devices[i] = i
		}
	} else {
		if len(devices) < n {
			return nil, meshErr(axes, sizes, "mesh %s has %d devices, but only %d device ids are given", meshText(axes, sizes), n, len(devices))
		}
		if len(devices) > n {
			return nil, meshErr(axes, sizes, "mesh %s has %d devices, but %d device ids are given", meshText(axes, sizes), n, len(devices))
		}
		seen := map[int]bool{}
		for _, d := range devices {
			if d < 0 {
				return nil, meshErr(axes, sizes, "device id %d is negative", d)
			}
			if seen[d] {
				return nil, meshErr(axes, sizes, "device id %d is given twice", d)
			}
			seen[d] = true
		}
		devices = slices.Clone(devices)
	}
	return &Mesh{Axes: slices.Clone(axes), Sizes: slices.Clone(sizes), Devices: devices}, nil
}

// ParseMesh reads "data=2,model=4" (axis names and sizes, majormost first); devices is
// as for NewMesh.
func ParseMesh(text string, devices []int) (*Mesh, error) {
	var axes []string
	var sizes []int
	for part := range strings.SplitSeq(text, ",") {
		name, size, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return nil, &SyntaxError{What: "mesh", Input: text, Pos: -1, Msg: fmt.Sprintf("%q is not AXIS=SIZE", strings.TrimSpace(part))}
		}
		n, err := strconv.Atoi(strings.TrimSpace(size))
		if err != nil {
			return nil, &SyntaxError{What: "mesh", Input: text, Pos: -1, Msg: fmt.Sprintf("size %q of axis %q is not a number", size, name), Err: err}
		}
		axes = append(axes, strings.TrimSpace(name))
		sizes = append(sizes, n)
	}
	return NewMesh(axes, sizes, devices)
}

// ParseDevices reads a list of device ids such as "0,1,2,3" (brackets allowed).
func ParseDevices(text string) ([]int, error) {
	s := strings.Trim(strings.TrimSpace(text), "[]")
	var ids []int
	for part := range strings.SplitSeq(s, ",") {
		p := strings.TrimSpace(part)
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, &SyntaxError{What: "device list", Input: text, Pos: -1, Msg: fmt.Sprintf("%q is not a device id", p), Err: err}
		}
		ids = append(ids, n)
	}
	return ids, nil
}

// Size is the number of devices.
func (m *Mesh) Size() int { return len(m.Devices) }

// String prints the mesh as ParseMesh reads it.
func (m *Mesh) String() string { return meshText(m.Axes, m.Sizes) }

func meshText(axes []string, sizes []int) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a + "=" + strconv.Itoa(sizes[i])
	}
	return strings.Join(parts, ",")
}

// Coords returns the mesh coordinates of row-major position p.
func (m *Mesh) Coords(p int) []int {
	c := make([]int, len(m.Sizes))
	for i := len(m.Sizes) - 1; i >= 0; i-- {
		c[i] = p % m.Sizes[i]
		p /= m.Sizes[i]
	}
	return c
}

// axis returns the index of the named axis, or -1.
func (m *Mesh) axis(name string) int { return slices.Index(m.Axes, name) }

// ProcessDevices returns the device ids that process i of n holds, in increasing
// order. As in JAX multi-host runs, where process i drives the devices of host i,
// the ids are split in sorted order into n equal consecutive groups: with ids 0 … 7
// and n = 4, process 1 holds devices 2 and 3.
func (m *Mesh) ProcessDevices(i, n int) ([]int, error) {
	if n < 1 || i < 0 || i >= n {
		return nil, &MeshError{Mesh: m.String(), Msg: fmt.Sprintf("bad process %d/%d: want I/N with 0 ≤ I < N", i, n)}
	}
	if m.Size()%n != 0 {
		return nil, &MeshError{Mesh: m.String(), Msg: fmt.Sprintf("%d processes cannot split the %d devices of mesh %s evenly", n, m.Size(), m)}
	}
	ids := slices.Sorted(slices.Values(m.Devices))
	k := m.Size() / n
	return ids[i*k : (i+1)*k], nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
