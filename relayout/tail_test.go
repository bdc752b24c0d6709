package relayout

import (
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

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
