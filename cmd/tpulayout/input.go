package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
)

// Opening the input arrays of convert and validate: .npy, a tensor of a .safetensors
// file, or raw bytes of a given shape.

// fileKind is what a file holds, judged by its name.
type fileKind int

const (
	kindRaw fileKind = iota
	kindNPY
	kindSafetensors
)

func kindOf(path string) fileKind {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return kindNPY
	case ".safetensors":
		return kindSafetensors
	}
	return kindRaw
}

func (k fileKind) String() string {
	return [...]string{"raw", ".npy", ".safetensors"}[k]
}

// openArray opens an input array: a .npy file, a tensor of a .safetensors file (tensor,
// or the only one), or a raw file of the shape given by shapeText (flagName names the
// flag that gives it). what is "IN" or "REF", for messages. It returns the buffer
// (possibly a read-only mapping: Close it) and the tensor's name for safetensors.
func openArray(path string, kind fileKind, shapeText, flagName, tensor, what string) (*buffer.Buffer, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read %s %s: %s", what, path, fileErr(err))
	}
	if st.IsDir() {
		return nil, "", fmt.Errorf("cannot read %s %s: it is a directory", what, path)
	}
	if tensor != "" && kind != kindSafetensors {
		return nil, "", usagef("--tensor picks a tensor of a .safetensors %s; %s is a %s file", what, path, kind)
	}
	switch kind {
	case kindNPY:
		b, err := npy.Read(path)
		if err != nil {
			return nil, "", fmt.Errorf("cannot read %s %s: %s", what, path, strings.TrimPrefix(cleanErr(err), path+": "))
		}
		return b, "", nil
	case kindSafetensors:
		sf, err := safetensors.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("cannot read %s %s: %s", what, path, strings.TrimPrefix(cleanErr(err), path+": "))
		}
		if tensor == "" {
			if len(sf.Tensors) != 1 {
				return nil, "", usagef("%s %s holds %s (%s); pick one with --tensor NAME", what, path,
					plural(int64(len(sf.Tensors)), "tensor"), tensorNames(sf.Tensors))
			}
			tensor = sf.Tensors[0].Name
		}
		if _, ok := sf.Tensor(tensor); !ok {
			return nil, "", usagef("%s %s has no tensor %q (it has %s)", what, path, tensor, tensorNames(sf.Tensors))
		}
		b, err := sf.Read(tensor)
		if err != nil {
			return nil, "", fmt.Errorf("cannot read %s %s: %s", what, path, cleanErr(err))
		}
		return b, tensor, nil
	}
	if shapeText == "" {
		return nil, "", usagef("%s %s is raw bytes (not .npy or .safetensors): give its shape with %s SHAPE", what, path, flagName)
	}
	ix, err := compileShape(shapeText)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", flagName, err)
	}
	if want := ix.FootprintBytes(); st.Size() != want {
		return nil, "", fmt.Errorf("%s %s has %s, but %s needs %s (its footprint)",
			what, path, plural(st.Size(), "byte"), ix.Shape(), plural(want, "byte"))
	}
	b, err := buffer.ReadRaw(path, ix.Shape())
	if err != nil {
		return nil, "", fmt.Errorf("cannot read %s %s: %s", what, path, cleanErr(err))
	}
	return b, "", nil
}

// tensorNames lists the names of a few tensors for messages.
func tensorNames(ts []safetensors.TensorInfo) string {
	var names []string
	for i, t := range ts {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(ts)-i))
			break
		}
		names = append(names, strconv.Quote(t.Name))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
