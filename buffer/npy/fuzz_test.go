package npy

import (
	"bytes"
	"os"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
)

// FuzzNPYHeader feeds arbitrary bytes to the .npy header reader, and, when a header is
// accepted and the rest of the input has the right size, wraps and reads the data.
func FuzzNPYHeader(f *testing.F) {
	for _, name := range []string{"f32_c.npy", "f32_f3d.npy", "bf16_v2.npy", "be_i2.npy", "v2_i4.npy", "scalar.npy", "bool.npy"} {
		if data, err := os.ReadFile(npyPath(name)); err == nil {
			f.Add(data)
		}
	}
	f.Add(npyHeaderBytesRaw("{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }"))
	f.Add(npyHeaderBytesRaw("{'descr': [('a', '<u2')], 'fortran_order': True, 'shape': (), }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range [][]Option{nil, {BF16AsU2()}} {
			r := bytes.NewReader(data)
			h, err := ReadHeader(r, opts...)
			if err != nil {
				continue
			}
			ix, err := layout.Compile(h.BufferShape())
			if err != nil {
				continue
			}
			if rest := int64(r.Len()); rest == h.DataBytes() && rest == ix.FootprintBytes() {
				w, err := buffer.Wrap(h.BufferShape(), data[len(data)-int(rest):])
				if err != nil {
					t.Fatalf("header accepted, size matches, Wrap fails: %v", err)
				}
				if w.Len() > 0 && w.DType() != layout.C128 {
					_ = w.Bits(make([]int64, w.Rank()))
				}
			}
		}
	})
}
