package convert

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/report"
)

// Job converts the array in In into the layout To gives and writes it to Out (see
// [Job.Run]). Its fields are the settings; the zero value of each is its default.
type Job struct {
	// In is a .npy file, a .safetensors file (Tensor picks the tensor, unless it holds
	// one), or raw bytes of the shape From gives. "-" reads Stdin, and an In that is
	// not a regular file (a FIFO, /dev/stdin on a pipe) In itself, whole into a
	// temporary file first (a .npy or .safetensors stream is known by its name's
	// extension, or without one by its first bytes).
	In string
	// Out ending in .npy or .safetensors gets a row-major host array; any other Out
	// gets the raw image, exactly the layout's footprint. Out is written to a temporary
	// file in its directory and renamed into place (a symlink's target is replaced and
	// the link stays); "-", /dev/stdout, a character device or a FIFO is streamed into.
	// With All, Out is a new directory.
	Out string
	// To is Out's layout; see [Job.Target] for its forms. DType sets the element type
	// with a layout alone or tpu:GEN (with All, of the floating-point tensors only).
	To, DType string
	// From is the shape, with its layout, of a raw In.
	From string
	// Tensor names the tensor to read from a .safetensors In, or to write to a
	// .safetensors Out (default: the source tensor's name, else "tensor").
	Tensor string
	// All converts every tensor of a .safetensors In into the directory Out: one .bin
	// per tensor and manifest.json ([Manifest]). To is then tpu:GEN or a layout alone.
	All bool
	// Force lets All replace an Out directory that an earlier All wrote (and only
	// such a one), atomically.
	Force bool
	// Pad is what Out's padding holds: "zero" (also ""), "leave" (not written), or a
	// number Out's element type holds exactly.
	Pad string
	// View reads In's elements as this type, of the same width, bit for bit.
	View string

	Stdin    io.Reader     // for In "-"; default os.Stdin
	Stdout   io.Writer     // for Out "-" or /dev/stdout; default os.Stdout
	Progress Progress      // hears the bytes written; may be nil
	Note     func(Message) // hears notes (a guessed default, integers read as numbers); may be nil
	Limits   Limits        // memory and disk; zero: the defaults and the system's
	Temps    Temps         // hears of temporary outputs, to remove them on a signal; may be nil

	ctx     context.Context // RunContext's; nil: never done
	inName  string          // what messages call In, when In is a temporary copy of it
	outName string          // what messages call Out, when Out is a temporary that becomes it
}

// inShown is what messages call In.
func (j *Job) inShown() string {
	if j.inName != "" {
		return j.inName
	}
	return j.In
}

// outShown is what messages call Out.
func (j *Job) outShown() string {
	if j.outName != "" {
		return j.outName
	}
	return j.Out
}

// Result is what a Job wrote.
type Result struct {
	Shape    layout.Shape // Out's shape and layout (one array)
	Bytes    int64        // bytes written to Out (one array)
	Manifest *Manifest    // with All: the directory's manifest
}

// Run does the job. Every error is an *[Error]; nothing is left beside Out when it
// fails, and Out is as it was.
func (j *Job) Run() (*Result, error) { return j.RunContext(context.Background()) }

// RunContext is Run, stopped when ctx is done: between bands of a large Out, and
// between the tensors of All. The error then unwraps to ctx.Err(), and Out is as it
// was.
func (j *Job) RunContext(ctx context.Context) (*Result, error) {
	c := *j
	c.ctx = ctx
	r, err := c.run()
	return r, typed(err)
}

// context is the job's context (see RunContext).
func (j *Job) context() context.Context {
	if j.ctx == nil {
		return context.Background()
	}
	return j.ctx
}

func (j *Job) note(m Message) {
	if j.Note != nil {
		j.Note(m)
	}
}

func (j *Job) run() (*Result, error) {
	n := names{}
	if err := n.localOnly("{In}", j.In); err != nil {
		return nil, err
	}
	if err := n.localOnly("{Out}", j.Out); err != nil {
		return nil, err
	}
	if j.In != "-" && !isStream(j.In) {
		return j.runFile()
	}
	name, ext := StdinName, ""
	if j.In != "-" {
		name = j.In
		if k := FormatOf(j.In); k != Raw {
			ext = filepath.Ext(j.In)
		}
	}
	if j.All && j.In == "-" {
		return nil, n.errf(Setting, "{In} %s is for one array; {All} records {In} in its manifest, so give a file", name)
	}
	if j.All {
		return nil, n.errf(Setting, "{In} %s is not a regular file but a stream (a pipe or device), read once, for one array; {All} records {In} in its manifest, so give a file", name)
	}
	var r io.Reader = j.Stdin
	if j.In != "-" {
		f, err := os.Open(j.In)
		if err != nil {
			return nil, n.errf(Input, "cannot read {In} %s: %s", name, err)
		}
		defer f.Close()
		r = f
	} else if r == nil {
		r = os.Stdin
	}
	tmp, cleanup, err := n.spool(r, name, ext)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	sub := *j
	sub.In, sub.inName = tmp, name
	return sub.runFile()
}

func (j *Job) runFile() (*Result, error) {
	n := names{}
	in, out := j.inShown(), j.Out // in names In; j.In is the file read
	if err := n.checkOutName(out); err != nil {
		return nil, err
	}
	inKind, outKind := FormatOf(j.In), FormatOf(out)
	padOpt, err := PadOption(j.Pad)
	if err != nil {
		return nil, err
	}
	if j.Force && !j.All {
		return nil, n.errf(Setting, "{Force} replaces the {Out} directory of {All}; a single {Out} file is always replaced, atomically")
	}
	if j.From != "" && inKind != Raw {
		return nil, n.errf(Setting, "{From} is for a raw {In}; %s is a %s file with its own dtype and shape", in, inKind)
	}
	if j.All {
		if inKind != Safetensors {
			return nil, n.errf(Setting, "{All} converts every tensor of a .safetensors {In}; %s is not one", in)
		}
		if j.Tensor != "" {
			return nil, n.errf(Setting, "{All} and {Tensor} exclude each other")
		}
		if j.View != "" {
			return nil, n.errf(Setting, "{View} reads one array; with {All}, store the tensors in their own dtype (safetensors has bf16)")
		}
		return j.runAll(padOpt)
	}
	if err := j.checkOut(j.In); err != nil {
		return nil, err
	}
	inTensor := ""
	switch {
	case inKind == Safetensors:
		inTensor = j.Tensor
	case j.Tensor != "" && outKind != Safetensors:
		return nil, n.errf(Setting, "{Tensor} names the tensor of a .safetensors {In} or {Out}; neither %s nor %s is one", in, out)
	}
	src, name, err := openArray(j.In, in, inKind, j.From, inTensor, ArrayWords{What: "In", Shape: "From", Tensor: "Tensor"})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if src, err = ViewArray(src, j.View, "View", "In", in); err != nil {
		return nil, err
	}
	dstIx, err := j.target(src.Shape, outKind, false)
	if err != nil {
		return nil, err
	}
	dst := dstIx.Shape()
	if why := Guess(j.To, dst); why != "" {
		j.note(textMessage(GuessLine(j.To, dst, why, "{To} hlo:FILE:param=N")))
	}
	if note := ViewNote(src.DType(), dst.DType, "{In}", "{View}"); note != "" && j.View == "" {
		j.note(textMessage(note))
	}
	if err := CheckPad(j.Pad, dst.DType); err != nil {
		return nil, err
	}
	hdr, err := j.hostHeader(outKind, dst, outTensorName(j.Tensor, name))
	if err != nil {
		return nil, err
	}
	var written int64
	if err := n.guardMapped(j.In, in, src, func() (err error) {
		written, err = j.writeArray(hdr, dstIx, src, []relayout.Option{padOpt}, j.Progress)
		return err
	}); err != nil {
		return nil, err
	}
	return &Result{Shape: dst, Bytes: written}, nil
}

// outTensorName is the name of the tensor in a .safetensors Out: Tensor, else the
// source tensor's name, else "tensor".
func outTensorName(setting, srcName string) string {
	switch {
	case setting != "":
		return setting
	case srcName != "":
		return srcName
	}
	return "tensor"
}

// runAll converts every tensor of a safetensors In into the new directory Out.
func (j *Job) runAll(padOpt relayout.Option) (*Result, error) {
	n := names{}
	in, out := j.In, j.Out
	if j.To == "" {
		return nil, n.errf(Setting, "{All} needs {To} tpu:GEN or a layout alone such as '{1,0:T(8,128)}'")
	}
	if !strings.HasPrefix(j.To, "tpu:") && !strings.HasPrefix(strings.TrimSpace(j.To), "{") {
		// Each tensor keeps its own dims, so To names no shape; a dtype alone would
		// mean row-major host files, which All does not write.
		hint := ""
		if _, ok := layout.DTypeByName(strings.TrimSpace(j.To)); ok {
			hint = "; {DType} sets the element type of the images"
		}
		return nil, n.errf(Setting, "{All} takes {To} tpu:GEN or a layout alone such as '{1,0:T(8,128)}', not %q"+hint, j.To)
	}
	dest, err := j.allTarget() // a symlink's target, so that the link stays
	if err != nil {
		return nil, err
	}
	if j.Force {
		if err := n.checkReplace(dest, in); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(in); err != nil {
		return nil, n.errf(Input, "cannot read {In} %s: %s", in, err)
	}
	sf, err := safetensors.Open(in)
	if err != nil {
		return nil, n.pathErrf(Input, in, "cannot read {In} %s: %s", in, err)
	}
	targets, err := j.allTargets(sf) // every one before anything is written
	if err != nil {
		return nil, err
	}
	// A killed earlier run left its temporary tree: nobody holds it any more.
	buffer.RemoveStaleTemps(dest)
	temps := j.temps()
	release := temps.Hold()
	tmp, unlock, err := buffer.MkdirTempLocked(dest)
	if err == nil {
		temps.Track(tmp)
	}
	release()
	if err != nil {
		return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	done := false
	batch := buffer.DeferSync(tmp) // the files are synced together, before the rename
	defer func() {
		batch.Cancel()
		if !done {
			os.RemoveAll(tmp)
		}
		temps.Untrack(tmp)
		unlock()
	}()
	prog := orNone(j.Progress)
	m, err := j.writeTensors(sf, targets, tmp, padOpt, prog)
	if err != nil {
		return nil, err
	}
	js, err := report.JSON(m)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), js, 0o644); err != nil {
		return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	batch.Add(filepath.Join(tmp, "manifest.json"))
	if err := batch.Wait(); err != nil {
		return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	if err := buffer.RemoveTempMarker(tmp); err != nil {
		return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	if err := j.place(tmp, dest); err != nil {
		return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
	}
	done = true
	temps.Placed()
	prog.Done() // on success only: a failed All leaves the display as it was
	return &Result{Manifest: m}, nil
}

// allTargets resolves the layout of every tensor of sf for All, and notes the
// defaults that are guesses.
func (j *Job) allTargets(sf *safetensors.File) ([]*layout.Indexer, error) {
	n := names{}
	targets := make([]*layout.Indexer, len(sf.Tensors))
	guesses := Guesses{To: j.To}
	for i, t := range sf.Tensors {
		ix, err := j.target(t.BufferShape(), Raw, true)
		if err == nil {
			err = CheckPad(j.Pad, ix.Shape().DType)
		}
		if err != nil {
			return nil, n.wrapf(err, "tensor %q: %s", t.Name, err)
		}
		targets[i] = ix
		guesses.Add(t.Name, ix.Shape())
	}
	if note := guesses.Line(len(sf.Tensors), "{To} hlo:FILE:param=N"); note != "" {
		j.note(textMessage(note))
	}
	return targets, nil
}

// writeTensors writes every tensor of sf, relaid out into its target, as a file of the
// directory tmp that becomes Out, and returns their manifest.
func (j *Job) writeTensors(sf *safetensors.File, targets []*layout.Indexer, tmp string, padOpt relayout.Option, prog Progress) (*Manifest, error) {
	n, in, out := names{}, j.In, j.Out
	var total int64
	for _, ix := range targets {
		total += ix.FootprintBytes()
	}
	prog.Total(total)
	m := &Manifest{Format: AllFormat, Source: filepath.Base(in), To: j.To, Tensors: []Entry{}}
	files := safetensors.UniqueNames{Suffix: ".bin"} // never manifest.json
	for i, t := range sf.Tensors {
		if err := j.context().Err(); err != nil {
			return nil, n.errf(Output, "cannot write {Out} %s: %s", out, err)
		}
		file := files.Name(t.Name)
		src, err := sf.Read(t.Name)
		if err != nil {
			return nil, n.errf(Input, "cannot read tensor %q of {In} %s: %s", t.Name, in, err)
		}
		one := *j
		one.Out, one.outName = filepath.Join(tmp, file), filepath.Join(out, file) // tmp becomes Out
		var k int64
		err = n.guardMapped(in, in, src, func() (err error) {
			k, err = one.writeArray(nil, targets[i], src, []relayout.Option{padOpt}, nil)
			return err
		})
		src.Close()
		if err != nil {
			return nil, n.wrapf(err, "tensor %q: %s", t.Name, err)
		}
		prog.Add(k)
		m.Tensors = append(m.Tensors, Entry{
			Name: t.Name, SourceDType: t.DType.String(), SourceShape: nonNil(t.Shape),
			Layout: targets[i].Shape().String(), File: file, Bytes: k,
		})
	}
	return m, nil
}

// nonNil returns s, or an empty slice when s is nil, so JSON prints [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
