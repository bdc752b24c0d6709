package placement_test

import (
	"errors"
	"fmt"

	"github.com/tpulayout/tpulayout/sharding/placement"
)

// A 2×4 mesh and a weight whose rows are sharded over both axes, then one whose
// columns are sharded over "model" only: devices that differ only in the "data" axis
// hold the same shard.
func ExamplePlace() {
	mesh, _ := placement.ParseMesh("data=2,model=4", nil)
	spec, _ := placement.ParseSpec(`P(("data", "model"))`)
	pl, _ := placement.Place(mesh, spec, []int64{1024, 512})
	s, _ := pl.ShardOf(5)
	fmt.Println(pl.ShardDims, "device 5 at", pl.Coords(5), "holds rows", pl.Ranges(s)[0])

	spec, _ = placement.ParseSpec(`P(None, "model")`)
	pl, _ = placement.Place(mesh, spec, []int64{1024, 512})
	for _, s := range pl.Shards {
		fmt.Println("columns", pl.Ranges(&s)[1], "on devices", s.Devices)
	}
	_, err := placement.Place(mesh, spec, []int64{1024, 510})
	fmt.Println(err)
	// Output:
	// [128 512] device 5 at [1 1] holds rows [640 768]
	// columns [0 128] on devices [0 4]
	// columns [128 256] on devices [1 5]
	// columns [256 384] on devices [2 6]
	// columns [384 512] on devices [3 7]
	// sharding: dim 1 of size 510 is not divisible by 4, the product of the mesh axes model(4) that spec P(None, "model") shards it over
}

// Rules give each tensor its spec by name: the first rule that matches, else the
// default.
func ExampleParseRules() {
	rules, err := placement.ParseRules([]byte(`{"rules": [{"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"}], "default": "P()"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range []string{"layer0.attn.wq", "layer0.mlp.w1"} {
		spec, rule, _ := rules.SpecFor(name)
		fmt.Println(name, spec, "rule", rule)
	}
	// Output:
	// layer0.attn.wq P(None, "model") rule 1
	// layer0.mlp.w1 P() rule 0
}

// Process 1 of 4 of a JAX multi-host run holds the second quarter of the sorted ids.
func ExampleMesh_ProcessDevices() {
	mesh, _ := placement.ParseMesh("data=2,model=4", []int{7, 6, 5, 4, 3, 2, 1, 0})
	ids, _ := mesh.ProcessDevices(1, 4)
	fmt.Println(mesh, mesh.Size(), "devices; process 1/4 holds", ids)
	// Output:
	// data=2,model=4 8 devices; process 1/4 holds [2 3]
}

// Errors are values: a spec's syntax error says where in the text reading failed.
func ExampleSyntaxError() {
	_, err := placement.ParseSpec(`P("data", model)`)
	var se *placement.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.What, se.Pos, se.Msg)
	}
	// Output:
	// spec 10 want None, a quoted mesh axis name or a tuple of them
}
