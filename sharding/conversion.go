package sharding

import (
	"cmp"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"

	"github.com/tpulayout/tpulayout/sharding/manifest"
	"github.com/tpulayout/tpulayout/sharding/placement"
	"github.com/tpulayout/tpulayout/tpu"
)

// ConvertOptions are a whole sharded conversion as `tpulayout convert --mesh` takes it,
// field for flag: the checkpoint, OUTDIR, the mesh, the specs and the device layout.
type ConvertOptions struct {
	Checkpoint string // a .safetensors file or a sharded checkpoint's index .json: a path or a bucket URL
	Out        string // OUTDIR: a new or empty directory, or a bucket prefix (s3://, gs://)
	Mesh       string // the device mesh, axis names and sizes such as "data=2,model=4"
	Devices    []int  // the device ids in row-major order of the mesh; nil: 0, 1, …
	Spec       string // one PartitionSpec for every tensor, such as `P("data", "model")`; or
	Rules      string // a rules file (see ReadRules): the first rule matching a tensor's name gives its spec; or
	RulesJSON  []byte // a rules file's text (see ParseRules), given in place of the file
	To         string // the shards' device layout: tpu:GEN, a layout alone {…}, a dtype, a shape or hlo:MODULE.txt:param=N (see ResolveTarget)
	DType      string // the images' element type with a layout alone or tpu:GEN ("": the source's)
	Tensor     string // convert this tensor only; or
	All        bool   // every tensor, as the checkpoint must say when it holds several
	// Process and Processes write only the devices of process I of N (JAX's
	// multi-host split) and that process's partial manifest; MergeOutdir joins them.
	// Processes 0 is one process.
	Process, Processes int
	// Pad is what the images' padding holds, as convert's --pad: zero (also ""),
	// leave, or a number each tensor's image type holds exactly (convert.CheckPad).
	Pad string
	// Checksum is the images' manifest.Checksum in the manifest: ChecksumCRC32C (also "") or
	// ChecksumSHA256.
	Checksum        string
	RelayoutOptions []relayout.Option
	// Target, when set, replaces ResolveTarget(To, DType, shard, …) and the check of
	// Pad for each tensor.
	Target func(t safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error)
	// Force replaces an OUTDIR that a sharded conversion wrote (see CheckOwned) once
	// the new one is complete; Note hears why an old tree is left beside it.
	Force bool
	Note  func(string)
	// Written, when set, is called after each image file with its name and size.
	// Hold, Track and Untrack let a command remove temporary output when a signal
	// stops it: every file or directory is created between a Hold and the release it
	// returns, each temporary one (the one-process conversion's directory, a shared
	// directory's temporary files, a bucket conversion's staging directory) Tracked
	// while held, and Untracked once renamed or removed. A signal handler that takes
	// the same hold can then remove what is tracked with nothing new appearing in it.
	// Unset, they do nothing.
	Written func(file string, bytes int64)
	Hold    func() (release func())
	Track   func(path string)
	Untrack func(path string)
}

// Conversion is a checked sharded conversion, ready to Write: NewConversion finds
// every error of the options and the checkpoint before anything is written.
type Conversion struct {
	opt     ConvertOptions
	out     output
	ckpt    *Checkpoint
	job     *shardJob
	count   int // tensors converted
	guessed []GuessedLayout
}

// ConvertSummary is what a sharded conversion wrote: the manifest (this process's
// partial one, with Process set) and where, the image bytes, and per tensor its spec,
// layout and number of distinct shards.
type ConvertSummary struct {
	ManifestPath string             `json:"manifest_path"`
	Bytes        int64              `json:"bytes"` // of this process's images (a resumed bucket run skips those already there)
	Tensors      []TensorSummary    `json:"tensors"`
	Guessed      []GuessedLayout    `json:"guessed"` // with To tpu:GEN: the defaults that are guesses
	Manifest     *manifest.Manifest `json:"manifest"`
}

// GuessedLayout is a tensor whose images take a tpu:GEN default layout that the XLA
// dumps do not back (tpu.DefaultEvidence): a guess, and why. The program's own
// layout (an HLO dump's) is exact.
type GuessedLayout struct {
	Tensor string `json:"tensor"`
	Layout string `json:"layout"`
	Why    string `json:"why"`
}

// TensorSummary is one converted tensor: its name, spec, device layout and the number
// of distinct shard images.
type TensorSummary struct {
	Name   string `json:"name"`
	Spec   string `json:"spec"`
	Layout string `json:"layout"`
	Shards int    `json:"shards"`
}

// Convert converts a checkpoint as o says into per-device images and a manifest:
// NewConversion, then Write.
func Convert(o ConvertOptions) (*ConvertSummary, error) {
	c, err := NewConversion(o)
	if err != nil {
		return nil, err
	}
	return c.Write()
}

// NewConversion checks o and the checkpoint it names, and plans the conversion of
// every tensor; nothing is written. Errors are *ConvertError.
func NewConversion(o ConvertOptions) (*Conversion, error) {
	if o.Mesh == "" {
		return nil, usage(missingMesh)
	}
	lower := strings.ToLower(o.Checkpoint)
	if !strings.HasSuffix(lower, ".safetensors") && !strings.HasSuffix(lower, ".json") {
		return nil, usage("a sharded conversion reads a .safetensors checkpoint or its model.safetensors.index.json, not %s", o.Checkpoint)
	}
	if o.Out == "" {
		return nil, usage("OUTDIR is empty: name a new directory or a bucket prefix")
	}
	if o.All && o.Tensor != "" {
		return nil, usage("{All} and {Tensor} exclude each other")
	}
	if err := o.oneSpec("a sharded conversion"); err != nil {
		return nil, err
	}
	if o.To == "" {
		return nil, usage(missingTo)
	}
	out := outputOf(o.Out)
	if o.Force && !out.replaceable() {
		return nil, usage("{Force} replaces a directory OUTDIR, not a bucket prefix such as %s", o.Out)
	}
	if o.Force && o.Processes > 1 {
		return nil, usage("{Force} is for a conversion run as one process; the %d processes of {Process} share OUTDIR", o.Processes)
	}
	if _, err := manifest.ChecksumNamed(cmp.Or(o.Checksum, manifest.DefaultChecksum)); err != nil {
		return nil, usage("bad {Checksum} %q: want %s (the default) or %s", o.Checksum, manifest.CRC32C, manifest.SHA256)
	}
	mesh, err := o.mesh()
	if err != nil {
		return nil, err
	}
	if o.Processes < 0 || o.Process < 0 || (o.Processes > 0 && o.Process >= o.Processes) || (o.Processes == 0 && o.Process != 0) {
		return nil, usage("bad {Process} \"%d/%d\": want I/N with 0 ≤ I < N, such as 0/4", o.Process, o.Processes)
	}
	ckpt, err := OpenCheckpoint(o.Checkpoint)
	if err != nil {
		return nil, &ConvertError{Field: "Checkpoint", format: "cannot read IN %s", args: []any{o.Checkpoint}, Name: o.Checkpoint, Err: err}
	}
	var names []string
	switch {
	case o.Tensor != "":
		names = []string{o.Tensor}
	case !o.All && len(ckpt.Tensors) != 1:
		return nil, usage("IN %s holds %d tensors; convert them all with {All} or pick one with {Tensor} NAME", o.Checkpoint, len(ckpt.Tensors))
	}
	specFor, err := o.specs(ckpt, names)
	if err != nil {
		return nil, err
	}
	padOpt, err := convert.PadOption(o.Pad)
	if err != nil {
		return nil, &ConvertError{Setting: true, Field: "Pad", Err: err}
	}
	whole := o.All || len(names) == 0
	target := o.Target
	if target == nil {
		target = func(_ safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error) {
			dst, err := ResolveTarget(o.To, o.DType, shard, whole)
			if err == nil { // as convert's: a pad the images' type does not hold is refused
				err = convert.CheckPad(o.Pad, dst.DType)
			}
			return dst, err
		}
	}
	ropts := o.RelayoutOptions
	if o.Pad != "" {
		ropts = append(slices.Clip(ropts), padOpt)
	}
	job, err := prepare(ckpt, jobOptions{
		Mesh: mesh, SpecFor: specFor, To: o.To, Source: o.Checkpoint, Names: names,
		Process: o.Process, Processes: o.Processes, RelayoutOptions: ropts, Checksum: o.Checksum,
		Target: target, Written: o.Written, Hold: o.Hold, Track: o.Track, Untrack: o.Untrack,
		Force: o.Force, Note: o.Note,
	})
	if err != nil {
		return nil, &ConvertError{Err: err}
	}
	count := len(names)
	if count == 0 {
		count = len(ckpt.Tensors)
	}
	c := &Conversion{opt: o, out: out, ckpt: ckpt, job: job, count: count, guessed: []GuessedLayout{}}
	if g, ok := strings.CutPrefix(o.To, "tpu:"); ok {
		if gen, err := tpu.ParseGeneration(g); err == nil {
			for _, t := range job.tensors {
				if e := tpu.DefaultEvidence(gen, t.dst.DType, t.dst.Dims); e.Guess {
					c.guessed = append(c.guessed, GuessedLayout{Tensor: t.t.Name, Layout: t.dst.String(), Why: e.Why})
				}
			}
		}
	}
	return c, nil
}

const missingMesh = "missing {Mesh}: the device mesh, such as data=2,model=4"

// oneSpec checks that exactly one of Spec, Rules and RulesJSON is given; what names
// the job in the message ("a sharded conversion").
func (o *ConvertOptions) oneSpec(what string) error {
	switch {
	case o.Spec != "" && (o.Rules != "" || o.RulesJSON != nil):
		return usage("{Spec} and {Rules} exclude each other: give one PartitionSpec for all tensors ({Spec}) or a rules FILE ({Rules})")
	case o.Rules != "" && o.RulesJSON != nil:
		return usage("Rules and RulesJSON exclude each other: give the rules file's name or its text")
	case o.Spec == "" && o.Rules == "" && o.RulesJSON == nil:
		return usage("%s needs one of {Spec} (one PartitionSpec for all tensors) or {Rules} FILE", what)
	}
	return nil
}

// mesh reads Mesh and Devices; its error is a usage *ConvertError.
func (o *ConvertOptions) mesh() (*placement.Mesh, error) {
	mesh, err := placement.ParseMesh(o.Mesh, o.Devices)
	if err != nil {
		return nil, settingErr("Mesh", err)
	}
	return mesh, nil
}

// Guessed lists the tensors whose tpu:GEN default layout is a guess (see GuessedLayout).
func (c *Conversion) Guessed() []GuessedLayout { return c.guessed }

// specs returns the spec of each tensor from Spec or Rules; with Rules over the whole
// checkpoint, a rule that matches no tensor is an error (a typo, most likely), as is
// a tensor that matches none when there is no default.
func (o *ConvertOptions) specs(ckpt *Checkpoint, names []string) (func(string) (placement.Spec, error), error) {
	if o.Spec != "" {
		spec, err := placement.ParseSpec(o.Spec)
		if err != nil {
			return nil, settingErr("Spec", err)
		}
		return func(string) (placement.Spec, error) { return spec, nil }, nil
	}
	var rules *placement.Rules
	var err error
	label, args := "{Rules} %s", []any{o.Rules} // in messages
	if o.RulesJSON != nil {
		label, args = "{Rules}", nil
		rules, err = placement.ParseRules(o.RulesJSON) // as a file's, without the file's name
	} else {
		rules, err = ReadRules(o.Rules)
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // the reason alone; the file named once
			return nil, &ConvertError{Field: "Rules", format: label, args: args, Err: pe.Err}
		}
		return nil, &ConvertError{Field: "Rules", format: "{Rules}", Err: err}
	}
	if names == nil {
		hits := make([]int, len(rules.Rules)+1)
		for _, t := range ckpt.Tensors {
			_, k, err := rules.SpecFor(t.Name)
			if err != nil {
				return nil, &ConvertError{Field: "Rules", format: label, args: args, Err: err}
			}
			hits[k]++
		}
		for i, r := range rules.Rules {
			if hits[i+1] == 0 {
				return nil, &ConvertError{Field: "Rules", format: label + ": rule %d (%q) matches no tensor of the checkpoint, or only ones an earlier rule took",
					args: append(slices.Clip(args), i+1, r.Pattern)}
			}
		}
	}
	return func(name string) (placement.Spec, error) {
		spec, _, err := rules.SpecFor(name)
		return spec, err
	}, nil
}

// Bytes is the size of the images this process writes.
func (c *Conversion) Bytes() int64 { return c.job.Bytes() }

// Tensors is the number of tensors converted.
func (c *Conversion) Tensors() int { return c.count }

// ManifestPath is where Write puts the manifest: OUTDIR's manifest.json, or with
// several processes this process's partial manifest.
func (c *Conversion) ManifestPath() string {
	name := manifest.FileName
	if c.opt.Processes > 1 {
		name = manifest.PartialName(c.opt.Process, c.opt.Processes)
	}
	return strings.TrimSuffix(c.opt.Out, "/") + "/" + name
}

// Write writes the images and the manifest into OUTDIR (a symlink directory: at its
// target) or under the bucket prefix.
func (c *Conversion) Write() (*ConvertSummary, error) {
	m, err := c.out.write(c.job)
	if err != nil {
		return nil, &ConvertError{Field: "Out", format: "cannot write OUT %s", args: []any{c.opt.Out}, Err: err}
	}
	s := &ConvertSummary{ManifestPath: c.ManifestPath(), Bytes: c.job.Bytes(), Manifest: m, Tensors: []TensorSummary{}, Guessed: c.guessed}
	for _, t := range m.Tensors {
		s.Tensors = append(s.Tensors, TensorSummary{Name: t.Name, Spec: t.Spec, Layout: t.Layout, Shards: len(t.Shards)})
	}
	return s, nil
}
