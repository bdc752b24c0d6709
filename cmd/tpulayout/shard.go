package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
	"github.com/tpulayout/tpulayout/sharding"
)

// shardFlags are convert's flags for a sharded conversion (--mesh and its company).
type shardFlags struct {
	mesh, spec, rules, devices, process string
}

// defineShardFlags adds the sharded conversion's flags to convert's flag set.
func defineShardFlags(fs *flag.FlagSet) *shardFlags {
	s := &shardFlags{}
	fs.StringVar(&s.mesh, "mesh", "", "sharded conversion: the device `MESH`, axis names and sizes such as data=2,model=4")
	fs.StringVar(&s.spec, "spec", "", "sharded conversion: the PartitionSpec of every tensor, such as 'P(\"data\", \"model\")'")
	fs.StringVar(&s.rules, "rules", "", "sharded conversion: a JSON `FILE` of rules (regex on tensor name → PartitionSpec, first match wins; a default)")
	fs.StringVar(&s.devices, "devices", "", "sharded conversion: the device `IDS` in row-major order of the mesh (default 0,1,…)")
	fs.StringVar(&s.process, "process", "", "sharded conversion: write only the devices of process `I/N` (JAX multi-host split); merge with 'tpulayout manifest merge'")
	return s
}

// active reports whether any sharding flag was given.
func (s *shardFlags) active() bool {
	return s.mesh != "" || s.spec != "" || s.rules != "" || s.devices != "" || s.process != ""
}

// run is convert with --mesh: CKPT (a .safetensors file or a sharded checkpoint's
// index .json) into the directory OUT of per-device images.
func (s *shardFlags) run(c *convertFlags, in, out string, w io.Writer) error {
	if s.mesh == "" {
		return usagef("--spec, --rules, --devices and --process need --mesh, the device mesh (such as data=2,model=4)")
	}
	lower := strings.ToLower(in)
	if !strings.HasSuffix(lower, ".safetensors") && !strings.HasSuffix(lower, ".json") {
		return usagef("a sharded conversion reads a .safetensors checkpoint or its model.safetensors.index.json, not %s", in)
	}
	if err := checkOutName(out); err != nil {
		return err
	}
	if isStream(out) { // "-" would otherwise become a directory named "-"
		return usagef("a sharded conversion writes OUT as a new directory; %s cannot be one", out)
	}
	if c.from != "" {
		return usagef("--from is for a raw IN; a sharded conversion reads a safetensors checkpoint")
	}
	if c.all && c.tensor != "" {
		return usagef("--all and --tensor exclude each other")
	}
	if c.view != "" || c.force {
		return usagef("--view and --force are not for a sharded conversion (--mesh); its OUTDIR must be new or empty")
	}
	if (s.spec == "") == (s.rules == "") {
		return usagef("a sharded conversion needs one of --spec (one PartitionSpec for all tensors) or --rules FILE")
	}
	if c.to == "" {
		return usagef("missing --to: the device layout of the shards, tpu:GEN or a layout alone such as '{1,0:T(8,128)(2,1)}'")
	}
	padOpt, err := padOption(c.pad)
	if err != nil {
		return err
	}
	var ids []int
	if s.devices != "" {
		if ids, err = sharding.ParseDevices(s.devices); err != nil {
			return usagef("--devices: %s", libErr(err))
		}
	}
	mesh, err := sharding.ParseMesh(s.mesh, ids)
	if err != nil {
		return usagef("--mesh: %s", libErr(err))
	}
	proc, procs := 0, 0
	if s.process != "" {
		a, b, ok := strings.Cut(s.process, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return usagef("bad --process %q: want I/N with 0 ≤ I < N, such as 0/4", s.process)
		}
		proc, procs = i, n
	}
	ckpt, err := sharding.OpenCheckpoint(in)
	if err != nil {
		return fmt.Errorf("cannot read IN %s: %s", in, storeReason(in, err))
	}
	var names []string
	switch {
	case c.tensor != "":
		names = []string{c.tensor}
	case !c.all && len(ckpt.Tensors) != 1:
		return usagef("IN %s holds %d tensors; convert them all with --all or pick one with --tensor NAME", in, len(ckpt.Tensors))
	}
	specFor, err := s.specs(ckpt, names)
	if err != nil {
		return err
	}
	guesses := guessTally{to: c.to}
	var guessMu sync.Mutex
	opt := sharding.Options{
		Mesh: mesh, SpecFor: specFor, To: c.to, Source: in, Names: names,
		Process: proc, Processes: procs, RelayoutOptions: []relayout.Option{padOpt},
		// As convert's: an interrupt removes the temporary output.
		Hold: holdSignals, Track: trackHeld, Untrack: untrack,
		Target: func(t safetensors.TensorInfo, shard layout.Shape) (layout.Shape, error) {
			dst, err := resolveTarget(c.to, c.dtype, shard, kindRaw, c.all || len(names) == 0)
			if err == nil {
				guessMu.Lock()
				guesses.add(t.Name, dst)
				guessMu.Unlock()
			}
			return dst, err
		},
	}
	var prog *progress
	opt.Written = func(_ string, n int64) { prog.add(n) }
	job, err := sharding.Prepare(ckpt, opt)
	if err != nil {
		return fmt.Errorf("%s", libErr(err))
	}
	total := len(names)
	if total == 0 {
		total = len(ckpt.Tensors)
	}
	if note := guesses.line(total); note != "" {
		fmt.Fprintf(progressOut, "tpulayout convert: %s\n", note)
	}
	prog = newProgress(c.progress, "convert", job.Bytes())
	m, err := writeShards(job, out)
	if err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, libErr(err))
	}
	setOutputInPlace(true)
	prog.finish()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, t := range m.Tensors {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", nameText(t.Name), t.Spec, t.Layout, plural(int64(len(t.Shards)), "shard"))
	}
	name := sharding.ManifestName
	if procs > 1 {
		name = sharding.PartialName(proc, procs)
	}
	fmt.Fprintf(tw, "manifest\t\t\t%s\n", strings.TrimSuffix(out, "/")+"/"+name)
	return tw.Flush()
}

// specs returns the spec of each tensor from --spec or --rules; with --rules over
// the whole checkpoint, a rule that matches no tensor is an error (a typo, most
// likely), as is a tensor that matches none when there is no default.
func (s *shardFlags) specs(ckpt *sharding.Checkpoint, names []string) (func(string) (sharding.Spec, error), error) {
	if s.spec != "" {
		spec, err := sharding.ParseSpec(s.spec)
		if err != nil {
			return nil, usagef("--spec: %s", libErr(err))
		}
		return func(string) (sharding.Spec, error) { return spec, nil }, nil
	}
	rules, err := sharding.ReadRules(s.rules)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) { // fileErr keeps only the reason; name the file
			return nil, fmt.Errorf("--rules %s: %s", s.rules, pe.Err)
		}
		return nil, fmt.Errorf("--rules: %s", libErr(err))
	}
	if names == nil {
		hits := make([]int, len(rules.Rules)+1)
		for _, t := range ckpt.Tensors {
			_, k, err := rules.SpecFor(t.Name)
			if err != nil {
				return nil, fmt.Errorf("--rules %s: %s", s.rules, libErr(err))
			}
			hits[k]++
		}
		for i, r := range rules.Rules {
			if hits[i+1] == 0 {
				return nil, fmt.Errorf("--rules %s: rule %d (%q) matches no tensor of the checkpoint, or only ones an earlier rule took", s.rules, i+1, r.Pattern)
			}
		}
	}
	return func(name string) (sharding.Spec, error) {
		spec, _, err := rules.SpecFor(name)
		return spec, err
	}, nil
}

// libErr prints an error of the library packages without their prefixes.
func libErr(err error) string {
	return strings.ReplaceAll(cleanErr(err), "sharding: ", "")
}
