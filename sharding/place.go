package sharding

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/sharding/manifest"
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

// PlaceTensor works out where an array of shape sh goes on the mesh under the spec that
// o gives it, as a sharded conversion would place it; nothing is read or written, and
// sh's layout does not matter. A dim that its mesh axes do not divide is refused with
// the conversion's error (wrapping an *IndivisibleError), as jax.device_put refuses it.
// Errors are *ConvertError (Setting marks wrong options).
func PlaceTensor(o PlaceOptions, sh layout.Shape) (*manifest.PlacementReport, error) {
	c := ConvertOptions{Mesh: o.Mesh, Devices: o.Devices, Spec: o.Spec, Rules: o.Rules, RulesJSON: o.RulesJSON}
	if o.Mesh == "" {
		return nil, usage(missingMesh)
	}
	if err := c.oneSpec("a placement"); err != nil {
		return nil, err
	}
	if o.Spec == "" && o.Tensor == "" {
		return nil, usage("{Rules} needs {Tensor} NAME, the tensor's name that the rules match")
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
	return manifest.NewPlacementReport(o.Tensor, sh.DType, pl), nil
}

// placeTensor is Place with an error that names the tensor (when name is not "") and
// its dims, as a conversion reports it.
func placeTensor(m *placement.Mesh, spec placement.Spec, name string, dims []int64) (*placement.Placement, error) {
	pl, err := placement.Place(m, spec, dims)
	if err != nil {
		what := "dims " + report.DimsText(dims)
		if name != "" {
			what = fmt.Sprintf("tensor %q (%s)", name, what)
		}
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return pl, nil
}
