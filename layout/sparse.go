package layout

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSparse is wrapped by the errors of everything that needs a dense layout's index
// math (Compile, and so convert, show, explain…) when given a sparse layout.
var ErrSparse = errors.New("sparse layouts are not supported by convert")

// DimLevelType is how a sparse layout stores one dimension, as XLA's DimLevelType,
// printed as its letter in `D(…)`.
type DimLevelType byte

const (
	DimDense           DimLevelType = 'D' // every index of the dimension is stored
	DimCompressed      DimLevelType = 'C' // only the indices that hold elements, found through pointers
	DimSingleton       DimLevelType = 'S' // one index per stored parent entry (COO)
	DimLooseCompressed DimLevelType = 'H' // compressed, with a (begin, end) pointer pair per parent
)

// DimLevel is one entry of a layout's `D(…)` list: the level type, and the `+`
// (not unique) and `~` (not ordered) flags XLA prints after it.
type DimLevel struct {
	Type       DimLevelType
	NotUnique  bool // `+`: an index may be stored more than once
	NotOrdered bool // `~`: the stored indices are not sorted
}

// String prints the level as in `D(…)`: `C`, `C+`, `S~`, `H+~`.
func (d DimLevel) String() string {
	s := string(rune(d.Type))
	if d.NotUnique {
		s += "+"
	}
	if d.NotOrdered {
		s += "~"
	}
	return s
}

// Name is the level type's word: dense, compressed, singleton or loose compressed.
func (t DimLevelType) Name() string {
	switch t {
	case DimDense:
		return "dense"
	case DimCompressed:
		return "compressed"
	case DimSingleton:
		return "singleton"
	case DimLooseCompressed:
		return "loose compressed"
	}
	return fmt.Sprintf("DimLevelType(%d)", byte(t))
}

// IsSparse reports whether the layout stores some dimension sparsely: a `D(…)` entry
// other than D, as XLA's LayoutUtil::IsSparse. Only then may it carry #, * and P.
func (l Layout) IsSparse() bool {
	for _, d := range l.DimLevels {
		if d.Type != DimDense {
			return true
		}
	}
	return false
}

// SparseDescription is what `tpulayout info --json` and the Python package's info
// report about a sparse layout: its attributes and what they mean. A sparse array's
// footprint depends on how many elements it stores, which its shape does not say.
type SparseDescription struct {
	Shape         string   `json:"shape"`
	DType         string   `json:"dtype"`
	Dims          []int64  `json:"dims"`
	MinorToMajor  []int    `json:"minor_to_major"`
	PhysicalOrder []int    `json:"physical_order"`
	Sparse        bool     `json:"sparse"` // always true: tells the two descriptions apart
	DimLevelTypes []string `json:"dim_level_types"`
	IndexType     string   `json:"index_type,omitempty"`
	PointerType   string   `json:"pointer_type,omitempty"`
	PhysicalShape string   `json:"physical_shape,omitempty"`
	MemorySpace   int64    `json:"memory_space,omitempty"`
	// LogicalElements is the dense element count: an upper bound of what it stores.
	LogicalElements int64  `json:"logical_elements"`
	Meaning         string `json:"meaning"`
	Footprint       string `json:"footprint"`
}

// DescribeSparse describes an array shape with a sparse layout.
func DescribeSparse(s Shape) (SparseDescription, error) {
	l := s.Layout
	if s.Kind != Array || !l.IsSparse() {
		return SparseDescription{}, fmt.Errorf("layout: %s has no sparse layout", Quote(s.String()))
	}
	d := SparseDescription{
		Shape: s.String(), DType: s.DType.String(), Dims: append([]int64{}, s.Dims...),
		MinorToMajor: append([]int{}, l.MinorToMajor...), PhysicalOrder: []int{}, Sparse: true,
		DimLevelTypes: []string{}, MemorySpace: l.MemorySpace, LogicalElements: s.LogicalElements(),
	}
	for j := len(l.MinorToMajor) - 1; j >= 0; j-- {
		d.PhysicalOrder = append(d.PhysicalOrder, l.MinorToMajor[j])
	}
	var parts []string
	for i, lv := range l.DimLevels {
		d.DimLevelTypes = append(d.DimLevelTypes, lv.String())
		p := lv.Type.Name()
		if lv.NotUnique {
			p += ", indices may repeat"
		}
		if lv.NotOrdered {
			p += ", indices unordered"
		}
		// XLA's dim_level_types has one entry per array dimension, in dimension order.
		parts = append(parts, fmt.Sprintf("dim %d %s", i, p))
	}
	d.Meaning = "sparse array: " + strings.Join(parts, "; ")
	if l.IndexType != Invalid {
		d.IndexType = l.IndexType.String()
		d.Meaning += fmt.Sprintf("; indices stored as %s", l.IndexType)
	}
	if l.PointerType != Invalid {
		d.PointerType = l.PointerType.String()
		d.Meaning += fmt.Sprintf("; level pointers stored as %s", l.PointerType)
	}
	if l.Physical != nil {
		d.PhysicalShape = l.Physical.String()
		d.Meaning += fmt.Sprintf("; buffers laid out as the physical shape %s", l.Physical)
	}
	d.Footprint = fmt.Sprintf("depends on the number of stored elements (at most %d), which the shape does not say", d.LogicalElements)
	return d, nil
}
