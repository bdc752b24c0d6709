package layout

// Description is what `tpulayout info --json` and the Python package's info report
// about a shape's layout, under their JSON names.
type Description struct {
	Shape             string             `json:"shape"`
	DType             string             `json:"dtype"`
	Dims              []int64            `json:"dims"`
	MinorToMajor      []int              `json:"minor_to_major"`
	PhysicalOrder     []int              `json:"physical_order"`         // logical dims, major to minor
	Tiles             [][]any            `json:"tiles"`                  // numbers, "*" for a combined dim
	TailPadding       int64              `json:"tail_padding,omitempty"` // L(n), when n > 1
	Levels            []LevelDescription `json:"levels"`
	ElementBits       int                `json:"element_bits"`
	LogicalElements   int64              `json:"logical_elements"`
	LogicalBytes      int64              `json:"logical_bytes"`
	FootprintElements int64              `json:"footprint_elements"`
	FootprintBytes    int64              `json:"footprint_bytes"`
	PaddingElements   int64              `json:"padding_elements"`
	PaddingFraction   float64            `json:"padding_fraction"`
	// XLAArraySizeBytes is XLA's ShapeUtil::ArraySize when it differs from
	// FootprintBytes (a later tile that does not divide the tile above it pads beyond
	// what the first tile gives); 0 when they agree or XLA's is not defined here.
	XLAArraySizeBytes int64 `json:"xla_array_size_bytes,omitempty"`
}

// LevelDescription is one level of the expanded shape (see [Indexer.Levels]).
type LevelDescription struct {
	Name string  `json:"name"`
	Dims []int64 `json:"dims"`
}

// Describe returns the description of ix's shape. Its slices are never nil, so that
// JSON prints [] rather than null.
func Describe(ix *Indexer) Description {
	sh := ix.Shape()
	l := sh.Layout
	m2m := append([]int{}, l.MinorToMajor...)
	order := make([]int, len(m2m))
	for j := range order {
		order[j] = m2m[len(m2m)-1-j]
	}
	d := Description{
		Shape:             sh.String(),
		DType:             sh.DType.String(),
		Dims:              append([]int64{}, ix.Dims()...),
		MinorToMajor:      m2m,
		PhysicalOrder:     order,
		Tiles:             [][]any{},
		Levels:            []LevelDescription{},
		ElementBits:       ix.ElementBits(),
		LogicalElements:   ix.LogicalElements(),
		LogicalBytes:      ix.LogicalBytes(),
		FootprintElements: ix.FootprintElements(),
		FootprintBytes:    ix.FootprintBytes(),
		PaddingElements:   ix.FootprintElements() - ix.LogicalElements(),
		PaddingFraction:   ix.PaddingFraction(),
	}
	if l.TailPadding > 1 {
		d.TailPadding = l.TailPadding
	}
	if b, ok := XLAArraySize(sh); ok && b != d.FootprintBytes {
		d.XLAArraySizeBytes = b
	}
	for _, t := range l.Tiles {
		d.Tiles = append(d.Tiles, t.Values())
	}
	for _, lv := range ix.Levels() {
		d.Levels = append(d.Levels, LevelDescription{lv.Name, append([]int64{}, lv.Dims...)})
	}
	return d
}

// Values is t's dims as JSON values: numbers, with the string "*" for a combined dim.
func (t Tile) Values() []any {
	out := make([]any, len(t))
	for i, d := range t {
		if d == Combined {
			out[i] = "*"
		} else {
			out[i] = d
		}
	}
	return out
}
