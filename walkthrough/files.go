package walkthrough

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// seed seeds the example's values; the files are part of what the README's
// transcript test checks, so changing it changes the README's figures.
const seed = 27

// File is one file of the example directory: its name, what it holds, and its bytes.
type File struct {
	Name, What string
	Data       func() ([]byte, error)
}

// Files lists the example's files, in the order Write writes them.
func Files() []File {
	return []File{
		{"weights.npy", "f32[256,1024], a weight matrix", func() ([]byte, error) { return npyBytes(normalArray(1, 256, 1024)) }},
		{"small.npy", "f32[20,300]", func() ([]byte, error) { return npyBytes(normalArray(2, 20, 300)) }},
		{"model.safetensors", "3 f32 tensors, a checkpoint", exampleCheckpoint},
		{"truncated.bin", "small.npy in bf16[20,300]{1,0:T(8,128)(2,1)}, truncated (a bug)", exampleTruncated},
		{"module.txt", "an HLO module dump", func() ([]byte, error) { return []byte(exampleModule), nil }},
		{"rules.json", "sharding rules for model.safetensors", func() ([]byte, error) { return []byte(exampleRules), nil }},
	}
}

// Written is one file Write wrote, or kept because it held the example's bytes already.
type Written struct {
	File
	Path  string
	Bytes int64
	Kept  bool
}

// Write writes the example's files into dir, made if missing. A file already there
// with the same bytes is kept; one with other bytes is an error, and left as it was.
// Each file is written to a temporary file and renamed.
func Write(dir string) ([]Written, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make DIR %s: %s", dir, fileErr(err))
	}
	var ws []Written
	for _, f := range Files() {
		b, err := f.Data()
		if err != nil {
			return ws, fmt.Errorf("example %s: %v", f.Name, err) // a bug here, not the user's
		}
		path := filepath.Join(dir, f.Name)
		kept, err := writeIfNew(path, b)
		if err != nil {
			return ws, err
		}
		ws = append(ws, Written{File: f, Path: path, Bytes: int64(len(b)), Kept: kept})
	}
	return ws, nil
}

// writeIfNew writes b to path through a temporary file and a rename, unless path holds b
// already (kept); a path holding anything else is an error and is left as it was.
func writeIfNew(path string, b []byte) (kept bool, err error) {
	old, err := os.ReadFile(path)
	switch {
	case err == nil && bytes.Equal(old, b):
		return true, nil
	case err == nil:
		return false, fmt.Errorf("%s exists and is not the example's; remove it or pick another DIR", path)
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("cannot write %s: %s", path, fileErr(err))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, fmt.Errorf("cannot write %s: %s", path, fileErr(err))
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false, fmt.Errorf("cannot write %s: %s", path, fileErr(err))
	}
	return false, nil
}

// normalArray is an f32 row-major array of roughly standard normal values: each the sum
// of 12 uniform values minus 6 (Irwin–Hall), from PCG (a generator math/rand/v2
// specifies exactly) and exact float64 arithmetic, so every platform gets the same
// bits. stream picks an independent sequence for each array.
func normalArray(stream uint64, dims ...int64) *buffer.Buffer {
	b := buffer.MustNew(layout.NewShape(layout.F32, dims...))
	r := rand.New(rand.NewPCG(seed, stream))
	n := b.Len()
	for i := range n {
		s := 0.0
		for range 12 {
			s += float64(r.Uint64()>>11) / (1 << 53)
		}
		binary.LittleEndian.PutUint32(b.Data[4*i:], math.Float32bits(float32(s-6)))
	}
	return b
}

func npyBytes(b *buffer.Buffer) ([]byte, error) {
	var out bytes.Buffer
	err := npy.WriteTo(&out, b)
	return out.Bytes(), err
}

func exampleCheckpoint() ([]byte, error) {
	var out bytes.Buffer
	err := safetensors.WriteTo(&out, []safetensors.NamedBuffer{
		{Name: "layers.0.attn.wq", Buf: normalArray(3, 512, 512)},
		{Name: "layers.0.mlp.w1", Buf: normalArray(4, 512, 2048)},
		{Name: "norm.scale", Buf: normalArray(5, 512)},
	}, nil)
	return out.Bytes(), err
}

// exampleTruncated is small.npy's array as a device dump made with a common bug: bf16
// from the high halves of the f32 words (rounding toward zero) instead of rounding to
// nearest even, in the right layout.
func exampleTruncated() ([]byte, error) {
	src := normalArray(2, 20, 300)
	trunc := buffer.MustNew(layout.NewShape(layout.BF16, 20, 300))
	for i := range src.Len() {
		copy(trunc.Data[2*i:2*i+2], src.Data[4*i+2:4*i+4]) // little-endian: the high half
	}
	dst, err := buffer.New(layout.MustParse("bf16[20,300]{1,0:T(8,128)(2,1)}"))
	if err != nil {
		return nil, err
	}
	p, err := relayout.NewPlan(dst.Shape, trunc.Shape)
	if err != nil {
		return nil, err
	}
	if err := p.Copy(dst, trunc); err != nil {
		return nil, err
	}
	return dst.Data, nil
}

const exampleModule = `HloModule jit_f, entry_computation_layout={(bf16[20,300]{1,0:T(8,128)(2,1)})->bf16[20,300]{1,0:T(8,128)(2,1)}}

ENTRY %main.3 (Arg_0.1: bf16[20,300]) -> bf16[20,300] {
  %Arg_0.1 = bf16[20,300]{1,0:T(8,128)(2,1)} parameter(0), sharding={replicated}, metadata={op_name="x"}
  ROOT %negate.2 = bf16[20,300]{1,0:T(8,128)(2,1)} negate(bf16[20,300]{1,0:T(8,128)(2,1)} %Arg_0.1), metadata={op_name="jit(f)/neg"}
}
`

const exampleRules = `{
  "rules": [
    {"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"},
    {"match": "mlp\\.w1$",      "spec": "P(\"data\", \"model\")"}
  ],
  "default": "P()"
}
`

// fileErr describes a failed file operation without Go's "open PATH:" prefix.
func fileErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
