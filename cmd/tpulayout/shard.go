package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/edgetext"
	"github.com/tpulayout/tpulayout/internal/edgetext/shardtext"
	"github.com/tpulayout/tpulayout/sharding"
)

// meshFlags say where the shards of tensors go: --mesh, --spec, --rules and
// --devices, as a sharded conversion and place take them.
type meshFlags struct {
	mesh, spec, rules, devices string
}

// define adds the flags to fs, each usage line starting with prefix; specOf says
// whose PartitionSpec --spec is.
func (m *meshFlags) define(fs *flag.FlagSet, prefix, specOf string) {
	fs.StringVar(&m.mesh, "mesh", "", prefix+"the device `MESH`, axis names and sizes such as data=2,model=4")
	fs.StringVar(&m.spec, "spec", "", prefix+"the PartitionSpec `SPEC` of "+specOf+", such as 'P(\"data\", \"model\")'")
	fs.StringVar(&m.rules, "rules", "", prefix+"a JSON `FILE` of rules (regex on tensor name → PartitionSpec, first match wins; a default); - reads standard input")
	fs.StringVar(&m.devices, "devices", "", prefix+"the device `IDS` in row-major order of the mesh (default 0,1,…)")
}

// rulesOption reads --rules: the file's name, or with "-" the rules' JSON from
// standard input (as IN - is elsewhere).
func (m *meshFlags) rulesOption() (string, []byte, error) {
	if m.rules != "-" {
		return m.rules, nil, nil
	}
	data, err := readRulesStdin()
	return "", data, err
}

// deviceIDs reads --devices (nil when not given).
func (m *meshFlags) deviceIDs() ([]int, error) {
	if m.devices == "" {
		return nil, nil
	}
	ids, err := sharding.DevicesOption(m.devices)
	if err != nil {
		return nil, shardErr(err)
	}
	return ids, nil
}

// shardFlags are convert's flags for a sharded conversion (--mesh and its company).
type shardFlags struct {
	meshFlags
	process, checksum string
	json              bool
}

// defineShardFlags adds the sharded conversion's flags to convert's flag set.
func defineShardFlags(fs *flag.FlagSet) *shardFlags {
	s := &shardFlags{}
	s.meshFlags.define(fs, "sharded conversion: ", "every tensor")
	fs.StringVar(&s.process, "process", "", "sharded conversion: write only the devices of process `I/N` (JAX multi-host split); merge with 'tpulayout manifest merge'")
	fs.StringVar(&s.checksum, "checksum", "", "sharded conversion: the images' checksum `ALGO` in the manifest: crc32c (the default; what GCS and S3 check, at memory speed) or sha256 (also tamper evidence, about 15x slower)")
	fs.BoolVar(&s.json, "json", false, "sharded conversion: print the summary (manifest path, bytes, tensors, manifest) as JSON")
	return s
}

// active reports whether any sharding flag was given.
func (s *shardFlags) active() bool {
	return s.mesh != "" || s.spec != "" || s.rules != "" || s.devices != "" || s.process != "" || s.checksum != "" || s.json
}

// run is convert with --mesh: CKPT (a .safetensors file or a sharded checkpoint's
// index .json) into the directory OUT of per-device images.
func (s *shardFlags) run(c *convertFlags, in, out string, w io.Writer) error {
	if s.mesh == "" && s.json {
		return usagef("--json is for a sharded conversion (--mesh); convert prints no report otherwise")
	}
	if s.mesh == "" {
		return usagef("--spec, --rules, --devices, --process and --checksum need --mesh, the device mesh (such as data=2,model=4)")
	}
	if err := newJob("", out).CheckOutName(); err != nil {
		return err
	}
	if convert.IsStream(out) { // "-" would otherwise become a directory named "-"
		return usagef("a sharded conversion writes OUT as a new directory; %s cannot be one", out)
	}
	if c.from != "" {
		return usagef("--from is for a raw IN; a sharded conversion reads a safetensors checkpoint")
	}
	if c.view != "" {
		return usagef("--view is not for a sharded conversion (--mesh)")
	}
	if _, err := padOption(c.pad); err != nil { // checked first, as before; and the library takes "" for zero
		return err
	}
	temps := runTemps()
	o := sharding.ConvertOptions{
		Checkpoint: in, Out: out, Mesh: s.mesh, Spec: s.spec, Rules: s.rules, To: c.to,
		DType: c.dtype, Tensor: c.tensor, All: c.all, Pad: c.pad, Checksum: s.checksum, Force: c.force,
		Note: func(s string) { fmt.Fprintf(progressOut, "tpulayout convert: %s\n", s) },
		// As convert's: an interrupt removes the temporary output.
		Hold: temps.Hold, Track: temps.Track, Untrack: temps.Untrack,
	}
	var err error
	if o.Rules, o.RulesJSON, err = s.rulesOption(); err != nil {
		return err
	}
	if o.Devices, err = s.deviceIDs(); err != nil {
		return err
	}
	if s.process != "" {
		if o.Process, o.Processes, err = sharding.ProcessOption(s.process); err != nil {
			return shardErr(err)
		}
	}
	var prog *termProgress
	o.Written = func(_ string, n int64) { prog.Add(n) }
	conv, err := sharding.NewConversion(o)
	if err != nil {
		return shardErr(err)
	}
	if note := conv.GuessLine("--to hlo:FILE:param=N"); note != "" { // convert --all's note
		fmt.Fprintf(progressOut, "tpulayout convert: %s\n", note)
	}
	prog = newProgress(c.progress, "convert")
	prog.Total(conv.Bytes())
	sum, err := conv.Write()
	if err != nil {
		return shardErr(err)
	}
	temps.Placed()
	prog.Done()
	if s.json {
		return writeJSON(w, sum)
	}
	return sum.WriteText(w)
}

// shardErr is an error of the library's sharded conversion as the CLI prints it:
// a usage error (exit status 2) where the options were wrong.
func shardErr(err error) error {
	var ce *sharding.ConvertError
	if errors.As(err, &ce) && ce.Setting {
		return usagef("%s", shardtext.Text(err, flagWord))
	}
	return errors.New(shardtext.Text(err, flagWord))
}

// libErr prints an error of the library packages without their prefixes: a job's
// naming its fields by their own names.
func libErr(err error) string {
	text := edgetext.Clean(err)
	if je, ok := err.(*convert.Error); ok {
		text = edgetext.Text(je, nil)
	}
	return edgetext.Within(err, strings.ReplaceAll(text, "sharding: ", ""), flagWord)
}

// readRulesStdin reads --rules - from standard input, at most sharding.MaxRulesBytes.
func readRulesStdin() ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, sharding.MaxRulesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read --rules - (standard input): %w", err)
	}
	if len(data) > sharding.MaxRulesBytes {
		return nil, fmt.Errorf("--rules - (standard input) holds more than the %d bytes a rules file may have", sharding.MaxRulesBytes)
	}
	if len(data) == 0 {
		return nil, usagef("--rules - (standard input) is empty: give the rules' JSON there, or a FILE")
	}
	return data, nil
}
