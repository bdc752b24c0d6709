package main

import (
	"flag"
	"io"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/sharding"
)

var placeVerb = &verb{
	name:     "place",
	synopsis: "SHAPE --mesh MESH --spec SPEC|--rules FILE [flags]",
	summary:  "which device holds which ranges of a tensor on a mesh, without converting",
	detail: `Place answers what a sharded conversion (convert … --mesh) would put where, without
reading or writing any data: for an array of SHAPE (bf16[4096,1024]; its layout, if
given, does not change the ranges) on the mesh under the spec, each distinct shard's
index, its [start,end) range along each dim and the devices that hold it (replicas on
one line, ids in runs such as 0-3,8-11), as jax.sharding.NamedSharding places it.
--mesh, --spec, --rules and --devices are convert's; --rules takes the spec of the rule
that matches --tensor NAME. A dim that its mesh axes do not divide is refused with the
conversion's error, as jax.device_put refuses it.

With --json it prints one object in the manifest's words: name (with --tensor), dtype,
shape, spec, mesh (axes, sizes, devices), shard_shape and shards, each with index,
ranges ([start, end) per dim) and devices (a list of ids; as in the manifest, a long
list of few runs is the text "0-1023").`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		var m meshFlags
		m.define(fs, "", "the tensor")
		tensor := fs.String("tensor", "", "the tensor's `NAME`: what --rules match")
		asJSON := fs.Bool("json", false, "print JSON")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "SHAPE"); err != nil {
				return err
			}
			sh, err := convert.ParseShape(pos[0])
			if err != nil {
				return err
			}
			o := sharding.PlaceOptions{Mesh: m.mesh, Spec: m.spec, Tensor: *tensor}
			if o.Rules, o.RulesJSON, err = m.rulesOption(); err != nil {
				return err
			}
			if o.Devices, err = m.deviceIDs(); err != nil {
				return err
			}
			r, err := sharding.PlaceTensor(o, sh)
			if err != nil {
				return shardErr(err)
			}
			if *asJSON {
				return writeJSON(w, r)
			}
			return r.WriteText(w)
		}
	},
}
