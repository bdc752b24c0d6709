package tpu

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// Footprint is the memory and vreg cost of an array in a device layout on one chip.
type Footprint struct {
	Shape      string `json:"shape"`
	Generation string `json:"generation"`
	// LogicalBytes is the unpadded size (XLA's ByteSizeOf); Bytes the tiled size,
	// padding included; PaddingBytes their difference and Waste its share of Bytes.
	LogicalBytes int64   `json:"logical_bytes"`
	Bytes        int64   `json:"bytes"`
	PaddingBytes int64   `json:"padding_bytes"`
	Waste        float64 `json:"waste"`
	Tiles        int64   `json:"tiles"`
	TileBytes    int64   `json:"tile_bytes"`
	// Vregs is the vreg count under the load layout, NativeVregs under the dtype's
	// native tiling.
	Vregs       int64 `json:"vregs"`
	NativeVregs int64 `json:"native_vregs"`
	// FitsHBM compares Bytes with the chip's HBM, FitsVMEM with one TensorCore's VMEM.
	FitsHBM  bool `json:"fits_hbm"`
	FitsVMEM bool `json:"fits_vmem"`
}

func (f Footprint) String() string {
	return fmt.Sprintf("%s on %s: %d B (%d B data, %s padding), %d tiles of %d B, %d vregs (%d native); fits HBM %v, VMEM %v",
		f.Shape, f.Generation, f.Bytes, f.LogicalBytes, Percent(f.Waste), f.Tiles, f.TileBytes, f.Vregs, f.NativeVregs, f.FitsHBM, f.FitsVMEM)
}

// FootprintOf computes the footprint of shape s on generation g (NoGeneration means
// [DefaultGeneration]). A shape without tiles gets the generation's [DefaultLayout]
// first. The layout must be loadable ([NewMemTiling]); sizes follow spec §3.3:
// bytes = prod(lead) · ceil(R/t0)·t0 · ceil(C/128)·128 · b/8.
func FootprintOf(g Generation, s layout.Shape) (Footprint, error) {
	chip, err := ChipOf(g)
	if err != nil {
		return Footprint{}, err
	}
	if s.Kind == layout.Array && len(s.Layout.Tiles) == 0 && s.DType.IsArray() {
		l, err := DefaultLayout(chip.Generation, s.DType, s.Dims)
		if err != nil {
			return Footprint{}, err
		}
		s = s.WithLayout(l)
	}
	m, err := NewMemTiling(chip.Target, s)
	if err != nil {
		return Footprint{}, err
	}
	f := Footprint{Shape: s.String(), Generation: chip.Generation.String(),
		LogicalBytes: layout.CeilDiv(layout.Elements(s.Dims)*int64(m.bits), 8), Bytes: m.Bytes(),
		Tiles: m.Tiles(), TileBytes: m.TileBytes()}
	f.PaddingBytes = f.Bytes - f.LogicalBytes
	if f.Bytes > 0 {
		f.Waste = float64(f.PaddingBytes) / float64(f.Bytes)
	}
	if f.Vregs, err = m.LoadLayout().VregCount(s.Dims); err != nil {
		return Footprint{}, err
	}
	native := m.LoadLayout()
	if !m.oneD {
		native = NativeLayout(chip.Target, m.bits)
	}
	if f.NativeVregs, err = native.VregCount(s.Dims); err != nil {
		return Footprint{}, err
	}
	f.FitsHBM = f.Bytes <= chip.HBMBytes
	f.FitsVMEM = f.Bytes <= chip.VMEMBytes
	return f, nil
}
