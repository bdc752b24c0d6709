package convert

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// Writing a converted image to Out, whole or band by band.

// writeArray writes j.Out: hdr (a host file's header, or nothing), then src relaid out
// into dstIx's shape. It writes a temporary file in Out's directory and renames it into place, so
// that a failure leaves Out as it was. It returns the bytes written.
func (j *Job) writeArray(hdr []byte, dstIx *layout.Indexer, src *buffer.Buffer, opts []relayout.Option, prog Progress) (n int64, err error) {
	out, names, l := j.Out, names{}, j.Limits.orDefault()
	prog = orNone(prog)
	dst := dstIx.Shape()
	// Compile the plan(s) first: a shape pair relayout cannot do fails before any file.
	b, banded := relayout.PlanBandsCompiled(dstIx, src.Indexer(), l.BandBytes)
	mem := convertMemory(dstIx, src, b)
	var fill []byte // the padding's bytes, for an Out that is mostly padding (sparse.go)
	if !IsStream(out) && sparseWorth(dstIx, src, b, l.SparseMinBytes) {
		if fill, err = padFill(dst, src.Shape, opts); err != nil {
			return 0, inputf("cannot convert %s to %s: %s", src.Shape, dst, err)
		}
		mem = sparseRun
	}
	if err := j.checkCapacity(out, j.outShown(), int64(len(hdr))+dstIx.FootprintBytes(), mem); err != nil {
		return 0, err
	}
	var whole *relayout.Plan
	if banded {
		err = b.Compile(opts...)
	} else {
		whole, err = relayout.NewPlanCompiled(dstIx, src.Indexer(), opts...)
	}
	if err != nil {
		return 0, inputf("cannot convert %s to %s: %s", src.Shape, dst, err)
	}

	wrap := func(err error) error {
		if j.outName != "" { // a file beside Out is one beside outName
			err = buffer.PathsIn(err, filepath.Dir(out), filepath.Dir(j.outName))
		}
		return names.errf(Output, "cannot write {Out} %s: %s", j.outShown(), err)
	}
	total := dstIx.FootprintBytes()
	prog.Total(total)
	base0 := int64(len(hdr))
	defer prog.Done() // on failure too: the error line must not land on the progress line
	var inner error   // the callback's own errors are worded already
	err = j.WriteOutput(func(f ImageWriter) error {
		if file, ok := f.(*os.File); ok && fill != nil {
			if _, err := f.Write(hdr); err != nil {
				inner = wrap(err)
				return inner
			}
			inner = writeSparse(file, base0, dstIx, src, fill, prog, wrap)
			return inner
		}
		inner = names.writeImage(j.context(), f, hdr, dstIx, src, whole, b, prog, wrap)
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
func (n names) writeImage(ctx context.Context, f ImageWriter, hdr []byte, dst *layout.Indexer, src *buffer.Buffer, whole *relayout.Plan, b *relayout.Bands, prog Progress, wrap func(error) error) error {
	if _, err := f.Write(hdr); err != nil {
		return wrap(err)
	}
	base := int64(len(hdr))
	if b != nil {
		return writeBands(ctx, f, base, src, b, prog, wrap)
	}
	d, err := buffer.NewCompiled(dst)
	if err != nil {
		return n.errf(Output, "cannot hold {Out} in memory: %s", err)
	}
	if src.Len() > 0 {
		if err := whole.Copy(d, src); err != nil {
			return inputf("cannot convert %s to %s: %s", src.Shape, dst.Shape(), err)
		}
	}
	if _, err := (buffer.ChunkedWriter{W: f}).WriteAt(d.Data, base); err != nil {
		return wrap(err)
	}
	prog.Add(int64(len(d.Data)))
	return nil
}

// hostHeader returns the header of a .npy or .safetensors Out holding one row-major
// array of shape dst (nothing for a raw Out).
func (j *Job) hostHeader(kind Format, dst layout.Shape, name string) ([]byte, error) {
	out, n := j.Out, names{}
	var h []byte
	var err error
	switch kind {
	case NPY:
		h, err = npy.HeaderFor(dst.DType, dst.Dims)
	case Safetensors:
		if name == "__metadata__" {
			return nil, n.errf(Setting, "{Tensor}: %q is reserved in safetensors files", name)
		}
		h, err = safetensors.HeaderFor([]safetensors.TensorInfo{{Name: name, DType: dst.DType, Shape: dst.Dims}}, nil)
	}
	if errors.Is(err, buffer.ErrDType) {
		// The library's reason only repeats this one, with its package prefixes.
		return nil, n.errf(Input, "{Out} %s: %s files cannot hold %s elements; write a raw image ({Out} of another name) or pick another dtype with {To}", out, kind, dst.DType)
	}
	if err != nil {
		return nil, n.errf(Input, "{Out} %s: %s files cannot hold %s elements: %s", out, kind, dst.DType, err)
	}
	return h, nil
}
