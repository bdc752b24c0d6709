package buffer

import (
	"bytes"
	"errors"
	"testing"

	"github.com/tpulayout/tpulayout/layout"
)

func TestView(t *testing.T) {
	src := MustNew(layout.MustParse("u16[2,3]{1,0:T(2,2)(2,1)}"))
	for i := range src.Data {
		src.Data[i] = byte(i * 7)
	}
	v, err := src.View(layout.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.Shape.String(), "bf16[2,3]{1,0:T(2,2)(2,1)}"; got != want {
		t.Errorf("view shape %s, want %s", got, want)
	}
	if &v.Data[0] != &src.Data[0] || !bytes.Equal(v.Data, src.Data) {
		t.Errorf("the view does not share the bytes")
	}
	if v.DType() != layout.BF16 || v.ElementBits() != 16 {
		t.Errorf("view dtype %v, %d bits", v.DType(), v.ElementBits())
	}
	// Element (1,2) reads the same bits in both.
	idx := []int64{1, 2}
	if a, b := src.BitsAt(src.Indexer().Offset(idx)), v.BitsAt(v.Indexer().Offset(idx)); a != b {
		t.Errorf("bits of (1,2): u16 %#x, bf16 view %#x", a, b)
	}

	s4 := MustNew(layout.MustParse("s4[4,4]{1,0:E(4)}"))
	if _, err := s4.View(layout.U4); err != nil {
		t.Errorf("s4 as u4: %v", err)
	}
	for _, c := range []struct {
		b  *Buffer
		dt layout.DType
	}{
		{src, layout.F32},
		{src, layout.S8},
		{s4, layout.S8},
		{MustNew(layout.MustParse("f32[2]")), layout.BF16},
		{src, layout.Token},
	} {
		if _, err := c.b.View(c.dt); !errors.Is(err, ErrShape) {
			t.Errorf("%v viewed as %v: err %v, want ErrShape", c.b.Shape, c.dt, err)
		}
	}
}
