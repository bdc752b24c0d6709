package algebra_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/layout/algebra"
)

func ExampleFromXLA() {
	m, _ := algebra.FromXLA(layout.MustParse("f32[8,256]{0,1:T(8,128)}"))
	c, _ := m.Canonical()
	fmt.Println(m.One, c, m.One.Cosize(), m.Alloc)
	off, _ := m.Offset([]int64{1, 1})
	fmt.Println(off)
	chain, _ := algebra.FromXLA(layout.MustParse("f32[16,256]{1,0:T(8,128)(3,1)}"))
	fmt.Println(chain.One == nil, chain.Reason, chain.Alloc)
	// Output:
	// (8,(8,32)):(1,(128,1024)) (8,256):(1,128) 32648 32768
	// 129
	// true tile 3 does not divide radix 8 4608
}

func ExampleMapping_Index() {
	m, _ := algebra.FromXLA(layout.MustParse("f32[16,256]{1,0:T(8,128)}"))
	idx, ok, _ := m.Index(6660 * 8 / 32) // byte 6660 of a dump
	fmt.Println(idx, ok)
	// Output: [5 129] true
}

func ExampleCoalesce() {
	l, _ := algebra.Parse("((8,3),128):((128,1024),1)")
	fmt.Println(algebra.Coalesce(l), algebra.CoalesceByMode(l))
	// Output: (24,128):(128,1) (24,128):(128,1)
}

func ExampleCompose() {
	// The copy map from f32[16,256]{1,0} to {1,0:T(8,128)}: destination ∘ right inverse
	// of the source.
	dst, _ := algebra.Parse("((8,2),(128,2)):((128,2048),(1,1024))")
	src, _ := algebra.Parse("(16,256):(256,1)")
	c, _ := algebra.Compose(dst, algebra.RightInverse(src))
	fmt.Println(algebra.Coalesce(c))
	_, err := algebra.Compose(algebra.MustNew(algebra.Ints(8, 2), algebra.Ints(128, 2048)), algebra.Leaf(12, 1))
	fmt.Println(err)
	// Output:
	// (128,2,8,2):(1,1024,128,2048)
	// algebra: compose (8,2):(128,2048) ∘ 12:1: shape divisibility condition fails: 8 and 12 do not divide each other
}

func ExampleComplement() {
	l, _ := algebra.Parse("(8,(8,32)):(1,(128,1024))")
	c, _ := algebra.Complement(l, 32768)
	fmt.Println(c)
	// Output: 16:8
}

func ExampleLeftInverse() {
	l, _ := algebra.Parse("(4,2):(2,1)")
	li, _ := algebra.LeftInverse(l)
	fmt.Println(li, algebra.RightInverse(l))
	// Output: (2,4):(4,1) (2,4):(4,1)
}

func ExampleZippedDivide() {
	l, _ := algebra.Parse("((8,2),(128,2)):((128,2048),(1,1024))")
	z, _ := algebra.ZippedDivide(l, []algebra.Layout{algebra.Leaf(16, 1), algebra.Leaf(128, 1)})
	n, runs := algebra.Runs(z.Mode(0))
	fmt.Println(z, runs, n)
	// Output: (((8,2),128),(1,2)):(((128,2048),1),(0,1024)) 2 1024
}

func ExampleBlockedProduct() {
	tile, _ := algebra.Parse("(8,128):(128,1)")
	grid, _ := algebra.Parse("(2,2):(2,1)")
	p, _ := algebra.BlockedProduct(tile, grid)
	fmt.Println(p)
	// Output: ((8,2),(128,2)):((128,2048),(1,1024))
}

func ExampleRakedProduct() {
	tile, _ := algebra.Parse("(4,128):(256,2)")
	pair, _ := algebra.Parse("(2,1):(1,0)")
	p, _ := algebra.RakedProduct(tile, pair)
	fmt.Println(p)
	// Output: ((2,4),(1,128)):((1,256),(0,2))
}

func ExampleMaxCommonVector() {
	dst, _ := algebra.Parse("((8,2),(128,2)):((128,2048),(1,1024))")
	src, _ := algebra.Parse("(16,256):(256,1)")
	v, _ := algebra.MaxCommonVector(dst, src)
	l, _ := algebra.MaxCommonLayout(dst, src)
	fmt.Println(v, l)
	// Output: 128 128:16
}

func ExampleUpcast() {
	l, _ := algebra.Parse("((2,4,2),(128,2)):((1,256,2048),(2,1024))")
	w, _ := algebra.Upcast(l, 2)
	d, _ := algebra.Downcast(algebra.CoalesceByMode(w), 2)
	fmt.Println(w, d)
	// Output: ((1,4,2),(128,2)):((1,128,1024),(1,512)) ((4,2),(256,2)):((256,2048),(1,1024))
}
