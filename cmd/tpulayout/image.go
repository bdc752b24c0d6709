package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// Writing a converted image to OUT, whole or band by band.

// checkOut fails early when OUT cannot be a file we replace: a directory, or IN itself.
func checkOut(out, in string) error {
	if isStream(out) {
		return nil // written in place (see openStream)
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil // a missing OUT is fine; an unwritable directory shows when we create it
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("cannot write OUT %s: it is not a regular file", out)
	}
	if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
		return usagef("OUT %s is IN itself; write to another file", out)
	}
	return nil
}

// convertFile writes OUT: hdr (a host file's header, or nothing), then src relaid out
// into dst. It writes a temporary file in OUT's directory and renames it into place, so
// that a failure leaves OUT as it was. It returns the bytes written.
func convertFile(out string, hdr []byte, dst layout.Shape, src *buffer.Buffer, opts []relayout.Option, prog *progress) (n int64, err error) {
	dstIx, err := layout.Compile(dst)
	if err != nil {
		return 0, fmt.Errorf("OUT shape %s: %s", dst, cleanErr(err))
	}
	// Compile the plan(s) first: a shape pair relayout cannot do fails before any file.
	b, banded := relayout.PlanBands(dst, src.Shape, bandBytes)
	mem := convertMemory(dstIx, src, b)
	var fill []byte // the padding's bytes, for an OUT that is mostly padding (sparse.go)
	if !isStream(out) && sparseWorth(dstIx, src, b) {
		if fill, err = padFill(dst, src.Shape, opts); err != nil {
			return 0, fmt.Errorf("cannot convert %s to %s: %s", src.Shape, dst, cleanErr(err))
		}
		mem = sparseRun
	}
	if err := checkCapacity(out, int64(len(hdr))+dstIx.FootprintBytes(), mem); err != nil {
		return 0, err
	}
	var whole *relayout.Plan
	if banded {
		err = b.Compile(opts...)
	} else {
		whole, err = relayout.NewPlan(dst, src.Shape, opts...)
	}
	if err != nil {
		return 0, fmt.Errorf("cannot convert %s to %s: %s", src.Shape, dst, cleanErr(err))
	}

	wrap := func(err error) error { return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err)) }
	total := dstIx.FootprintBytes()
	if prog != nil {
		prog.total = total
	}
	base0 := int64(len(hdr))
	defer prog.finish() // on failure too: the error line must not land on the progress line
	var inner error     // the callback's own errors are worded already
	err = writeOutput(out, func(f imageWriter) error {
		if file, ok := f.(*os.File); ok && fill != nil {
			if _, err := f.Write(hdr); err != nil {
				inner = wrap(err)
				return inner
			}
			inner = writeSparse(file, base0, dstIx, src, fill, prog, wrap)
			return inner
		}
		inner = writeImage(f, hdr, dst, src, whole, b, prog, wrap)
		return inner
	})
	if err != nil {
		if err == inner {
			return 0, err
		}
		return 0, wrap(err)
	}
	return base0 + total, nil
}

// writeImage writes the header and then the device image (whole or band by band) into f.
func writeImage(f imageWriter, hdr []byte, dst layout.Shape, src *buffer.Buffer, whole *relayout.Plan, b *relayout.Bands, prog *progress, wrap func(error) error) error {
	if _, err := f.Write(hdr); err != nil {
		return wrap(err)
	}
	base := int64(len(hdr))
	if b != nil {
		return writeBands(f, base, src, b, prog, wrap)
	}
	d, err := buffer.New(dst)
	if err != nil {
		return fmt.Errorf("cannot hold OUT in memory: %s", cleanErr(err))
	}
	if src.Len() > 0 {
		if err := whole.Copy(d, src); err != nil {
			return fmt.Errorf("cannot convert %s to %s: %s", src.Shape, dst, cleanErr(err))
		}
	}
	if _, err := (buffer.ChunkedWriter{W: f}).WriteAt(d.Data, base); err != nil {
		return wrap(err)
	}
	prog.add(int64(len(d.Data)))
	return nil
}

// hostHeader returns the header of a .npy or .safetensors OUT holding one row-major
// array of shape dst (nothing for a raw OUT).
func hostHeader(kind fileKind, out string, dst layout.Shape, name string) ([]byte, error) {
	var h []byte
	var err error
	switch kind {
	case kindNPY:
		h, err = npy.HeaderFor(dst.DType, dst.Dims)
	case kindSafetensors:
		if name == "__metadata__" {
			return nil, usagef("--tensor: %q is reserved in safetensors files", name)
		}
		h, err = safetensors.HeaderFor([]safetensors.TensorInfo{{Name: name, DType: dst.DType, Shape: dst.Dims}}, nil)
	}
	if errors.Is(err, buffer.ErrDType) {
		// The library's reason only repeats this one, with its package prefixes.
		return nil, fmt.Errorf("OUT %s: %s files cannot hold %s elements; write a raw image (OUT of another name) or pick another dtype with --to", out, kind, dst.DType)
	}
	if err != nil {
		return nil, fmt.Errorf("OUT %s: %s files cannot hold %s elements: %s", out, kind, dst.DType, cleanErr(err))
	}
	return h, nil
}
