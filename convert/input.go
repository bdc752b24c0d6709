package convert

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// Opening input arrays: .npy, a tensor of a .safetensors file, or raw bytes of a given
// shape.

// Format is what a file holds, judged by its name.
type Format int

const (
	Raw Format = iota
	NPY
	Safetensors
)

// FormatOf judges a file by its extension.
func FormatOf(path string) Format {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		return NPY
	case ".safetensors":
		return Safetensors
	}
	return Raw
}

func (f Format) String() string {
	return [...]string{"raw", ".npy", ".safetensors"}[f]
}

// ArrayWords are the words messages about an input array use: What it is ("In",
// "IN", "REF"), and the settings that give a raw file's Shape and pick a Tensor.
type ArrayWords struct{ What, Shape, Tensor string }

// OpenArray opens an input array: a .npy file, a tensor of a .safetensors file (tensor,
// or the only one), or a raw file of the shape shapeText gives. It returns the buffer
// (possibly a read-only mapping: Close it) and the tensor's name for safetensors.
func OpenArray(path string, f Format, shapeText, tensor string, w ArrayWords) (*buffer.Buffer, string, error) {
	what := w.What
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", inputf("cannot read %s %s: %s", what, path, FileErr(err))
	}
	if st.IsDir() {
		return nil, "", inputf("cannot read %s %s: it is a directory", what, path)
	}
	if tensor != "" && f != Safetensors {
		return nil, "", usagef("%s picks a tensor of a .safetensors %s; %s is a %s file", w.Tensor, what, path, f)
	}
	switch f {
	case NPY:
		b, err := npy.Read(path)
		if err != nil {
			return nil, "", inputf("cannot read %s %s: %s", what, path, strings.TrimPrefix(CleanErr(err), path+": "))
		}
		return b, "", nil
	case Safetensors:
		sf, err := safetensors.Open(path)
		if err != nil {
			return nil, "", inputf("cannot read %s %s: %s", what, path, strings.TrimPrefix(CleanErr(err), path+": "))
		}
		if tensor == "" {
			if len(sf.Tensors) != 1 {
				return nil, "", usagef("%s %s holds %s (%s); pick one with %s NAME", what, path,
					report.Plural(int64(len(sf.Tensors)), "tensor"), tensorNames(sf.Tensors), w.Tensor)
			}
			tensor = sf.Tensors[0].Name
		}
		if _, ok := sf.Tensor(tensor); !ok {
			return nil, "", usagef("%s %s has no tensor %q (it has %s)", what, path, tensor, tensorNames(sf.Tensors))
		}
		b, err := sf.Read(tensor)
		if err != nil {
			return nil, "", inputf("cannot read %s %s: %s", what, path, CleanErr(err))
		}
		return b, tensor, nil
	}
	if shapeText == "" {
		return nil, "", usagef("%s %s is raw bytes (not .npy or .safetensors): give its shape with %s SHAPE", what, path, w.Shape)
	}
	ix, err := CompileShape(shapeText)
	if err != nil {
		return nil, "", inputf("%s: %s", w.Shape, err)
	}
	if want := ix.FootprintBytes(); st.Size() != want {
		return nil, "", inputf("%s %s has %s, but %s needs %s (its footprint)",
			what, path, report.Plural(st.Size(), "byte"), ix.Shape(), report.Plural(want, "byte"))
	}
	b, err := buffer.ReadRaw(path, ix.Shape())
	if err != nil {
		return nil, "", inputf("cannot read %s %s: %s", what, path, CleanErr(err))
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

// ViewArray reads b's elements as the type named name, of the same width, bit for bit
// (NumPy's .view), with the dims and layout kept; what and path name b in messages, and
// view the setting. An empty name returns b itself. The view shares b's memory: b stays
// the one to close.
func ViewArray(b *buffer.Buffer, name, view, what, path string) (*buffer.Buffer, error) {
	if name == "" {
		return b, nil
	}
	dt, ok := layout.DTypeByName(name)
	if !ok || !dt.IsArray() {
		return nil, usagef("unknown %s %q (use XLA's names: bf16, f16, u16, s16, f32, …)", view, name)
	}
	from := b.DType()
	if dt.Bits() != from.Bits() {
		return nil, usagef("%s %s reads %d-bit elements, but %s %s holds %s, %d-bit ones; %s takes a type of the same width: %s",
			view, dt, dt.Bits(), what, path, from, from.Bits(), view, sameWidth(from))
	}
	v, err := b.View(dt)
	if err != nil {
		return nil, inputf("%s %s: %s", view, dt, CleanErr(err))
	}
	return v, nil
}

// sameWidth lists the types that elements of d can be viewed as.
func sameWidth(d layout.DType) string {
	var names []string
	for _, t := range layout.DTypes() {
		if t != d && t.IsArray() && t.Bits() == d.Bits() {
			names = append(names, t.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ViewNote is the note for an In that holds integers converted, as numbers, to a
// floating-point type of the same width: a u16 array holding bf16 bits, as NumPy stores
// bf16 without ml_dtypes, would otherwise turn silently into a wrong image. in names the
// input; view the setting that reads it as bits. Empty when it does not apply.
func ViewNote(src, dst layout.DType, in, view string) string {
	if hint := viewHint(src, dst, in, view); hint != "" {
		return "note: " + hint
	}
	return ""
}

func viewHint(src, dst layout.DType, in, view string) string {
	if !src.IsInteger() || !dst.IsFloat() || src.Bits() != dst.Bits() {
		return ""
	}
	return fmt.Sprintf("%s holds %s integers, converted to %s by value; if they are %s bits, add %s %s", in, src, dst, dst, view, dst)
}
