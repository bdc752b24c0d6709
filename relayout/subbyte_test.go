package relayout

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// TestSubByte covers plans with E(4), E(2) and E(1) elements on either side, which
// unpack them to bytes, plan on those and pack the result back.
func TestSubByte(t *testing.T) {
	checkNamed(t, 19, []namedPair{
		{"s4[%d,%d]{1,0:E(4)}", "s4[%d,%d]{1,0:T(64,128)(8,1)E(4)}", "unpack+transpose+pack"},
		{"u4[%d,%d]{1,0:T(64,128)(8,1)E(4)}", "u4[%d,%d]{1,0:E(4)}", "unpack+transpose+pack"},
		{"s8[%d,%d]{1,0}", "s4[%d,%d]{1,0:T(64,128)(8,1)E(4)}", "transpose+pack"},
		{"s4[%d,%d]{1,0:T(64,128)(8,1)E(4)}", "bf16[%d,%d]{1,0}", "unpack+transpose"},
		{"u2[%d,%d]{1,0:E(2)}", "u2[%d,%d]{0,1:T(8,128)E(2)}", "unpack+transpose+pack"},
		{"s1[%d,%d]{1,0:E(1)}", "s1[%d,%d]{1,0:T(8,128)E(1)}", "unpack+copy+pack"},
		{"s4[%d,%d]{1,0:E(4)}", "f32[%d,%d]{0,1}", "unpack+transpose"},
	}, pairCase{stream: true}, pairCase{opts: []Option{WithPadLeave(), WithBlockBytes(256)}},
		pairCase{opts: []Option{WithPadValue(-1), WithWorkers(3)}})
	// Arrays large enough that the unpack and pack passes split over the workers.
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range [][2]string{
		{"s4[700,1030]{1,0:T(64,128)(8,1)E(4)}", "s4[700,1030]{1,0:E(4)}"},
		{"u2[700,1030]{1,0:E(2)}", "u2[700,1030]{0,1:T(8,128)E(2)}"},
	} {
		for _, opts := range [][]Option{{WithWorkers(3)}, {WithWorkers(2), WithPadLeave()}} {
			checkPair(t, r, pairCase{dst: layout.MustParse(c[0]), src: layout.MustParse(c[1]), opts: opts}, simd.Default().Name)
		}
	}
}

// TestPackUnpack round-trips w-bit elements through unpack and pack, and checks that
// pack keeps the bits of the last byte beyond the elements.
func TestPackUnpack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	sizes := []int{127, 128, 129, 255, 256, 1000} // whole blocks of nibbles and tails
	for n := range 70 {
		sizes = append(sizes, n)
	}
	for _, w := range []int{1, 2, 4} {
		for _, n := range sizes {
			packed := make([]byte, (n*w+7)/8)
			randomFill(r, packed)
			elems := make([]byte, n)
			unpack(elems, packed, w)
			for i, e := range elems {
				if want := packed[i*w/8] >> (i * w % 8) & (1<<w - 1); e != want {
					t.Fatalf("w=%d n=%d: unpacked element %d is %#x, want %#x", w, n, i, e, want)
				}
				elems[i] |= byte(r.Uint32()) << w // high bits pack must ignore
			}
			again := slices.Clone(packed)
			for i := range again {
				again[i] = ^again[i]
			}
			if len(again) > 0 {
				again[len(again)-1] = packed[len(packed)-1] // its spare bits must survive
			}
			pack(again, elems, w)
			if !slices.Equal(again, packed) {
				t.Fatalf("w=%d n=%d: pack(unpack(%x)) = %x", w, n, packed, again)
			}
		}
	}
}

// TestSubByteTailBits checks the bits of a packed destination's last byte that belong to
// no element: a plan that writes padding zeroes them whatever the destination held, and
// one that leaves padding leaves them.
func TestSubByteTailBits(t *testing.T) {
	for _, c := range []struct{ dst, src string }{
		{"s4[3]{0:E(4)}", "s8[3]{0}"},
		{"s4[3]{0:E(4)}", "s4[3]{0:E(4)}"},
		{"u2[5]{0:E(2)}", "u2[5]{0:E(2)}"},
		{"s1[2,3]{0,1:E(1)}", "s1[2,3]{1,0:E(1)}"},
		{"u4[3,3]{1,0:T(1,3)E(4)}", "u8[3,3]{1,0}"},
	} {
		dst, src := layout.MustParse(c.dst), layout.MustParse(c.src)
		s := buffer.MustNew(src)
		for i := range s.Data {
			s.Data[i] = byte(17*i + 5)
		}
		for _, leave := range []bool{false, true} {
			var opts []Option
			if leave {
				opts = append(opts, WithPadLeave())
			}
			p, err := NewPlan(dst, src, opts...)
			if err != nil {
				t.Fatalf("NewPlan(%s ← %s): %v", dst, src, err)
			}
			d := buffer.MustNew(dst)
			for i := range d.Data {
				d.Data[i] = 0xff
			}
			if err := p.Copy(d, s); err != nil {
				t.Fatal(err)
			}
			ix := d.Indexer()
			used := ix.FootprintElements() * int64(ix.ElementBits()) % 8
			spare := d.Data[len(d.Data)-1] >> used
			if want := byte(0xff) >> used; leave && spare != want || !leave && spare != 0 {
				t.Errorf("%s ← %s (%s, leave %v): spare bits of the last byte are %#x", dst, src, p.Kernel(), leave, spare)
			}
		}
	}
}
