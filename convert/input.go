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

// ArrayWords are the fields that messages about an input array name: What holds it
// ("In", "Ref"), and the settings that give a raw file's Shape and pick a Tensor.
type ArrayWords struct{ What, Shape, Tensor string }

// OpenArray opens an input array: a .npy file, a tensor of a .safetensors file (tensor,
// or the only one), or a raw file of the shape shapeText gives. It returns the buffer
// (possibly a read-only mapping: Close it) and the tensor's name for safetensors.
func OpenArray(path string, f Format, shapeText, tensor string, w ArrayWords) (*buffer.Buffer, string, error) {
	return openArray(path, path, f, shapeText, tensor, w)
}

// openArray is OpenArray reading the file file, which messages call path.
func openArray(file, path string, f Format, shapeText, tensor string, w ArrayWords) (*buffer.Buffer, string, error) {
	what, shape, tensorField := "{"+w.What+"}", "{"+w.Shape+"}", "{"+w.Tensor+"}"
	st, err := os.Stat(file)
	if err != nil {
		return nil, "", inputf("cannot read "+what+" %s: %s", path, buffer.NamePathError(err, path))
	}
	if st.IsDir() {
		return nil, "", inputf("cannot read "+what+" %s: it is a directory", path)
	}
	if tensor != "" && f != Safetensors {
		return nil, "", usagef(tensorField+" picks a tensor of a .safetensors "+what+"; %s is a %s file", path, f)
	}
	switch f {
	case NPY:
		b, err := npy.ReadNamed(file, path)
		if err != nil {
			return nil, "", names{}.pathErrf(Input, path, "cannot read "+what+" %s: %s", path, err)
		}
		return b, "", nil
	case Safetensors:
		sf, err := safetensors.OpenNamed(file, path)
		if err != nil {
			return nil, "", names{}.pathErrf(Input, path, "cannot read "+what+" %s: %s", path, err)
		}
		if tensor == "" {
			if len(sf.Tensors) != 1 {
				return nil, "", usagef(what+" %s holds %s (%s); pick one with "+tensorField+" NAME", path,
					report.Plural(int64(len(sf.Tensors)), "tensor"), tensorNames(sf.Tensors))
			}
			tensor = sf.Tensors[0].Name
		}
		if _, ok := sf.Tensor(tensor); !ok {
			return nil, "", usagef(what+" %s has no tensor %q (it has %s)", path, tensor, tensorNames(sf.Tensors))
		}
		b, err := sf.Read(tensor)
		if err != nil {
			return nil, "", inputf("cannot read "+what+" %s: %s", path, err)
		}
		return b, tensor, nil
	}
	if shapeText == "" {
		return nil, "", usagef(what+" %s is raw bytes (not .npy or .safetensors): give its shape with "+shape+" SHAPE", path)
	}
	ix, err := CompileShape(shapeText)
	if err != nil {
		return nil, "", inputf(shape+": %s", err)
	}
	if want := ix.FootprintBytes(); st.Size() != want {
		return nil, "", inputf(what+" %s has %s, but %s needs %s (its footprint)",
			path, report.Plural(st.Size(), "byte"), ix.Shape(), report.Plural(want, "byte"))
	}
	b, err := buffer.ReadRawNamed(file, path, ix.Shape())
	if err != nil {
		return nil, "", inputf("cannot read "+what+" %s: %s", path, err)
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
// (NumPy's .view), with the dims and layout kept; messages name b by the field what
// and path, and the setting by the field view. An empty name returns b itself. The view shares b's memory: b stays
// the one to close.
func ViewArray(b *buffer.Buffer, name, view, what, path string) (*buffer.Buffer, error) {
	if name == "" {
		return b, nil
	}
	view, what = "{"+view+"}", "{"+what+"}"
	dt, ok := layout.DTypeByName(name)
	if !ok || !dt.IsArray() {
		return nil, usagef("unknown "+view+" %q (use XLA's names: bf16, f16, u16, s16, f32, …)", name)
	}
	from := b.DType()
	if dt.Bits() != from.Bits() {
		return nil, usagef(view+" %s reads %d-bit elements, but "+what+" %s holds %s, %d-bit ones; "+view+" takes a type of the same width: %s",
			dt, dt.Bits(), path, from, from.Bits(), sameWidth(from))
	}
	v, err := b.View(dt)
	if err != nil {
		return nil, inputf(view+" %s: %s", dt, err)
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
