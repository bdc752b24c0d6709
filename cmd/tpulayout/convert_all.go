package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// convert --all: every tensor of a .safetensors IN into a directory with a manifest.

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
	Format  string          `json:"format"` // allFormat; absent before it was added
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
		// Each tensor keeps its own dims, so --to names no shape; a dtype alone would
		// mean row-major host files, which --all does not write.
		hint := ""
		if _, ok := layout.DTypeByName(strings.TrimSpace(c.to)); ok {
			hint = "; --dtype sets the element type of the images"
		}
		return usagef("--all takes --to tpu:GEN or a layout alone such as '{1,0:T(8,128)}', not %q%s", c.to, hint)
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
	guesses := guessTally{to: c.to}
	for i, t := range sf.Tensors {
		dst, err := resolveTarget(c.to, c.dtype, t.BufferShape(), kindRaw, true)
		if err == nil {
			err = checkPad(c.pad, dst.DType)
		}
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		targets[i] = dst
		guesses.add(t.Name, dst)
	}
	if note := guesses.line(len(sf.Tensors)); note != "" {
		fmt.Fprintf(progressOut, "tpulayout convert: %s\n", note)
	}
	// A killed earlier run left its temporary tree: nobody holds it any more.
	buffer.RemoveStaleTemps(dest)
	release := holdSignals()
	tmp, unlock, err := buffer.MkdirTempLocked(dest)
	if err == nil {
		trackHeld(tmp)
	}
	release()
	if err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	done := false
	batch := buffer.DeferSync(tmp) // the files are synced together, before the rename
	defer func() {
		batch.Cancel()
		if !done {
			os.RemoveAll(tmp)
		}
		untrack(tmp)
		unlock()
	}()
	var total int64
	for _, t := range targets {
		if ix, err := layout.Compile(t); err == nil {
			total += ix.FootprintBytes()
		}
	}
	prog := newProgress(c.progress, "convert", total)
	m := manifest{Format: allFormat, Source: filepath.Base(in), To: c.to, Tensors: []manifestEntry{}}
	files := safetensors.UniqueNames{Suffix: ".bin"} // never manifest.json
	for i, t := range sf.Tensors {
		file := files.Name(t.Name)
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
			// Name OUT, not the temporary tree that becomes it.
			msg := strings.ReplaceAll(err.Error(), tmp, filepath.Clean(out))
			var ue *usageError
			if errors.As(err, &ue) {
				return usagef("tensor %q: %s", t.Name, msg)
			}
			return fmt.Errorf("tensor %q: %s", t.Name, msg)
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
	batch.Add(filepath.Join(tmp, "manifest.json"))
	if err := batch.Wait(); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if err := buffer.RemoveTempMarker(tmp); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	if err := c.place(tmp, dest); err != nil {
		return fmt.Errorf("cannot write OUT %s: %s", out, fileErr(err))
	}
	done = true
	setOutputInPlace(true)
	prog.finish()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range m.Tensors {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", nameText(e.Name), e.Layout, filepath.Join(out, e.File))
	}
	fmt.Fprintf(tw, "manifest\t\t%s\n", filepath.Join(out, "manifest.json"))
	return tw.Flush()
}
