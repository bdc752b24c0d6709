package sharding_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tpulayout/tpulayout/sharding"
	"github.com/tpulayout/tpulayout/sharding/placement"
)

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
		fmt.Println(err)
		return
	}
	for _, t := range sum.Tensors {
		fmt.Println(t.Name, t.Spec, t.Layout, t.Shards, "shards")
	}
	r, _ := sharding.VerifyOutdir(filepath.Join(dir, "shards"), "")
	fmt.Println(r.Tensors, "tensor,", r.Shards, "shard files,", len(r.Problems), "problems")

	_, err = sharding.Convert(sharding.ConvertOptions{Checkpoint: "../testdata/sharding/mesh2d_both.safetensors",
		Out: filepath.Join(dir, "other"), Mesh: "data=2,model=3", Spec: `P("data", "model")`, To: "tpu:v5e"})
	var ie *placement.IndivisibleError
	if errors.As(err, &ie) {
		fmt.Println("dim", ie.Dim, "of size", ie.Size, "is not divisible by", ie.Count)
	}
	// Output:
	// x P("data", "model") bf16[8,64]{1,0:T(8,128)(2,1)} 8 shards
	// 1 tensor, 8 shard files, 0 problems
	// dim 1 of size 256 is not divisible by 3
}
