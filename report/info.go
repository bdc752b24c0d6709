package report

import (
	"fmt"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/tpu"
)

// Info is `tpulayout info --json`: the layout's description, with the padding and
// host-copy insight on a TPU generation when [Info.AddInsight] was called, and the
// tiling figures of [Info.AddTiling] (which the Python package's info returns).
type Info struct {
	layout.Description
	*Insight
	*Tiling

	ix *layout.Indexer
}

// NewInfo describes the compiled layout ix.
func NewInfo(ix *layout.Indexer) *Info {
	return &Info{Description: layout.Describe(ix), ix: ix}
}

// Indexer returns the layout the report describes.
func (in *Info) Indexer() *layout.Indexer { return in.ix }

// Insight is what info adds about padding and host copies.
type Insight struct {
	// Expansion is footprint bytes over logical bytes.
	Expansion  float64           `json:"expansion"`
	Generation string            `json:"generation"`
	Default    *tpu.Alternative  `json:"default_layout,omitempty"`
	Cheapest   []tpu.Alternative `json:"cheapest,omitempty"`
	NoTPU      string            `json:"no_tpu_layout,omitempty"` // why there are no alternatives
	RowBlocks  RowBlocks         `json:"host_row_blocks"`
}

// RowBlocks says whether, and in what blocks, the array copies from a row-major host
// array with contiguous copies.
type RowBlocks struct {
	layout.RowBlocks
	Bytes float64 `json:"bytes"` // of one run
	Note  string  `json:"note"`
}

// MaxCheapest is how many physical orders the insight lists, cheapest first.
const MaxCheapest = 3

// AddInsight adds the insight on generation gen and returns in.
func (in *Info) AddInsight(gen tpu.Generation) *Info {
	in.Insight = newInsight(in.ix, gen)
	return in
}

func newInsight(ix *layout.Indexer, gen tpu.Generation) *Insight {
	s := ix.Shape()
	in := &Insight{Generation: gen.String()}
	if lb := ix.LogicalBytes(); lb > 0 {
		in.Expansion = float64(ix.FootprintBytes()) / float64(lb)
	}
	alts, err := tpu.Alternatives(gen, s.DType, s.Dims)
	if err != nil {
		in.NoTPU = strings.TrimPrefix(err.Error(), "tpu: ")
	} else {
		seen := map[string]bool{} // one per physical order: the best tiling for it
		for _, a := range alts {
			a.Order = nonNil(a.Order) // a scalar's: [], not null
			if a.Default {
				in.Default = &a
			}
			if key := joinInts(a.Order); !seen[key] && len(in.Cheapest) < MaxCheapest {
				seen[key] = true
				in.Cheapest = append(in.Cheapest, a)
			}
		}
	}
	rb, err := ix.RowBlocks()
	in.RowBlocks.RowBlocks = rb
	bits := float64(ix.ElementBits())
	switch {
	case err != nil:
		in.RowBlocks.Note = ErrorText(err)
	case ix.Rank() == 0:
		in.RowBlocks.Note = "a scalar: copy its one element"
	case rb.Identical:
		in.RowBlocks.Note = "yes: the same bytes as the row-major array, one copy"
	case rb.Rows > 0:
		in.RowBlocks.Note = fmt.Sprintf("yes, in blocks of %s", Plural(rb.Rows, "row"))
	case rb.Run > 1:
		in.RowBlocks.Note = "only in pieces of rows"
	default:
		in.RowBlocks.Note = "no: row-major neighbours are never neighbours here (packed rows or a transposed order); relayout"
	}
	if err == nil {
		in.RowBlocks.Bytes = float64(rb.Run) * bits / 8
	}
	return in
}

// Tiling is the count of first-level tiles and the TPU view of the layout.
type Tiling struct {
	TileCount int64 `json:"tile_count"`
	// TPU is the footprint on the generation's vregs; nil when the layout has no
	// tiles or does not load into vregs.
	TPU *tpu.Footprint `json:"tpu"`
}

// AddTiling adds the tiling figures on generation gen (tpu.NoGeneration for the
// default one) and returns in.
func (in *Info) AddTiling(gen tpu.Generation) *Info {
	sh := in.ix.Shape()
	t := &Tiling{}
	if len(sh.Layout.Tiles) > 0 {
		t.TileCount = tileCount(in.Levels, sh.Layout.Tiles[0])
		if fp, err := tpu.FootprintOf(gen, sh); err == nil {
			t.TPU = &fp
		}
	}
	in.Tiling = t
	return in
}

// tileCount is the number of first-level tiles: the first tiling level's dims are
// the tile grid followed by the tile's own dims. A first tile with combined dims `*`
// is preceded by the "combined" level, and only its other entries are dims of the
// tiling level.
func tileCount(levels []layout.LevelDescription, first layout.Tile) int64 {
	own := 0
	for _, t := range first {
		if t != layout.Combined {
			own++
		}
	}
	for _, lv := range levels {
		if strings.HasPrefix(lv.Name, "T(") && len(lv.Dims) >= own {
			return layout.Elements(lv.Dims[:len(lv.Dims)-own])
		}
	}
	return 0
}

// InfoTarget applies `tpulayout info`'s --to and --gen, as text ("" for none): --to
// tpu:GEN replaces ix's layout with the generation's default for its dtype and dims
// (and sets the generation, which is otherwise gen's, by default v5e). Settings that
// cannot be are *SettingError.
func InfoTarget(ix *layout.Indexer, to, genText string) (*layout.Indexer, tpu.Generation, error) {
	gen := tpu.DefaultGeneration
	if genText != "" {
		g, err := tpu.ParseGeneration(genText)
		if err != nil {
			return nil, 0, settingf("Gen", "bad {Gen} %q: %s", genText, err)
		}
		gen = g
	}
	if to == "" {
		return ix, gen, nil
	}
	g, ok := strings.CutPrefix(to, "tpu:")
	if !ok {
		return nil, 0, settingf("To", "info {To} takes tpu:GEN (such as tpu:v5e), not %q", to)
	}
	tg, err := tpu.ParseGeneration(g)
	if err != nil {
		return nil, 0, settingf("To", "bad {To} %q: %s", to, err)
	}
	if genText != "" && tg != gen {
		return nil, 0, settingf("To", "{To} %s and {Gen} %s disagree", to, genText)
	}
	s := ix.Shape()
	ds, err := tpu.DefaultShape(tg, s.DType, s.Dims)
	if err != nil {
		return nil, 0, fmt.Errorf("no default %s layout for %s: %s", tg, layout.NewShape(s.DType, s.Dims...), ErrorText(err))
	}
	nix, err := layout.Compile(ds)
	if err != nil {
		return nil, 0, fmt.Errorf("default %s layout %s: %s", tg, ds, ErrorText(err))
	}
	return nix, tg, nil
}
