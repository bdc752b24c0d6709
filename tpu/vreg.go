package tpu

import (
	"errors"
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// ErrInvalidLayout is wrapped by every error about a [VregLayout] that Mosaic's
// VectorLayout would reject.
var ErrInvalidLayout = errors.New("tpu: invalid vreg layout")

// ImplicitDim says which size-1 dimensions a [VregLayout] inserts so that a value of
// low rank can be tiled (Mosaic's implicit_dim, spec §2).
type ImplicitDim int8

const (
	// ImplicitNone: the value has rank ≥ 2; its last two dims are tiled.
	ImplicitNone ImplicitDim = iota
	// ImplicitMinor (-1): a size-1 minor dim is appended, (…, N) → (…, N, 1).
	ImplicitMinor
	// ImplicitSecondMinor (-2): a size-1 second-minor dim is inserted, (…, N) → (…, 1, N);
	// this is how a 1-D value is tiled over lanes.
	ImplicitSecondMinor
	// ImplicitBoth (-2,-1): (…) → (…, 1, 1).
	ImplicitBoth
)

func (d ImplicitDim) String() string {
	switch d {
	case ImplicitNone:
		return "none"
	case ImplicitMinor:
		return "-1"
	case ImplicitSecondMinor:
		return "-2"
	case ImplicitBoth:
		return "-2,-1"
	}
	return fmt.Sprintf("ImplicitDim(%d)", int8(d))
}

// VregLayout is Mosaic's VectorLayout (spec §2): how a value of Bits-bit elements is
// spread over vregs of geometry Target. Tiling is (t0, t1); Offsets is where the first
// element sits in the vreg slice, in elements (rows, not sublanes, for packed types).
// Use [VregLayout.Validate] before trusting the derived quantities.
type VregLayout struct {
	Bits     int         `json:"bits"`
	Tiling   [2]int64    `json:"tiling"`
	Offsets  [2]int64    `json:"offsets"`
	Implicit ImplicitDim `json:"implicit_dim"`
	Target   Target      `json:"target"`
}

// NativeLayout is the layout ops use by default: tiling (Sublanes·p, Lanes) where
// p = 32/bits (spec §2 "Native tiling"): f32 (8,128), bf16 (16,128), s8 (32,128),
// s4 (64,128) on an 8 × 128 target.
func NativeLayout(t Target, bits int) VregLayout {
	t = t.orDefault()
	p := 1
	if bits > 0 && bits < 32 {
		p = 32 / bits
	}
	return VregLayout{Bits: bits, Tiling: [2]int64{int64(t.Sublanes * p), int64(t.Lanes)}, Target: t}
}

// Packing is p = 32/Bits, the number of elements per 32-bit word.
func (v VregLayout) Packing() int { return 32 / v.Bits }

// TilesPerVreg is p·S·L / (t0·t1).
func (v VregLayout) TilesPerVreg() int64 {
	return int64(v.Packing()*v.Target.Words()) / (v.Tiling[0] * v.Tiling[1])
}

// SublanesPerTile is S / TilesPerVreg.
func (v VregLayout) SublanesPerTile() int64 { return int64(v.Target.Sublanes) / v.TilesPerVreg() }

// VregSlice is the part of the (second-minor, minor) plane one vreg holds:
// (t0, TilesPerVreg·t1).
func (v VregLayout) VregSlice() [2]int64 {
	return [2]int64{v.Tiling[0], v.TilesPerVreg() * v.Tiling[1]}
}

func (v VregLayout) singleRow() bool { return v.Tiling[0] == 1 }

// String prints the layout as "16-bit (8,128)", adding offsets and the implicit dim
// when they are not the defaults.
func (v VregLayout) String() string {
	s := fmt.Sprintf("%d-bit (%d,%d)", v.Bits, v.Tiling[0], v.Tiling[1])
	if v.Offsets != [2]int64{} {
		s += fmt.Sprintf(" offsets (%d,%d)", v.Offsets[0], v.Offsets[1])
	}
	if v.Implicit != ImplicitNone {
		s += " implicit " + v.Implicit.String()
	}
	if t := v.Target.orDefault(); t != DefaultTarget {
		s += fmt.Sprintf(" on %d×%d", t.Sublanes, t.Lanes)
	}
	return s
}

// Validate applies Mosaic's isValid and tileDataBounds rules (spec §2 "Validity"):
// Bits is a power of two ≤ 32, (t0·t1) % (p·L) == 0, S % ((t0·t1)/(p·L)) == 0, the
// offsets lie in the vreg slice, and the tiling is rectangular (t1 == L) or single-row
// (t0 == 1, t1 % L == 0). So bf16 (1,128) is invalid and bf16 (1,256) is valid.
func (v VregLayout) Validate() error {
	t := v.Target
	if !t.valid() {
		return fmt.Errorf("%w: target %d×%d", ErrInvalidLayout, t.Sublanes, t.Lanes)
	}
	switch v.Bits {
	case 1, 2, 4, 8, 16, 32:
	default:
		return fmt.Errorf("%w: bitwidth %d is not a power of two ≤ 32", ErrInvalidLayout, v.Bits)
	}
	t0, t1 := v.Tiling[0], v.Tiling[1]
	if t0 <= 0 || t1 <= 0 {
		return fmt.Errorf("%w: %s: tiling entries must be positive", ErrInvalidLayout, v)
	}
	pl := int64(v.Packing() * t.Lanes)
	if (t0*t1)%pl != 0 {
		return fmt.Errorf("%w: %s: t0·t1 = %d is not a multiple of p·lanes = %d", ErrInvalidLayout, v, t0*t1, pl)
	}
	if int64(t.Sublanes)%((t0*t1)/pl) != 0 {
		return fmt.Errorf("%w: %s: a tile needs %d sublanes, which does not divide %d", ErrInvalidLayout, v, (t0*t1)/pl, t.Sublanes)
	}
	if !(t1 == int64(t.Lanes) || t0 == 1 && t1%int64(t.Lanes) == 0) {
		return fmt.Errorf("%w: %s: tiling must be (t0,%d) or (1,k·%d)", ErrInvalidLayout, v, t.Lanes, t.Lanes)
	}
	vs := v.VregSlice()
	for i, o := range v.Offsets {
		if o < 0 || o >= vs[i] {
			return fmt.Errorf("%w: %s: offset %d outside the vreg slice (%d,%d)", ErrInvalidLayout, v, o, vs[0], vs[1])
		}
	}
	if v.Implicit < ImplicitNone || v.Implicit > ImplicitBoth {
		return fmt.Errorf("%w: implicit dim %d", ErrInvalidLayout, v.Implicit)
	}
	return nil
}

// expand returns dims with the implicit size-1 dims inserted (rank ≥ 2), or an error.
func (v VregLayout) expand(dims []int64) ([]int64, error) {
	out := append([]int64(nil), dims...)
	switch v.Implicit {
	case ImplicitMinor:
		out = append(out, 1)
	case ImplicitSecondMinor:
		if len(out) == 0 {
			return nil, fmt.Errorf("tpu: implicit dim -2 needs rank ≥ 1")
		}
		n := len(out)
		out = append(out[:n-1:n-1], 1, dims[n-1])
	case ImplicitBoth:
		out = append(out, 1, 1)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("tpu: %s needs a value of rank ≥ 2 after implicit dims, have %v", v, dims)
	}
	return out, nil
}

// VregArrayShape is the shape of the array of vregs holding a value of shape dims:
// leading dims × ceil((o0+R)/vs0) × ceil((o1+C)/vs1) (Mosaic's tileArrayShape).
func (v VregLayout) VregArrayShape(dims []int64) ([]int64, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	e, err := v.expand(dims)
	if err != nil {
		return nil, err
	}
	n := len(e)
	vs := v.VregSlice()
	out := append([]int64(nil), e[:n-2]...)
	return append(out, layout.CeilDiv(v.Offsets[0]+e[n-2], vs[0]), layout.CeilDiv(v.Offsets[1]+e[n-1], vs[1])), nil
}

// VregCount is the number of vregs holding a value of shape dims.
func (v VregLayout) VregCount(dims []int64) (int64, error) {
	s, err := v.VregArrayShape(dims)
	if err != nil {
		return 0, err
	}
	return layout.Elements(s), nil
}
