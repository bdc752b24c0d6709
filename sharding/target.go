package sharding

import (
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
)

// ResolveTarget is the device layout of a shard of row-major shape shard, from to and
// dtype as `tpulayout convert --to … --dtype …` takes them: tpu:GEN (that
// generation's default layout), a layout alone such as "{1,0:T(8,128)(2,1)}", a dtype
// name (row-major), a whole shape with the shard's dims, or hlo:MODULE.txt:param=N
// (the layout a compiled program gives the shard). dtype ("" for the source's)
// applies to a layout alone and tpu:GEN; with floatOnly, to floating-point sources
// only (a conversion of every tensor keeps integer tensors as they are). It is
// convert.Job.Target for a raw image; its errors are convert's, which name the
// fields To and DType.
func ResolveTarget(to, dtype string, shard layout.Shape, floatOnly bool) (layout.Shape, error) {
	if to == "" { // convert's own message speaks of one OUT file
		return layout.Shape{}, usage(missingTo)
	}
	j := convert.Job{To: to, DType: dtype}
	return j.Target(shard, convert.Raw, floatOnly)
}

const missingTo = "missing {To}: the device layout of the shards, tpu:GEN or a layout alone such as '{1,0:T(8,128)(2,1)}'"
