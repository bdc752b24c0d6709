package relayout

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// TestBands checks, over random layout pairs that PlanBands accepts (transposing device
// layouts of a row-major source among them, which are gathered), that the bands cover
// the destination exactly once, band after band, that direct bands cover the source the
// same way, and that the bands' bytes, from Run and from CopyBand, equal one Copy of the
// whole array.
func TestBands(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	var direct, gathered int
	want := sized(150, 40, 15)
	for tries := 0; tries < 40000 && (direct < want || gathered < want); tries++ {
		dt := []layout.DType{layout.F32, layout.BF16, layout.S8, layout.S4, layout.F16}[r.IntN(5)]
		sdt := dt
		if dt == layout.BF16 && r.IntN(2) == 0 {
			sdt = layout.F32 // a converting relayout
		}
		rank := 2 + r.IntN(2)
		dims := make([]int64, rank)
		for i := range dims {
			dims[i] = 1 + r.Int64N(160)
			if rank > 2 {
				dims[i] = 1 + r.Int64N(24)
			}
		}
		dst := layout.Shape{DType: dt, Dims: dims, Layout: randomLayout(r, dt, rank)}
		src := layout.NewShape(sdt, dims...)
		if r.IntN(2) == 0 {
			src.Layout = randomLayout(r, sdt, rank)
		}
		target := 64 + r.Int64N(4096)
		b, ok := PlanBands(dst, src, target)
		if !ok {
			continue
		}
		var opts []Option
		if r.IntN(4) == 0 {
			opts = append(opts, WithPadLeave())
		}
		if b.Gather() {
			gathered++
		} else {
			direct++
		}
		checkBands(t, r, b, dst, src, opts)
	}
	if direct < want || gathered < want {
		t.Fatalf("random pairs gave %d direct and %d gathered banded conversions: too few", direct, gathered)
	}
}

func checkBands(t *testing.T, r *rand.Rand, b *Bands, dst, src layout.Shape, opts []Option) {
	t.Helper()
	name := dst.String() + " ← " + src.String()
	if err := b.Compile(opts...); err != nil {
		t.Fatalf("%s: Compile: %v", name, err)
	}
	whole, err := NewPlan(dst, src, opts...)
	if err != nil {
		t.Fatalf("%s: NewPlan: %v", name, err)
	}
	s := buffer.MustNew(src)
	randomFill(r, s.Data)
	want := buffer.MustNew(dst)
	if err := whole.Copy(want, s); err != nil {
		t.Fatal(err)
	}
	if b.Len() < 2 || b.Dim() != dst.Layout.MinorToMajor[dst.Rank()-1] {
		t.Fatalf("%s: %d bands along dim %d", name, b.Len(), b.Dim())
	}
	// Coverage: rows, destination bytes and (direct) source bytes follow each other.
	var row, dOff, sOff, sTotal int64
	for k := range b.Len() {
		bd := b.Band(k)
		if bd.Row != row || bd.Rows < 1 || bd.DstOff != dOff || bd.Gather != b.Gather() ||
			!bd.Gather && bd.SrcOff != sOff || bd.Gather && bd.SrcOff != 0 {
			t.Fatalf("%s: band %d is %+v after row %d, dst byte %d, src byte %d", name, k, bd, row, dOff, sOff)
		}
		if k > 0 && (bd.DstLen > b.Band(0).DstLen || bd.SrcLen > b.Band(0).SrcLen) {
			t.Fatalf("%s: band %d (%+v) is larger than band 0 (%+v)", name, k, bd, b.Band(0))
		}
		row, dOff, sOff, sTotal = row+bd.Rows, dOff+bd.DstLen, sOff+bd.SrcLen, sTotal+bd.SrcLen
	}
	if row != dst.Dims[b.Dim()] || dOff != int64(len(want.Data)) || sTotal != int64(len(s.Data)) {
		t.Fatalf("%s: bands cover %d rows of %d, %d dst bytes of %d, %d src bytes of %d",
			name, row, dst.Dims[b.Dim()], dOff, len(want.Data), sTotal, len(s.Data))
	}
	// Run writes each destination byte exactly once, and the bytes of one whole Copy.
	got := make([]byte, len(want.Data))
	writes := make([]uint8, len(want.Data))
	next := 0
	err = b.Run(s, func(bd Band, p []byte) error {
		if bd != b.Band(next) || int64(len(p)) != bd.DstLen {
			t.Fatalf("%s: Run gave band %+v (%d bytes) as band %d", name, bd, len(p), next)
		}
		next++
		copy(got[bd.DstOff:], p)
		for i := range p {
			writes[bd.DstOff+int64(i)]++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s: Run: %v", name, err)
	}
	if i := bytes.IndexFunc(writes, func(r rune) bool { return r != 1 }); i >= 0 || next != b.Len() {
		t.Fatalf("%s: Run wrote %d bands of %d; byte %d written %d times", name, next, b.Len(), i, writes[max(i, 0)])
	}
	if !bytes.Equal(got, want.Data) {
		t.Fatalf("%s (%d bands, gather %v): Run's bytes differ from one Copy", name, b.Len(), b.Gather())
	}
	// CopyBand alone, into a fresh slice, for one band.
	k := r.IntN(b.Len())
	bd := b.Band(k)
	one := make([]byte, bd.DstLen)
	if err := b.CopyBand(k, one, s, make([]byte, b.Band(0).SrcLen)); err != nil {
		t.Fatalf("%s: CopyBand(%d): %v", name, k, err)
	}
	if !bytes.Equal(one, want.Data[bd.DstOff:bd.DstOff+bd.DstLen]) {
		t.Fatalf("%s: CopyBand(%d) differs from one Copy", name, k)
	}
}

// TestPlanBandsDeclines checks the conversions that are done in one piece.
func TestPlanBandsDeclines(t *testing.T) {
	for _, c := range []struct{ dst, src string }{
		{"f32[]", "f32[]"},
		{"f32[1,4096]{1,0:T(8,128)}", "f32[1,4096]"},                 // one row
		{"f32[4096,64]{1,0:T(8,128)L(1024)}", "f32[4096,64]"},        // tail padding
		{"f32[4096,64]{1,0:T(8,128)}", "f32[4096,65]"},               // dims differ
		{"f32[64,4096]{0,1:T(8,128)}", "f32[64,4096]{1,0:T(8,128)}"}, // neither majormost nor row-major
		{"f32[0,4096]{1,0:T(8,128)}", "f32[0,4096]"},                 // empty
		{"bf16[64,64]{0,1:T(8,128)(2,1)}", "f32[64,64]"},             // gathered, but under 8 bands
		{"f32[4096,64]{1,0:T(8,128)}", "f32[4096,64]{1,0:T(*,128)}"}, // '*' over the banded dim
	} {
		if _, ok := PlanBands(layout.MustParse(c.dst), layout.MustParse(c.src), 1<<14); ok {
			t.Errorf("PlanBands(%s ← %s) bands it", c.dst, c.src)
		}
	}
	dst, src := layout.MustParse("f32[4096,64]{1,0:T(8,128)}"), layout.MustParse("f32[4096,64]")
	b, ok := PlanBands(dst, src, 1<<14)
	if !ok {
		t.Fatalf("PlanBands(%s ← %s) declines", dst, src)
	}
	s := buffer.MustNew(src)
	if err := b.Run(s, func(Band, []byte) error { return nil }); !errors.Is(err, errNotCompiled) {
		t.Errorf("Run before Compile: %v", err)
	}
	if err := b.Compile(); err != nil {
		t.Fatal(err)
	}
	if err := b.CopyBand(0, make([]byte, b.Band(0).DstLen), buffer.MustNew(layout.MustParse("f32[4096,65]")), nil); err == nil {
		t.Error("CopyBand takes a source of other dims")
	}
	stop := errors.New("stop")
	if err := b.Run(s, func(Band, []byte) error { return stop }); err != stop {
		t.Errorf("Run returns %v, not write's error as it is", err)
	}
}

// TestPlanBandsCases checks named layouts: which are banded, along which dim, gathered
// or not, and that a band's height is a multiple of every tile's rows on both sides.
func TestPlanBandsCases(t *testing.T) {
	// A destination whose majormost dim is not the source's is banded along it when the
	// source is row-major, its bands gathered.
	for _, c := range []struct{ dst, src string }{
		{"f32[50,140]{0,1:T(8,128)}", "f32[50,140]"},
		{"f32[9,5,130]{2,0,1:T(8,128)}", "f32[9,5,130]"},
	} {
		if b, ok := PlanBands(layout.MustParse(c.dst), layout.MustParse(c.src), 1); !ok || !b.Gather() || b.Dim() != 1 {
			t.Errorf("PlanBands(%s, %s) = %v, want gathered bands along dim 1", c.dst, c.src, ok)
		}
	}
	// Other layouts are converted in one piece.
	for _, c := range []struct{ dst, src string }{
		{"f32[50,140]{0,1:T(8,128)}", "f32[50,140]{1,0:T(8,128)}"}, // a tiled source
		{"f32[50,140]", "f32[50,140]{0,1:T(8,128)}"},               // back to the host
		{"f32[64,256]{1,0:T(8,128)L(1024)}", "f32[64,256]"},
		{"f32[7,256]{1,0:T(8,128)}", "f32[7,256]"}, // fewer rows than one tile
	} {
		if _, ok := PlanBands(layout.MustParse(c.dst), layout.MustParse(c.src), 1); ok {
			t.Errorf("PlanBands(%s, %s) bands it, want one piece", c.dst, c.src)
		}
	}
	b, ok := PlanBands(layout.MustParse("bf16[1000,256]{1,0:T(16,128)(2,1)}"), layout.MustParse("f32[1000,256]{1,0:T(8,128)}"), 100<<10)
	if !ok || b.Gather() || b.Band(0).Rows%16 != 0 || b.Band(0).Rows*256*4 > 100<<10 {
		t.Fatalf("PlanBands: %v, band 0 %+v", ok, b.Band(0))
	}
	last := b.Band(b.Len() - 1)
	if last.Row+last.Rows != 1000 {
		t.Errorf("bands end at row %d, not 1000", last.Row+last.Rows)
	}
}

// TestPlanImageBands checks bands whose row-major sources the caller assembles: over
// random device layouts, each band converted with CopyBandBytes from its own row-major
// slab equals its range of one Copy of the whole array, and the bands cover the image.
func TestPlanImageBands(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	banded, want := 0, sized(200, 50, 15)
	most := int64(sized(100, 40, 40)) // the largest dim
	for tries := 0; tries < 20000 && banded < want; tries++ {
		dt := []layout.DType{layout.F32, layout.BF16, layout.S8, layout.F16}[r.IntN(4)]
		sdt := dt
		if dt != layout.S8 && r.IntN(2) == 0 {
			sdt = layout.F32
		}
		rank := 1 + r.IntN(3)
		dims := make([]int64, rank)
		for i := range dims {
			dims[i] = 1 + r.Int64N(most)
		}
		dst := layout.Shape{DType: dt, Dims: dims, Layout: randomLayout(r, dt, rank)}
		b, ok := PlanImageBands(dst, sdt, 64+r.Int64N(2048))
		if !ok {
			continue
		}
		banded++
		src := layout.NewShape(sdt, dims...)
		name := dst.String() + " ← " + src.String()
		if err := b.Compile(); err != nil {
			t.Fatalf("%s: Compile: %v", name, err)
		}
		whole, err := NewPlan(dst, src)
		if err != nil {
			t.Fatal(err)
		}
		s := buffer.MustNew(src)
		randomFill(r, s.Data)
		want := buffer.MustNew(dst)
		if err := whole.Copy(want, s); err != nil {
			t.Fatal(err)
		}
		var dOff int64
		for k := range b.Len() {
			bd := b.Band(k)
			bdst, bsrc := b.Shapes(k)
			if bd.DstOff != dOff || bdst.Dims[b.Dim()] != bd.Rows {
				t.Fatalf("%s: band %d is %+v, shape %s, after %d bytes", name, k, bd, bdst, dOff)
			}
			// The band's row-major source: the rows of dim Dim it covers, in order.
			slab := buffer.MustNew(bsrc)
			if int64(len(slab.Data)) != bd.SrcLen {
				t.Fatalf("%s: band %d's source %s has %d bytes, SrcLen %d", name, k, bsrc, len(slab.Data), bd.SrcLen)
			}
			idx, g := make([]int64, rank), make([]int64, rank)
			for {
				copy(g, idx)
				g[b.Dim()] += bd.Row
				slab.SetBits(idx, s.Bits(g))
				if !layout.NextIndex(idx, bsrc.Dims) {
					break
				}
			}
			got := make([]byte, bd.DstLen)
			if err := b.CopyBandBytes(k, got, slab.Data); err != nil {
				t.Fatalf("%s: CopyBandBytes(%d): %v", name, k, err)
			}
			if !bytes.Equal(got, want.Data[bd.DstOff:bd.DstOff+bd.DstLen]) {
				t.Fatalf("%s: band %d differs from one Copy", name, k)
			}
			dOff += bd.DstLen
		}
		if dOff != int64(len(want.Data)) {
			t.Fatalf("%s: bands cover %d of %d bytes", name, dOff, len(want.Data))
		}
	}
	if banded < want {
		t.Fatalf("only %d random layouts banded", banded)
	}
}
