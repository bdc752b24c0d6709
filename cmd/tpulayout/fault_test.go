package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// TestTruncatedInput truncates IN while a child process converts it through a mapping:
// the read faults, and the command must fail with an error naming IN (not die of
// SIGBUS) and leave nothing beside IN.
func TestTruncatedInput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot truncate a mapped file")
	}
	if testing.Short() {
		t.Skip("converts up to 1 GiB")
	}
	const gib = 16384 * 16384 * 4
	for _, tc := range []struct {
		name, out string
		size      int64
		args      []string
	}{
		{"bands", "out.bin", gib, []string{"--from", "f32[16384,16384]{1,0}", "--to", "bf16[16384,16384]{1,0:T(8,128)(2,1)}"}},
		{"gathered bands", "out.bin", gib, []string{"--from", "f32[16384,16384]{1,0}", "--to", "f32[16384,16384]{0,1}"}},
		{"one piece", "out.npy", gib / 4, []string{"--from", "f32[8192,8192]{0,1}"}},
		{"directory", "out", gib, []string{"--all", "--to", "tpu:v5e", "--dtype", "bf16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Wait for the temporary output (with --all, for the first tensor's in the
			// temporary directory: IN is mapped by then), then truncate IN.
			started := func(dir string) bool {
				es := testfiles.DirNames(t, dir)
				if len(es) < 2 || tc.args[0] != "--all" {
					return len(es) >= 2
				}
				for _, e := range es {
					// Beside the temporary tree's lock mark, made first: IN is mapped
					// only once the first image's file is there too.
					if sub, err := os.ReadDir(filepath.Join(dir, e)); err == nil && len(sub) > 1 {
						return true
					}
				}
				return false
			}
			c, dir, in := startSparse(t, tc.out, tc.size, tc.args, started)
			st, err := os.Stat(in)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(in, st.Size()-tc.size); err != nil { // every data byte goes
				t.Fatal(err)
			}
			err = c.Wait()
			if err == nil {
				t.Fatalf("convert finished before the truncation; make the input larger")
			}
			msg := c.stderr.String()
			if !strings.Contains(msg, "cannot read IN "+in) || !strings.Contains(msg, "shrank") || strings.Count(msg, "\n") != 1 {
				t.Errorf("exit %v; stderr does not name IN on one line:\n%s", err, msg)
			}
			onlyIn(t, dir, in, "the fault")
		})
	}
}

var faultSink byte // a read the compiler keeps

// TestFaultIsOneLine runs a verb that reads a mapped file after truncating it (as a
// validate whose DUMP shrinks would): one line on stderr, exit 2, not a SIGBUS crash.
func TestFaultIsOneLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot truncate a mapped file")
	}
	p := testfiles.WriteFile(t, t.TempDir(), "in.raw", make([]byte, 1<<16))
	saved, savedThreshold := verbs, buffer.MmapThreshold
	defer func() { verbs, buffer.MmapThreshold = saved, savedThreshold }()
	buffer.MmapThreshold = 1
	var mapped bool
	shrink := &verb{name: "shrink", define: func(*flag.FlagSet) func([]string, io.Writer) error {
		return func([]string, io.Writer) error {
			b, err := buffer.ReadRaw(p, layout.MustParse("u8[65536]"))
			if err != nil {
				return err
			}
			defer b.Close()
			if mapped = b.Mapped(); !mapped {
				return nil
			}
			if err := os.Truncate(p, 0); err != nil {
				return err
			}
			faultSink = b.Data[len(b.Data)-1] // past the new end: SIGBUS
			return nil
		}
	}}
	verbs = append(append([]*verb(nil), saved...), shrink)
	out, errOut, code := runCmd(t, "shrink")
	if !mapped {
		t.Skip("the file was not mapped")
	}
	if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "cannot read an input file: a memory fault") {
		t.Errorf("faulting verb: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
