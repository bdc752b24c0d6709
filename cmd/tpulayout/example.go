package main

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/walkthrough"
)

var exampleVerb = &verb{
	name:     "example",
	synopsis: "DIR",
	summary:  "write the small example inputs the README's walkthrough uses",
	detail: `Example writes into DIR (made if missing) the inputs of the README's walkthrough,
the same bytes on every machine (values from a fixed seed, computed without
floating-point library calls):

  weights.npy        f32[256,1024]: a weight matrix
  small.npy          f32[20,300]: a small array (rows and columns not tile
                     multiples)
  model.safetensors  a three-tensor f32 checkpoint: layers.0.attn.wq
                     f32[512,512], layers.0.mlp.w1 f32[512,2048], norm.scale
                     f32[512]
  truncated.bin      small.npy as a device dump with a bug: f32 truncated to
                     bf16 instead of rounded, in bf16[20,300]{1,0:T(8,128)(2,1)}
  module.txt         a one-parameter HLO module dump
  rules.json         sharding rules for model.safetensors on a data×model mesh

A file already in DIR with the same bytes is left alone; one with other bytes is an
error (nothing is overwritten). Each file is written to a temporary file and renamed.`,
	define: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		return func(pos []string, w io.Writer) error {
			if err := needArgs(pos, "DIR"); err != nil {
				return err
			}
			ws, err := walkthrough.Write(pos[0])
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, f := range ws {
				state := "written"
				if f.Kept {
					state = "kept"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Path, convert.SizeText(f.Bytes), f.What, state)
			}
			return tw.Flush()
		}
	},
}
