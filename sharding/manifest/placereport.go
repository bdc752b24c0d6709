package manifest

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// PlacementReport is where the pieces of one array go, as a manifest describes a
// converted tensor (see Tensor) but without files: what sharding.PlaceTensor answers and
// `tpulayout place --json` prints.
type PlacementReport struct {
	Name       string        `json:"name,omitempty"` // the tensor's, or ""
	DType      string        `json:"dtype"`
	Shape      []int64       `json:"shape"` // global
	Spec       string        `json:"spec"`
	Mesh       Mesh          `json:"mesh"`
	ShardShape []int64       `json:"shard_shape"`
	Shards     []PlacedShard `json:"shards"` // every distinct shard, in row-major order of Index
}

// PlacedShard is one distinct shard and the devices that hold it (its replicas), in
// the words of ManifestShard: its position along each dim, its index ranges
// [start, end) per dim, and the device ids, increasing.
type PlacedShard struct {
	Index   []int      `json:"index"`
	Ranges  [][2]int64 `json:"ranges"`
	Devices DeviceIDs  `json:"devices"`
}

// NewPlacementReport is the report of placement pl of an array of dtype dt called
// name ("" for none).
func NewPlacementReport(name string, dt layout.DType, pl *placement.Placement) *PlacementReport {
	r := &PlacementReport{Name: name, DType: dt.String(), Shape: pl.Dims, Spec: pl.Spec.String(),
		Mesh:       Mesh{Axes: pl.Mesh.Axes, Sizes: pl.Mesh.Sizes, Devices: pl.Mesh.Devices},
		ShardShape: pl.ShardDims, Shards: make([]PlacedShard, len(pl.Shards))}
	for i := range pl.Shards {
		s := &pl.Shards[i]
		r.Shards[i] = PlacedShard{Index: s.Index, Ranges: pl.Ranges(s), Devices: s.Devices}
	}
	return r
}

// WriteText prints the report as `tpulayout place` does: a line saying the array, its
// spec and mesh and how it is cut, then per distinct shard its index, its ranges
// [start,end) per dim and the devices holding it, in runs ("0-3,8-11").
func (r *PlacementReport) WriteText(w io.Writer) error {
	what := r.DType + "[" + strings.ReplaceAll(joinInts(r.Shape), "_", ",") + "]"
	if r.Name != "" {
		what = strconv.Quote(r.Name) + " " + what
	}
	each := "one device each"
	if len(r.Shards) > 0 {
		if n := len(r.Shards[0].Devices); n > 1 {
			each = fmt.Sprintf("each on %d devices", n)
		}
	}
	if _, err := fmt.Fprintf(w, "%s, spec %s, mesh %s (%s): %s of [%s], %s\n", what, r.Spec,
		r.Mesh.String(), plural(int64(len(r.Mesh.Devices)), "device"),
		plural(int64(len(r.Shards)), "shard"), strings.ReplaceAll(joinInts(r.ShardShape), "_", ","), each); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "index\tranges\tdevices\n")
	for _, s := range r.Shards {
		ranges := make([]string, len(s.Ranges))
		for d, rg := range s.Ranges {
			ranges[d] = fmt.Sprintf("[%d,%d)", rg[0], rg[1])
		}
		if len(ranges) == 0 { // a scalar
			ranges = []string{"-"}
		}
		fmt.Fprintf(tw, "[%s]\t%s\t%s\n", strings.ReplaceAll(joinInts(s.Index), "_", ","), strings.Join(ranges, "×"), s.Devices.RunText())
	}
	return tw.Flush()
}

// joinInts prints v's numbers separated by '_' (a shard file's name) or, replaced,
// another separator.
func joinInts[T int | int64](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, "_")
}

// plural prints n and the noun, adding "s" unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
