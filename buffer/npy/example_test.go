package npy_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer/npy"
)

func ExampleRead() {
	b, err := npy.Read(filepath.Join("..", "..", "testdata", "npy", "f32_f.npy"))
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	fmt.Println(b.Shape) // Fortran order: the {0,1} layout, no copy
	fmt.Println(b.F32([]int64{0, 1}), b.F32([]int64{2, 0}))
	// Output:
	// f32[3,4]{0,1}
	// -1.75 1.75
}
