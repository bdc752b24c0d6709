package sharding

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

// PlaceOptions are a placement query as `tpulayout place` takes it: the sharding
// options of a conversion (the ConvertOptions fields of the same names) and the name of
// the tensor, which Rules match.
type PlaceOptions struct {
	Mesh      string // the device mesh, axis names and sizes such as "data=2,model=4"
	Devices   []int  // the device ids in row-major order of the mesh; nil: 0, 1, …
	Spec      string // the tensor's PartitionSpec, such as `P("data", "model")`; or
	Rules     string // a rules file (see ReadRules): the first rule matching Tensor gives the spec; or
	RulesJSON []byte // a rules file's text (see ParseRules), given in place of the file
	Tensor    string // the tensor's name: needed with Rules, optional with Spec
}

// PlacementReport is where the pieces of one array go, as a manifest describes a
// converted tensor (see ManifestTensor) but without files: what PlaceTensor answers and
// `tpulayout place --json` prints.
type PlacementReport struct {
	Name       string        `json:"name,omitempty"` // PlaceOptions.Tensor
	DType      string        `json:"dtype"`
	Shape      []int64       `json:"shape"` // global
	Spec       string        `json:"spec"`
	Mesh       ManifestMesh  `json:"mesh"`
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

// PlaceTensor works out where an array of shape sh goes on the mesh under the spec that
// o gives it, as a sharded conversion would place it; nothing is read or written, and
// sh's layout does not matter. A dim that its mesh axes do not divide is refused with
// the conversion's error (wrapping an *IndivisibleError), as jax.device_put refuses it.
// Errors are *ConvertError (Setting marks wrong options).
func PlaceTensor(o PlaceOptions, sh layout.Shape) (*PlacementReport, error) {
	c := ConvertOptions{Mesh: o.Mesh, Devices: o.Devices, Spec: o.Spec, Rules: o.Rules, RulesJSON: o.RulesJSON}
	if o.Mesh == "" {
		return nil, usage(missingMesh)
	}
	if err := c.oneSpec("a placement"); err != nil {
		return nil, err
	}
	if o.Spec == "" && o.Tensor == "" {
		return nil, usage("--rules needs --tensor NAME, the tensor's name that the rules match")
	}
	if sh.Kind != layout.Array {
		return nil, usage("%s is not an array: a placement is of an array's elements", sh)
	}
	for i := range sh.Dims {
		if sh.IsDynamic(i) {
			return nil, usage("dim %d of %s is dynamic: a placement needs every dim's size", i, sh)
		}
	}
	mesh, err := c.mesh()
	if err != nil {
		return nil, err
	}
	specFor, err := c.specs(nil, []string{o.Tensor})
	if err != nil {
		return nil, err
	}
	spec, err := specFor(o.Tensor)
	if err != nil {
		return nil, &ConvertError{Err: err}
	}
	pl, err := placeTensor(mesh, spec, o.Tensor, sh.Dims)
	if err != nil {
		return nil, &ConvertError{Err: err}
	}
	return newPlacementReport(o.Tensor, sh.DType, pl), nil
}

// placeTensor is Place with an error that names the tensor (when name is not "") and
// its dims, as a conversion reports it.
func placeTensor(m *placement.Mesh, spec placement.Spec, name string, dims []int64) (*placement.Placement, error) {
	pl, err := placement.Place(m, spec, dims)
	if err != nil {
		what := "dims [" + strings.ReplaceAll(fmtInts(dims), "_", ",") + "]"
		if name != "" {
			what = fmt.Sprintf("tensor %q (%s)", name, what)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return pl, nil
}

func newPlacementReport(name string, dt layout.DType, pl *placement.Placement) *PlacementReport {
	r := &PlacementReport{Name: name, DType: dt.String(), Shape: pl.Dims, Spec: pl.Spec.String(),
		Mesh:       ManifestMesh{Axes: pl.Mesh.Axes, Sizes: pl.Mesh.Sizes, Devices: pl.Mesh.Devices},
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
	what := r.DType + "[" + strings.ReplaceAll(fmtInts(r.Shape), "_", ",") + "]"
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
		r.Mesh.String(), report.Plural(int64(len(r.Mesh.Devices)), "device"),
		report.Plural(int64(len(r.Shards)), "shard"), strings.ReplaceAll(fmtInts(r.ShardShape), "_", ","), each); err != nil {
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
		fmt.Fprintf(tw, "[%s]\t%s\t%s\n", strings.ReplaceAll(fmtInts(s.Index), "_", ","), strings.Join(ranges, "×"), s.Devices.RunText())
	}
	return tw.Flush()
}

// fmtInts prints v's numbers separated by '_', as shard files are named.
func fmtInts[T int | int64](v []T) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(parts, "_")
}
