package sharding_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/sharding"
)

// A 2×4 mesh and a weight whose rows are sharded over both axes, then one whose
// columns are sharded over "model" only: devices that differ only in the "data" axis
// hold the same shard.
func Example() {
	mesh, _ := sharding.ParseMesh("data=2,model=4", nil)
	spec, _ := sharding.ParseSpec(`P(("data", "model"))`)
	pl, _ := sharding.Place(mesh, spec, []int64{1024, 512})
	s, _ := pl.ShardOf(5)
	fmt.Println(pl.ShardDims, "device 5 at", pl.Coords(5), "holds rows", pl.Ranges(s)[0])

	spec, _ = sharding.ParseSpec(`P(None, "model")`)
	pl, _ = sharding.Place(mesh, spec, []int64{1024, 512})
	for _, s := range pl.Shards {
		fmt.Println("columns", pl.Ranges(&s)[1], "on devices", s.Devices)
	}
	_, err := sharding.Place(mesh, spec, []int64{1024, 510})
	fmt.Println(err)
	// Output:
	// [128 512] device 5 at [1 1] holds rows [640 768]
	// columns [0 128] on devices [0 4]
	// columns [128 256] on devices [1 5]
	// columns [256 384] on devices [2 6]
	// columns [384 512] on devices [3 7]
	// sharding: dim 1 of size 510 is not divisible by 4, the product of the mesh axes model(4) that spec P(None, "model") shards it over
}
