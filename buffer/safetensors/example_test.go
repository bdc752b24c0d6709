package safetensors_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
)

func ExampleOpen() {
	f, err := safetensors.Open(filepath.Join("..", "..", "testdata", "safetensors", "model.safetensors"))
	if err != nil {
		log.Fatal(err)
	}
	t, _ := f.Tensor("weight")
	fmt.Println(t.SafeType, t.Shape, t.BufferShape())
	b, err := f.Read("weight")
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	fmt.Println(b.Len(), "elements")
	// Output:
	// F32 [2 3] f32[2,3]{1,0}
	// 6 elements
}
