package safetensors

import (
	"bytes"
	"os"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
)

// FuzzSafetensorsHeader feeds arbitrary bytes to the safetensors header reader and
// reads every accepted tensor from the input.
func FuzzSafetensorsHeader(f *testing.F) {
	if data, err := os.ReadFile(stPath()); err == nil {
		f.Add(data)
	}
	f.Add(safetensorsBytes(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, make([]byte, 16)))
	f.Add(safetensorsBytes(`{"__metadata__":{"a":"b"},"w":{"dtype":"BOOL","shape":[],"data_offsets":[0,1]}}`, make([]byte, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := readHeader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, ti := range s.Tensors {
			if ti.Offset < 0 || ti.Offset+(ti.End-ti.Begin) > int64(len(data)) {
				t.Fatalf("tensor %q [%d, %d) accepted beyond the %d input bytes", ti.Name, ti.Begin, ti.End, len(data))
			}
			b, err := buffer.Wrap(ti.BufferShape(), data[ti.Offset:ti.Offset+ti.End-ti.Begin])
			if err != nil {
				t.Fatalf("tensor %q accepted but Wrap fails: %v", ti.Name, err)
			}
			if b.Len() > 0 {
				_ = b.Bits(make([]int64, b.Rank()))
			}
		}
	})
}
