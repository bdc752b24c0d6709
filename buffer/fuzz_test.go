package buffer

import (
	"bytes"
	"os"
	"testing"

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
		for _, opts := range [][]NPYOption{nil, {BF16AsU2()}} {
			r := bytes.NewReader(data)
			h, err := ReadNPYHeader(r, opts...)
			if err != nil {
				continue
			}
			b, err := newHeader(h.BufferShape())
			if err != nil {
				continue
			}
			if rest := int64(r.Len()); rest == h.DataBytes() && rest == b.ix.FootprintBytes() {
				w, err := Wrap(h.BufferShape(), data[len(data)-int(rest):])
				if err != nil {
					t.Fatalf("header accepted, size matches, Wrap fails: %v", err)
				}
				if w.Len() > 0 && w.dt != layout.C128 {
					_ = w.Bits(make([]int64, w.Rank()))
				}
			}
		}
	})
}

// FuzzSafetensorsHeader feeds arbitrary bytes to the safetensors header reader and
// reads every accepted tensor from the input.
func FuzzSafetensorsHeader(f *testing.F) {
	if data, err := os.ReadFile(stPath()); err == nil {
		f.Add(data)
	}
	f.Add(safetensorsBytes(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, make([]byte, 16)))
	f.Add(safetensorsBytes(`{"__metadata__":{"a":"b"},"w":{"dtype":"BOOL","shape":[],"data_offsets":[0,1]}}`, make([]byte, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := readSafetensorsHeader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, ti := range s.Tensors {
			if ti.Offset < 0 || ti.Offset+(ti.End-ti.Begin) > int64(len(data)) {
				t.Fatalf("tensor %q [%d, %d) accepted beyond the %d input bytes", ti.Name, ti.Begin, ti.End, len(data))
			}
			b, err := Wrap(ti.BufferShape(), data[ti.Offset:ti.Offset+ti.End-ti.Begin])
			if err != nil {
				t.Fatalf("tensor %q accepted but Wrap fails: %v", ti.Name, err)
			}
			if b.Len() > 0 {
				_ = b.Bits(make([]int64, b.Rank()))
			}
		}
	})
}
