package tpu

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
)

// TilingFlags are the compiler flags that turn on large second-minor tiling, 8·p rows
// instead of 8, for 16-, 8- and 4-bit types (Mosaic's use_x{16,8,4}_large_second_minor,
// set from XLA's configuration such as xla_tpu_enable_large_2nd_minor_layout_for_x16).
type TilingFlags struct {
	X16 bool `json:"x16"`
	X8  bool `json:"x8"`
	X4  bool `json:"x4"`
}

// defaultFlags is XLA's default per generation. Through v6e every large second-minor
// flag is off: the layouts XLA wrote in real TPU HLO give 8-bit arrays T(8,128)(4,1)
// in 15 files and T(32,128)(4,1) in 3 (a v6e dump has both) and 4-bit arrays both
// T(8,128)(8,1) and T(64,128)(8,1) in one module (testdata/tpu-defaults), although
// tpu_info.py's heuristic (spec §2.3, TI) says 8·p rows for them. From TPU7x on, TI
// says large second-minor tiling for every type; no dump of a TPU7x or later was found,
// so those flags are TI's word only. TPU8i/8t follow TPU7x [I].
var defaultFlags = [numGenerations]TilingFlags{
	TPU7x: {X16: true, X8: true, X4: true},
	TPU8i: {X16: true, X8: true, X4: true},
	TPU8t: {X16: true, X8: true, X4: true},
}

// DefaultFlags returns XLA's default tiling flags for generation g.
func DefaultFlags(g Generation) TilingFlags {
	if g == NoGeneration {
		g = DefaultGeneration
	}
	if g >= numGenerations {
		return TilingFlags{}
	}
	return defaultFlags[g]
}

// Option changes how [DefaultLayout] picks a tiling.
type Option func(*defaultsConfig)

type defaultsConfig struct {
	flags   TilingFlags
	scratch bool
}

// WithFlags replaces the generation's default [TilingFlags]; WithFlags(TilingFlags{})
// gives Mosaic's behaviour with every large second-minor flag off.
func WithFlags(f TilingFlags) Option { return func(c *defaultsConfig) { c.flags = f } }

// Scratch asks for the layout of a kernel scratch buffer instead of a kernel argument:
// 16-bit types get large second-minor tiling from v6 on even without the flag, and
// 32-bit arrays whose minor dim is ≤ 128 get T(1,128) (spec §2.3, IML).
func Scratch() Option { return func(c *defaultsConfig) { c.scratch = true } }

// elementBits is the bit width the vreg model uses for a dtype: the logical width for
// sub-byte types (stored with E(n)), else the storage width. pred counts as 8 bits.
func elementBits(dt layout.DType) (int, error) {
	if !dt.IsArray() {
		return 0, &ElementError{DType: dt}
	}
	b := dt.StorageBits()
	if dt.IsSubByte() {
		b = dt.Bits()
	}
	switch b {
	case 2, 4, 8, 16, 32:
		return b, nil
	}
	return 0, &ElementError{DType: dt, Bits: b}
}

// TileRows is Mosaic's getTilingFactor (spec §2.3): the first tile's row count for an
// array whose second-minor dim is rows, with b-bit elements, on a chip of the given
// Mosaic version and sublane count. With p = 32/b:
//
//	min = p (2p before v4); sub = max(S, p)
//	large = 16·S (2-bit), 8·S (4-bit, x4), 4·S (8-bit, x8), 2·S (16-bit, x16 or a v6+
//	        scratch buffer), else sub; if rows % large != 0 then large = sub
//	if large ≤ rows: large, else the smallest min·2^k ≥ min(rows, sub)
func TileRows(version, sublanes, bits int, rows int64, f TilingFlags, scratch bool) int64 {
	p := int64(32 / bits)
	S := int64(sublanes)
	minT := p
	if version < 4 {
		minT = 2 * p
	}
	sub := max(S, p)
	large := sub
	switch {
	case bits == 2:
		large = 16 * S
	case bits == 4 && f.X4:
		large = 8 * S
	case bits == 8 && f.X8:
		large = 4 * S
	case bits == 16 && (f.X16 || scratch && version >= 6):
		large = 2 * S
	}
	if rows%large != 0 {
		large = sub
	}
	if large <= rows {
		return large
	}
	t := minT
	for t < min(rows, sub) {
		t *= 2
	}
	return t
}

// DefaultLayout returns the device layout XLA and Mosaic give an array of type dt and
// shape dims on generation g (NoGeneration means [DefaultGeneration]): row-major
// minor_to_major, tiles from [TileRows] with the generation's [DefaultFlags] unless an
// option overrides them, and E(b) for sub-byte types. With p = 32/b:
//
//	rank ≥ 2: T(t0,L) for 32-bit, T(t0,L)(p,1) otherwise, t0 = TileRows(rows = dims[n-2])
//	          f32[*,*] → T(8,128); bf16 → T(8,128)(2,1), T(16,128)(2,1) on TPU7x+;
//	          s8 → T(8,128)(4,1) through v6e, T(32,128)(4,1) on TPU7x+ when rows % 32 == 0;
//	          s4 → T(8,128)(8,1)E(4) through v6e;
//	          small rows get compact tiles: f32[3,N] → T(4,128), bf16[1,N] → T(2,128)(2,1)
//	rank 1:   T(t0·L) for 32-bit, T(t0·L)(L)(p,1) otherwise, t0 = TileRows(ceil(N/L)):
//	          bf16[4096] → T(1024)(128)(2,1)
//	rank 0:   T(m·L) with m = TileRows' smallest tile (p, or 2p before v4), no packing
//	          tile: s32[] → {:T(128)}, bf16[] → {:T(256)}, s8[] and pred[] → {:T(512)};
//	          f32[] → {:T(256)} on v2/v3
//
// A scalar is never untiled on a TPU: XLA gives it one (m,128) tile of 32-bit words,
// 512 bytes from v4 on (s32[]{:T(128)} in 13 XLA test files). XLA's real choice depends
// on flags this table can only approximate (spec §6); the options make every input of
// the rule explicit, and [DefaultEvidence] says where the answer is a guess.
func DefaultLayout(g Generation, dt layout.DType, dims []int64, opts ...Option) (layout.Layout, error) {
	chip, err := ChipOf(g)
	if err != nil {
		return layout.Layout{}, err
	}
	cfg := defaultsConfig{flags: DefaultFlags(chip.Generation)}
	for _, o := range opts {
		o(&cfg)
	}
	b, err := elementBits(dt)
	if err != nil {
		return layout.Layout{}, err
	}
	for i, d := range dims {
		if d < 0 {
			return layout.Layout{}, fmt.Errorf("tpu: dim %d is %d", i, d)
		}
	}
	n := len(dims)
	l := layout.Layout{MinorToMajor: layout.RowMajor(n)}
	if dt.IsSubByte() {
		l.ElementBits = int64(b)
	}
	t := chip.Target
	L := int64(t.Lanes)
	p := int64(32 / b)
	if n == 0 {
		// The smallest tile TileRows hands out (rows = 1), without the (p,1) packing
		// tile: XLA writes bf16[]{:T(256)}, never {:T(256)(2,1)}.
		m := TileRows(chip.Version, t.Sublanes, b, 1, cfg.flags, cfg.scratch)
		l.Tiles = []layout.Tile{{m * L}}
		return l, nil
	}
	if n == 1 {
		t0 := TileRows(chip.Version, t.Sublanes, b, layout.CeilDiv(dims[0], L), cfg.flags, cfg.scratch)
		l.Tiles = []layout.Tile{{t0 * L}}
		if b < 32 {
			l.Tiles = append(l.Tiles, layout.Tile{L}, layout.Tile{p, 1})
		}
		return l, nil
	}
	var t0 int64
	if cfg.scratch && b == 32 && dims[n-1] <= L {
		t0 = 1
	} else {
		t0 = TileRows(chip.Version, t.Sublanes, b, dims[n-2], cfg.flags, cfg.scratch)
	}
	l.Tiles = []layout.Tile{{t0, L}}
	if b < 32 {
		l.Tiles = append(l.Tiles, layout.Tile{p, 1})
	}
	return l, nil
}

// DefaultShape is [DefaultLayout] applied to a shape: the same dtype and dims with the
// default device layout.
func DefaultShape(g Generation, dt layout.DType, dims []int64, opts ...Option) (layout.Shape, error) {
	l, err := DefaultLayout(g, dt, dims, opts...)
	if err != nil {
		return layout.Shape{}, err
	}
	return layout.NewShape(dt, dims...).WithLayout(l), nil
}
