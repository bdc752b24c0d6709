package relayout

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// TestMisalignedDst checks relayouts into destinations that start 16, 4 or 2 bytes past
// a 64-byte boundary (a NumPy array's data starts 16 bytes past one), streaming and
// not, against the reference: the cases at odd and even sizes, and random pairs.
func TestMisalignedDst(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := suitePairs(r, [][2]int64{{24, 384}, {13, 300}, {130, 129}, {64, 1000}}, sized(300, 40, 10))
	offs := []int{16, 4, 2}
	for i, c := range cases {
		for j, off := range offs {
			if quick() && j != i%len(offs) { // one offset a case, in turn
				continue
			}
			for _, k := range implementations() {
				for _, stream := range []bool{false, true} {
					c.stream = stream
					checkPairAt(t, r, c, k.Name, off)
				}
			}
		}
	}
}

// checkPairAt is checkPair with the destination off bytes past a 64-byte boundary.
func checkPairAt(t *testing.T, r *rand.Rand, c pairCase, kernels string, off int) {
	t.Helper()
	checkPairInto(t, r, c, kernels, offsetBuffer(t, c.dst, off), fmt.Sprintf("dst +%d, stream %v", off, c.stream))
}

// offsetBytes returns n bytes starting off bytes past a 64-byte boundary.
func offsetBytes(n, off int) []byte {
	b := make([]byte, n+off+64)
	a := int(-uintptr(unsafe.Pointer(&b[0])) & 63)
	return b[a+off : a+off+n : a+off+n]
}

// offsetBuffer is a buffer of shape s whose data starts off bytes past a 64-byte boundary.
func offsetBuffer(tb testing.TB, s layout.Shape, off int) *buffer.Buffer {
	n := len(buffer.MustNew(s).Data)
	d, err := buffer.Wrap(s, offsetBytes(n, off))
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
