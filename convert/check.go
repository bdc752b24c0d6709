package convert

import (
	"io"
	"os"
	"slices"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
	"github.com/tpulayout/tpulayout/validate"
)

// Check compares a device dump with a reference array, element by element (the
// validate verb of the tpulayout command): the files are opened, their sizes and dims
// checked against each other, and validate.Compare does the comparison.
type Check struct {
	// Dump is the raw bytes of a device buffer in Layout, exactly its footprint; "-"
	// reads Stdin whole.
	Dump, Layout string
	// Ref is the expected array: a .npy file, a tensor of a .safetensors file (Tensor
	// picks it unless it holds one), or raw bytes of RefShape. View reads its elements
	// as another type of the same width, bit for bit.
	Ref, RefShape, Tensor, View string
	Options                     validate.Options // tolerance, padding, vreg geometry, Stage
	Stdin                       io.Reader        // for Dump "-"; default os.Stdin
}

// CheckResult is the comparison's report, and the element types compared.
type CheckResult struct {
	Report              *validate.Report
	RefDType, DumpDType layout.DType
	viewed              bool // View was set
}

// Summary is the report's one-line summary; when Ref held integers compared by value
// with floats of their width (and View was not set), it adds that they may be bits, as
// a u16 Ref holding bf16 bits (NumPy's bf16 without ml_dtypes) differs everywhere.
func (r *CheckResult) Summary() Message {
	msg := r.Report.Summary()
	if hint := viewHint(r.RefDType, r.DumpDType, "{Ref}", "{View}"); hint != "" && !r.viewed && !r.Report.OK {
		msg += " (" + hint + ")"
	}
	return textMessage(msg)
}

// Run opens the files and compares them. A report with mismatches is a result, not an
// error; errors are *[Error] values.
func (c *Check) Run() (*CheckResult, error) {
	r, err := c.run()
	return r, typed(err)
}

func (c *Check) run() (*CheckResult, error) {
	var n names
	if c.Layout == "" {
		return nil, n.errf(Setting, "missing {Layout} SHAPE: the shape and layout of {Dump}")
	}
	if c.Ref == "" {
		return nil, n.errf(Setting, "missing {Ref} REF: the expected array (.npy, .safetensors, or raw with {RefShape})")
	}
	ix, err := CompileShape(c.Layout)
	if err != nil {
		return nil, n.wrapf(err, "{Layout}: %s", err)
	}
	if err := n.localOnly("{Dump}", c.Dump); err != nil {
		return nil, err
	}
	if err := n.localOnly("{Ref}", c.Ref); err != nil {
		return nil, err
	}
	refKind := FormatOf(c.Ref)
	if c.RefShape != "" && refKind != Raw {
		return nil, n.errf(Setting, "{RefShape} is for a raw {Ref}; %s is a %s file with its own dtype and shape", c.Ref, refKind)
	}
	if c.Ref == "-" {
		return nil, n.errf(Setting, "- (standard input) is not supported for {Ref}; use a file")
	}
	// Dump "-" is standard input: a stream has no size to check first and cannot be
	// mapped, so it is read whole.
	dumpPath := c.Dump
	var stdinDump []byte
	var dumpSize int64
	if dumpPath == "-" {
		r := c.Stdin
		if r == nil {
			r = os.Stdin
		}
		if stdinDump, err = io.ReadAll(r); err != nil {
			return nil, n.errf(Input, "cannot read {Dump} - (standard input): %s", err)
		}
		dumpSize = int64(len(stdinDump))
	} else {
		st, err := os.Stat(dumpPath)
		if err != nil {
			return nil, n.errf(Input, "cannot read {Dump} %s: %s", dumpPath, err)
		}
		if st.IsDir() {
			return nil, n.errf(Input, "cannot read {Dump} %s: it is a directory", dumpPath)
		}
		dumpSize = st.Size()
	}
	if want := ix.FootprintBytes(); dumpSize != want {
		return nil, n.errf(Input, "{Dump} %s has %s, but the footprint of %s is %s",
			dumpPath, report.Plural(dumpSize, "byte"), ix.Shape(), report.Plural(want, "byte"))
	}
	if c.Options.Stage != nil {
		c.Options.Stage("reading")
	}
	ref, _, err := OpenArray(c.Ref, refKind, c.RefShape, c.Tensor, ArrayWords{What: "Ref", Shape: "RefShape", Tensor: "Tensor"})
	if err != nil {
		return nil, err
	}
	defer ref.Close()
	if ref, err = ViewArray(ref, c.View, "View", "Ref", c.Ref); err != nil {
		return nil, err
	}
	if !slices.Equal(ref.Dims(), ix.Dims()) {
		return nil, n.errf(Input, "{Ref} %s is %s, but {Layout} %s has dims %s",
			c.Ref, layout.NewShape(ref.DType(), ref.Dims()...), ix.Shape(), report.DimsText(ix.Dims()))
	}
	var dump *buffer.Buffer
	if dumpPath == "-" {
		if dump, err = buffer.New(ix.Shape()); err == nil {
			copy(dump.Data, stdinDump)
		}
	} else {
		dump, err = buffer.ReadRaw(dumpPath, ix.Shape())
	}
	if err != nil {
		return nil, n.errf(Input, "cannot read {Dump} %s: %s", dumpPath, err)
	}
	defer dump.Close()
	r, err := validate.Compare(dump, ref, c.Options)
	if err != nil {
		return nil, n.errf(Input, "cannot compare {Ref} %s (%s) with {Dump} (%s): %s", c.Ref, ref.DType(), dump.DType(), err)
	}
	r.Dump, r.Ref = dumpPath, c.Ref
	return &CheckResult{Report: r, RefDType: ref.DType(), DumpDType: dump.DType(), viewed: c.View != ""}, nil
}
