package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/sharding"
)

// shardFlags are convert's flags for a sharded conversion (--mesh and its company).
type shardFlags struct {
	mesh, spec, rules, devices, process, checksum string
	json                                          bool
}

// defineShardFlags adds the sharded conversion's flags to convert's flag set.
func defineShardFlags(fs *flag.FlagSet) *shardFlags {
	s := &shardFlags{}
	fs.StringVar(&s.mesh, "mesh", "", "sharded conversion: the device `MESH`, axis names and sizes such as data=2,model=4")
	fs.StringVar(&s.spec, "spec", "", "sharded conversion: the PartitionSpec of every tensor, such as 'P(\"data\", \"model\")'")
	fs.StringVar(&s.rules, "rules", "", "sharded conversion: a JSON `FILE` of rules (regex on tensor name → PartitionSpec, first match wins; a default); - reads standard input")
	fs.StringVar(&s.devices, "devices", "", "sharded conversion: the device `IDS` in row-major order of the mesh (default 0,1,…)")
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
	if c.view != "" || c.force {
		return usagef("--view and --force are not for a sharded conversion (--mesh); its OUTDIR must be new or empty")
	}
	if _, err := padOption(c.pad); err != nil { // checked first, as before; and the library takes "" for zero
		return err
	}
	o := sharding.ConvertOptions{
		Checkpoint: in, Out: out, Mesh: s.mesh, Spec: s.spec, Rules: s.rules, To: c.to,
		DType: c.dtype, Tensor: c.tensor, All: c.all, Pad: c.pad, Checksum: s.checksum,
		// As convert's: an interrupt removes the temporary output.
		Hold: convert.HoldTemps, Track: convert.TrackHeld, Untrack: convert.Untrack,
	}
	var err error
	if s.rules == "-" { // standard input, as IN - is elsewhere (a sharded IN is a file)
		if o.RulesJSON, err = readRulesStdin(); err != nil {
			return err
		}
		o.Rules = ""
	}
	if s.devices != "" {
		if o.Devices, err = sharding.DevicesOption(s.devices); err != nil {
			return shardErr(err)
		}
	}
	if s.process != "" {
		if o.Process, o.Processes, err = sharding.ProcessOption(s.process); err != nil {
			return shardErr(err)
		}
	}
	var prog *convert.TermProgress
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
	convert.SetPlaced(true)
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
	if errors.As(err, &ce) && ce.Usage {
		return usagef("%s", sharding.ErrorText(err))
	}
	return errors.New(sharding.ErrorText(err))
}

// libErr prints an error of the library packages without their prefixes.
func libErr(err error) string {
	return strings.ReplaceAll(convert.CleanErr(err), "sharding: ", "")
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
