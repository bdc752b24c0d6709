package sharding_test

import (
	"fmt"
	"os"
	"path/filepath"

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

// A sharded conversion as one call: the checkpoint's tensor cut over a 2×4 mesh into
// TPU v5e images, then checked against its source.
func ExampleConvert() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	sum, err := sharding.Convert(sharding.ConvertOptions{
		Checkpoint: "../testdata/sharding/mesh2d_both.safetensors",
		Out:        filepath.Join(dir, "shards"),
		Mesh:       "data=2,model=4",
		Spec:       `P("data", "model")`,
		To:         "tpu:v5e",
	})
	if err != nil {
		fmt.Println(sharding.ErrorText(err, nil))
		return
	}
	for _, t := range sum.Tensors {
		fmt.Println(t.Name, t.Spec, t.Layout, t.Shards, "shards")
	}
	r, _ := sharding.VerifyOutdir(filepath.Join(dir, "shards"), "")
	fmt.Println(r.Tensors, "tensor,", r.Shards, "shard files,", len(r.Problems), "problems")

	_, err = sharding.Convert(sharding.ConvertOptions{Checkpoint: "../testdata/sharding/mesh2d_both.safetensors",
		Out: filepath.Join(dir, "other"), Mesh: "data=2,model=3", Spec: `P("data", "model")`, To: "tpu:v5e"})
	fmt.Println(sharding.ErrorText(err, nil))
	// Output:
	// x P("data", "model") bf16[8,64]{1,0:T(8,128)(2,1)} 8 shards
	// 1 tensor, 8 shard files, 0 problems
	// tensor "x" (dims [16,256]): dim 1 of size 256 is not divisible by 3, the product of the mesh axes model(3) that spec P("data", "model") shards it over
}
