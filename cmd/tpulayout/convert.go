package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/tpu"
)

var convertVerb = &verb{
	name:     "convert",
	synopsis: "IN OUT [--to SHAPE|tpu:GEN] [flags]",
	summary:  "a host array to a device image, or back",
	detail: `Convert relays out the array in IN into the layout --to gives and writes it to OUT.

IN is a .npy file (dtype and shape from its header, C or Fortran order), a .safetensors
file (--tensor NAME picks the tensor; a file with one tensor needs none), or, under any
other name, raw bytes whose shape and layout --from gives (a device image, say).

--to is the layout of OUT:
  bf16[4096,4096]{1,0:T(8,128)(2,1)}  a shape: its dims must be IN's; another dtype converts
                                      (f32 to bf16 and f16 round to nearest even)
  '{1,0:T(8,128)(2,1)}'               a layout alone, for IN's dims and --dtype (default IN's)
  tpu:v5e                             the generation's default device layout for IN's shape
                                      and --dtype; the chosen shape is printed
  f32                                 a dtype alone: row-major, for host files

OUT ending in .npy or .safetensors gets the host array back, row-major (the reverse job:
--from a device layout with a raw IN; --to, when given, sets the host dtype, and
--tensor the tensor's name, default "tensor"). Any other OUT gets the raw device image:
exactly the layout's footprint, padding filled as --pad says (a number must be one
OUT's element type holds exactly). OUT is written to a temporary file in its directory
and renamed into place, so a failure, a panic or a signal leaves no partial OUT; a
symlink OUT is replaced at its target and stays a link. OUT '-', /dev/stdout, a
character device or a FIFO is streamed into in place (stdout then holds the image
alone). IN is only read; an IN truncated meanwhile is an error naming it.

--all converts every tensor of a .safetensors IN into OUT, a new directory of images
(one .bin per tensor) and manifest.json listing each tensor's name, source dtype and
shape, device layout, file and size. It takes --to tpu:GEN or a layout alone; --dtype
then applies to the floating-point tensors only.

Large inputs are memory-mapped and converted in bands of rows so that memory use stays
bounded: bands of OUT's majormost dim, read from IN's rows when it is majormost there
too, or gathered from a row-major IN for an OUT of 512 MiB or more (a transposing
device layout; the reverse job converts it in one piece). Stdout gets the shape of
OUT (with --all, one line per tensor); progress goes to stderr when it is a terminal,
or with --progress.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		c := &convertFlags{}
		fs.StringVar(&c.to, "to", "", "the `LAYOUT` of OUT: a shape, a layout {…} alone, a dtype, or tpu:GEN")
		fs.StringVar(&c.from, "from", "", "the `SHAPE` (with its layout) of a raw IN")
		fs.StringVar(&c.dtype, "dtype", "", "element type `T` of OUT with a layout alone or tpu:GEN (default: IN's)")
		fs.StringVar(&c.tensor, "tensor", "", "the tensor `NAME` to read from a .safetensors IN, or to write to a .safetensors OUT")
		fs.BoolVar(&c.all, "all", false, "convert every tensor of a .safetensors IN into the directory OUT")
		fs.StringVar(&c.pad, "pad", "zero", "what OUT's padding holds, `PAD`: zero, leave (not written), or a number OUT's element type holds exactly")
		fs.BoolVar(&c.progress, "progress", false, "show progress on stderr even when it is not a terminal")
		fs.BoolVar(&c.force, "force", false, "with --all, replace an existing OUT directory of an earlier --all, atomically")
		fs.StringVar(&c.view, "view", "", "read IN's elements as `T`, a type of the same width, bit for bit (a u16 .npy holding bf16 bits: --view bf16)")
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "IN", "OUT"); err != nil {
				return err
			}
			return c.run(pos[0], pos[1], w)
		}
	},
}

// bandBytes is the size aimed at for one band of a banded conversion (see planBands);
// tests lower it.
var bandBytes int64 = 64 << 20

type convertFlags struct {
	to, from, dtype, tensor, pad string
	all, progress                bool
	view                         string
	force                        bool
}

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

func (c *convertFlags) run(in, out string, w io.Writer) error {
	if err := checkOutName(out); err != nil {
		return err
	}
	inKind, outKind := kindOf(in), kindOf(out)
	padOpt, err := padOption(c.pad)
	if err != nil {
		return err
	}
	if c.force && !c.all {
		return usagef("--force replaces the OUT directory of --all; a single OUT file is always replaced, atomically")
	}
	if c.from != "" && inKind != kindRaw {
		return usagef("--from is for a raw IN; %s is a %s file with its own dtype and shape", in, inKind)
	}
	if c.all {
		if inKind != kindSafetensors {
			return usagef("--all converts every tensor of a .safetensors IN; %s is not one", in)
		}
		if c.tensor != "" {
			return usagef("--all and --tensor exclude each other")
		}
		if c.view != "" {
			return usagef("--view reads one array; with --all, store the tensors in their own dtype (safetensors has bf16)")
		}
		return c.runAll(in, out, padOpt, w)
	}
	if err := checkOut(out, in); err != nil {
		return err
	}
	inTensor := ""
	switch {
	case inKind == kindSafetensors:
		inTensor = c.tensor
	case c.tensor != "" && outKind != kindSafetensors:
		return usagef("--tensor names the tensor of a .safetensors IN or OUT; neither %s nor %s is one", in, out)
	}
	src, name, err := openArray(in, inKind, c.from, "--from", inTensor, "IN")
	if err != nil {
		return err
	}
	defer src.Close()
	if src, err = viewArray(src, c.view, "IN", in); err != nil {
		return err
	}
	dst, err := resolveTarget(c.to, c.dtype, src.Shape, outKind, false)
	if err != nil {
		return err
	}
	if note := viewNote(src.DType(), dst.DType); note != "" && c.view == "" {
		fmt.Fprintf(progressOut, "tpulayout convert: %s\n", note)
	}
	if err := checkPad(c.pad, dst.DType); err != nil {
		return err
	}
	hdr, err := hostHeader(outKind, out, dst, outTensorName(c.tensor, name))
	if err != nil {
		return err
	}
	prog := newProgress(c.progress, "convert", 0)
	if err := guardMapped(in, src, func() error {
		_, err := convertFile(out, hdr, dst, src, []relayout.Option{padOpt}, prog)
		return err
	}); err != nil {
		return err
	}
	if isStdout(out) {
		return nil // standard output holds the image alone
	}
	_, err = fmt.Fprintln(w, dst.String())
	return err
}

// outTensorName is the name of the tensor in a .safetensors OUT: --tensor, else the
// source tensor's name, else "tensor".
func outTensorName(flagName, srcName string) string {
	switch {
	case flagName != "":
		return flagName
	case srcName != "":
		return srcName
	}
	return "tensor"
}

// padOption reads --pad.
func padOption(s string) (relayout.Option, error) {
	switch strings.ToLower(s) {
	case "zero", "zeros":
		return relayout.WithPadZero(), nil
	case "leave":
		return relayout.WithPadLeave(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrRange) {
		return nil, usagef("--pad %s is outside float64's range, the widest there is", s)
	}
	if err != nil {
		return nil, usagef("bad --pad %q: want zero, leave or a number", s)
	}
	return relayout.WithPadValue(v), nil
}

// fileErr describes a failed file operation without Go's "open PATH:" prefix.
func fileErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return cleanErr(err)
}

// cleanErr prints an error of the library packages without their package prefixes.
func cleanErr(err error) string {
	s := err.Error()
	for _, p := range []string{"buffer: ", "relayout: ", "tpu: ", "layout: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
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

// resolveTarget works out OUT's shape from --to and --dtype for a source of shape src.
// floatOnly applies --dtype to floating-point sources only (for --all).
func resolveTarget(to, dtypeText string, src layout.Shape, outKind fileKind, floatOnly bool) (layout.Shape, error) {
	dt := src.DType
	if dtypeText != "" {
		d, ok := layout.DTypeByName(dtypeText)
		if !ok || !d.IsArray() {
			return layout.Shape{}, usagef("unknown --dtype %q (use XLA's names: f32, bf16, f16, s8, …)", dtypeText)
		}
		if !floatOnly || src.DType.IsFloat() {
			dt = d
		}
	}
	dims := src.Dims
	srcText := layout.NewShape(src.DType, dims...).String()
	var dst layout.Shape
	switch {
	case to == "":
		if outKind == kindRaw {
			return layout.Shape{}, usagef("missing --to: the layout of the device image OUT, such as 'bf16[…]{1,0:T(8,128)(2,1)}', a layout '{1,0:T(8,128)(2,1)}' or tpu:v5e")
		}
		dst = layout.NewShape(dt, dims...)
	case strings.HasPrefix(to, "tpu:"):
		gen, err := tpu.ParseGeneration(strings.TrimPrefix(to, "tpu:"))
		if err != nil {
			return layout.Shape{}, usagef("bad --to %q: %s", to, cleanErr(err))
		}
		s, err := tpu.DefaultShape(gen, dt, dims)
		if err != nil {
			return layout.Shape{}, fmt.Errorf("no default %s layout for %s: %s", gen, layout.NewShape(dt, dims...), cleanErr(err))
		}
		dst = s
	case strings.HasPrefix(strings.TrimSpace(to), "{"):
		if _, err := layout.ParseLayout(to); err != nil {
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				return layout.Shape{}, fmt.Errorf("bad --to layout %q: at byte %d: %s", pe.Input, pe.Pos, pe.Msg)
			}
			return layout.Shape{}, fmt.Errorf("bad --to layout %q: %s", to, cleanErr(err))
		}
		text := dt.String() + fmtDims(dims) + strings.TrimSpace(to)
		s, err := layout.Parse(text)
		if err != nil {
			msg := cleanErr(err)
			var pe *layout.ParseError
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return layout.Shape{}, fmt.Errorf("--to layout %s does not fit IN's %s: %s", to, srcText, msg)
		}
		dst = s
	default:
		if d, ok := layout.DTypeByName(to); ok && d.IsArray() {
			if dtypeText != "" && d != dt {
				return layout.Shape{}, usagef("--to %s and --dtype %s disagree", to, dtypeText)
			}
			dst = layout.NewShape(d, dims...)
			break
		}
		ix, err := compileShape(to)
		if err != nil {
			return layout.Shape{}, fmt.Errorf("--to: %w", err)
		}
		dst = ix.Shape()
		if !slices.Equal(dst.Dims, dims) {
			return layout.Shape{}, fmt.Errorf("--to %s has dims %s, but IN %s has dims %s", to, fmtDims(dst.Dims), srcText, fmtDims(dims))
		}
		if dtypeText != "" && dst.DType != dt {
			return layout.Shape{}, usagef("--to %s and --dtype %s disagree", to, dtypeText)
		}
	}
	ix, err := layout.Compile(dst)
	if err != nil {
		return layout.Shape{}, fmt.Errorf("OUT shape %s: %s", dst, cleanErr(err))
	}
	dst = ix.Shape()
	if outKind != kindRaw && !isRowMajor(ix) {
		return layout.Shape{}, usagef("OUT is a %s file, which holds a row-major host array, but --to %s is a device layout; write the device image to a raw file (say OUT.bin)", outKind, to)
	}
	return dst, nil
}

// isRowMajor reports whether ix is the dense row-major layout of whole-byte elements.
func isRowMajor(ix *layout.Indexer) bool {
	return ix.IsRowMajorDense() && ix.Shape().Layout.PrefixBytes == 0
}

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
	var inner error // the callback's own errors are worded already
	err = writeOutput(out, func(f imageWriter) error {
		inner = writeImage(f, hdr, dst, src, whole, b, prog, wrap)
		return inner
	})
	if err != nil {
		if err == inner {
			return 0, err
		}
		return 0, wrap(err)
	}
	prog.finish()
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
	if _, err := f.WriteAt(d.Data, base); err != nil {
		return wrap(err)
	}
	prog.add(int64(len(d.Data)))
	return nil
}

// writeBands converts src band by band (see [relayout.Bands.Run]) and writes each band
// at its place in f, after base bytes.
func writeBands(f imageWriter, base int64, src *buffer.Buffer, b *relayout.Bands, prog *progress, wrap func(error) error) error {
	var werr error
	err := b.Run(src, func(bd relayout.Band, p []byte) error {
		if _, err := f.WriteAt(p, base+bd.DstOff); err != nil {
			werr = wrap(err)
			return werr
		}
		prog.add(bd.DstLen)
		return nil
	})
	if err != nil && err != werr {
		return errors.New(cleanErr(err))
	}
	return err
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
	if err != nil {
		return nil, fmt.Errorf("OUT %s: %s files cannot hold %s elements: %w", out, kind, dst.DType, err)
	}
	return h, nil
}

// manifestEntry is one tensor of a --all conversion.
type manifestEntry struct {
	Name        string  `json:"name"`
	SourceDType string  `json:"source_dtype"`
	SourceShape []int64 `json:"source_shape"`
	Layout      string  `json:"layout"`
	File        string  `json:"file"`
	Bytes       int64   `json:"bytes"`
}

type manifest struct {
	Source  string          `json:"source"`
	To      string          `json:"to"`
	Tensors []manifestEntry `json:"tensors"`
}

// runAll converts every tensor of a safetensors IN into the new directory out.
func (c *convertFlags) runAll(in, out string, padOpt relayout.Option, w io.Writer) error {
	if c.to == "" {
		return usagef("--all needs --to tpu:GEN or a layout alone such as '{1,0:T(8,128)}'")
	}
	if !strings.HasPrefix(c.to, "tpu:") && !strings.HasPrefix(strings.TrimSpace(c.to), "{") {
		return usagef("--all takes --to tpu:GEN or a layout alone such as '{1,0:T(8,128)}', not %q, since tensors differ in shape", c.to)
	}
	dest, err := allTarget(out, c.force) // a symlink's target, so that the link stays
	if err != nil {
		return err
	}
	if c.force {
		if err := checkReplace(dest, in); err != nil {
			return err
		}
	}
	if _, err := os.Stat(in); err != nil {
		return fmt.Errorf("cannot read IN %s: %s", in, fileErr(err))
	}
	sf, err := safetensors.Open(in)
	if err != nil {
		return fmt.Errorf("cannot read IN %s: %s", in, strings.TrimPrefix(cleanErr(err), in+": "))
	}
	// Resolve every target before writing anything.
	targets := make([]layout.Shape, len(sf.Tensors))
	for i, t := range sf.Tensors {
		dst, err := resolveTarget(c.to, c.dtype, t.BufferShape(), kindRaw, true)
		if err == nil {
			err = checkPad(c.pad, dst.DType)
		}
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		targets[i] = dst
	}
	parent := filepath.Dir(filepath.Clean(dest))
	release := holdSignals()
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dest))+".tmp*")
	if err == nil {
		trackHeld(tmp)
	}
	release()
	if err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
		untrack(tmp)
	}()
	var total int64
	for _, t := range targets {
		if ix, err := layout.Compile(t); err == nil {
			total += ix.FootprintBytes()
		}
	}
	prog := newProgress(c.progress, "convert", total)
	m := manifest{Source: filepath.Base(in), To: c.to, Tensors: []manifestEntry{}}
	used := map[string]bool{"manifest.json": true}
	for i, t := range sf.Tensors {
		file := fileNameFor(t.Name, used)
		src, err := sf.Read(t.Name)
		if err != nil {
			return fmt.Errorf("cannot read tensor %q of IN %s: %s", t.Name, in, cleanErr(err))
		}
		var n int64
		err = guardMapped(in, src, func() (err error) {
			n, err = convertFile(filepath.Join(tmp, file), nil, targets[i], src, []relayout.Option{padOpt}, nil)
			return err
		})
		src.Close()
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		prog.add(n)
		m.Tensors = append(m.Tensors, manifestEntry{
			Name: t.Name, SourceDType: t.DType.String(), SourceShape: nonNil(t.Shape),
			Layout: targets[i].String(), File: file, Bytes: n,
		})
	}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	js = append(compactArrays(js), '\n')
	if err := os.WriteFile(filepath.Join(tmp, "manifest.json"), js, 0o644); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if err := c.place(tmp, dest); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	done = true
	prog.finish()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range m.Tensors {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", nameText(e.Name), e.Layout, filepath.Join(out, e.File))
	}
	fmt.Fprintf(tw, "manifest\t\t%s\n", filepath.Join(out, "manifest.json"))
	return tw.Flush()
}

// fileNameFor turns a tensor name into a unique file name: characters other than
// letters, digits, '.', '-' and '_' become '_', a long name is shortened with a hash
// (see shortStem), and ".bin" is appended. Names are unique ignoring case, for file
// systems that ignore it.
func fileNameFor(name string, used map[string]bool) string {
	var sb strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	stem := strings.TrimLeft(sb.String(), ".")
	if stem == "" {
		stem = "tensor"
	}
	stem = shortStem(stem, name)
	file := stem + ".bin"
	for i := 2; used[strings.ToLower(file)]; i++ {
		file = fmt.Sprintf("%s-%d.bin", stem, i)
	}
	used[strings.ToLower(file)] = true
	return file
}
