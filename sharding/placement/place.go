package placement

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Placement is where the pieces of one array go on a mesh under a spec, as
// jax.sharding.NamedSharding(mesh, spec).devices_indices_map(dims) gives them: the
// array is cut into Counts[d] equal pieces along each dim d, and every device holds
// one piece (a shard), devices differing only in unnamed mesh axes the same one.
type Placement struct {
	Mesh      *Mesh
	Spec      Spec
	Dims      []int64 // the global array's
	ShardDims []int64 // Dims[d] / Counts[d]
	Counts    []int   // shards along each dim: the product of the sizes of its mesh axes
	Shards    []Shard // every distinct shard, in row-major order of their Index
	devShard  map[int]int
	devCoords map[int][]int
}

// Shard is one distinct piece of the array and the devices that hold it.
type Shard struct {
	Index   []int   // the piece's position along each dim, 0 … Counts[d]-1
	Start   []int64 // its first element: Index[d] * ShardDims[d]
	Devices []int   // ids of the devices holding it, increasing
}

// Place works out the placement of an array of dims on m under spec. A dim that its
// mesh axes do not divide evenly is an error naming the dim and the axes (JAX refuses
// such a NamedSharding for device_put as well).
func Place(m *Mesh, spec Spec, dims []int64) (*Placement, error) {
	if err := spec.Check(m, len(dims)); err != nil {
		return nil, err
	}
	p := &Placement{Mesh: m, Spec: spec, Dims: slices.Clone(dims),
		ShardDims: make([]int64, len(dims)), Counts: make([]int, len(dims)),
		devShard: map[int]int{}, devCoords: map[int][]int{}}
	for d := range dims {
		n := 1
		var names []string
		if d < len(spec) {
			for _, a := range spec[d] {
				size := m.Sizes[m.axis(a)]
				n *= size
				names = append(names, fmt.Sprintf("%s(%d)", a, size))
			}
		}
		if dims[d]%int64(n) != 0 {
			return nil, &IndivisibleError{Spec: spec, Dim: d, Size: dims[d], Count: n, Axes: names}
		}
		p.Counts[d], p.ShardDims[d] = n, dims[d]/int64(n)
	}
	// Each device's piece: along dim d, the mixed-radix number of its coordinates on
	// the dim's mesh axes, the first axis majormost.
	byKey := map[string]int{}
	idx := make([]int, len(dims))
	for pos, id := range m.Devices {
		c := m.Coords(pos)
		for d := range dims {
			idx[d] = 0
			if d < len(spec) {
				for _, a := range spec[d] {
					ax := m.axis(a)
					idx[d] = idx[d]*m.Sizes[ax] + c[ax]
				}
			}
		}
		key := joinInts(idx, "_")
		k, ok := byKey[key]
		if !ok {
			k = len(p.Shards)
			byKey[key] = k
			start := make([]int64, len(dims))
			for d := range dims {
				start[d] = int64(idx[d]) * p.ShardDims[d]
			}
			p.Shards = append(p.Shards, Shard{Index: slices.Clone(idx), Start: start})
		}
		p.Shards[k].Devices = append(p.Shards[k].Devices, id)
		p.devShard[id] = k
		p.devCoords[id] = c
	}
	// Order the shards by index and their devices by id.
	order := make([]int, len(p.Shards))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return slices.Compare(p.Shards[a].Index, p.Shards[b].Index) })
	sorted := make([]Shard, len(p.Shards))
	newPos := make([]int, len(p.Shards))
	for i, k := range order {
		sorted[i] = p.Shards[k]
		slices.Sort(sorted[i].Devices)
		newPos[k] = i
	}
	p.Shards = sorted
	for id, k := range p.devShard {
		p.devShard[id] = newPos[k]
	}
	return p, nil
}

// ShardOf returns the shard that device id holds, and false for an id not in the mesh.
func (p *Placement) ShardOf(id int) (*Shard, bool) {
	k, ok := p.devShard[id]
	if !ok {
		return nil, false
	}
	return &p.Shards[k], true
}

// Coords returns the mesh coordinates of device id (nil for an id not in the mesh).
func (p *Placement) Coords(id int) []int { return slices.Clone(p.devCoords[id]) }

// Ranges returns shard s's index ranges, [start, end) per dim.
func (p *Placement) Ranges(s *Shard) [][2]int64 {
	r := make([][2]int64, len(p.Dims))
	for d := range r {
		r[d] = [2]int64{s.Start[d], s.Start[d] + p.ShardDims[d]}
	}
	return r
}

// joinInts prints v's numbers separated by sep.
func joinInts[T int | int64](v []T, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, sep)
}
