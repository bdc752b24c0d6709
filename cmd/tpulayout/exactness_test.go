package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/report"
)

// writeF32 writes vals as a raw little-endian f32 file.
func writeF32(t *testing.T, path string, vals ...float32) {
	t.Helper()
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// wantFails runs the command, wants exit status 2 and every want in stderr.
func wantFails(t *testing.T, args []string, wants ...string) string {
	t.Helper()
	_, errOut, code := runCmd(t, args...)
	if code != exitUsage {
		t.Fatalf("tpulayout %.300q: exit %d, want %d (stderr %.500q)", args, code, exitUsage, errOut)
	}
	for _, w := range wants {
		if !strings.Contains(errOut, w) {
			t.Errorf("tpulayout %.300q: stderr %.500q does not say %q", args, errOut, w)
		}
	}
	return errOut
}

// Issue #14 item 1: `*` in the first tile plus a later tile wider than the shape. The
// per-element path decoded every destination slot to index 0 and wrote 1,1,1,1.
func TestConvertCombinedThenWiderTile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.raw")
	writeF32(t, in, 1, 2, 3, 4)
	out := filepath.Join(dir, "s.bin")
	mustRun(t, "convert", "--from", "f32[2,2]", in, out, "--to", "f32[2,2]{1,0:T(*,4)(1,1,4)}")
	got := readFile(t, out)
	want := []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40}
	if !slices.Equal(got, want) {
		t.Errorf("OUT holds % x, want % x (1, 2, 3, 4)", got, want)
	}
	// And back: the per-element path reads through Index too.
	back := filepath.Join(dir, "back.raw")
	mustRun(t, "convert", "--from", "f32[2,2]{1,0:T(*,4)(1,1,4)}", out, back, "--to", "f32[2,2]")
	if got := readFile(t, back); !slices.Equal(got, readFile(t, in)) {
		t.Errorf("round trip gives % x", got)
	}

	// s8[8,2]{1,0:T(*,8)(128,8,64)} duplicated elements: each value must sit at its
	// own offset, and the padding be zero.
	const s8Layout = "s8[8,2]{1,0:T(*,8)(128,8,64)}"
	src := make([]byte, 16)
	for i := range src {
		src[i] = byte(i + 1)
	}
	in8 := filepath.Join(dir, "s8.raw")
	if err := os.WriteFile(in8, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out8 := filepath.Join(dir, "s8.bin")
	mustRun(t, "convert", "--from", "s8[8,2]", in8, out8, "--to", s8Layout)
	ix, err := layout.Compile(layout.MustParse(s8Layout))
	if err != nil {
		t.Fatal(err)
	}
	img := readFile(t, out8)
	if int64(len(img)) != ix.FootprintBytes() {
		t.Fatalf("OUT has %d bytes, want %d", len(img), ix.FootprintBytes())
	}
	wantImg := make([]byte, len(img))
	idx := make([]int64, 2)
	for i := range src {
		wantImg[ix.Offset(idx)] = src[i]
		layout.NextIndex(idx, ix.Dims())
	}
	if !slices.Equal(img, wantImg) {
		t.Errorf("%s: OUT differs from the per-element offsets", s8Layout)
	}
	// explain --offset decodes each element's offset back to its index.
	for off, want := range []string{"[0,0]", "[0,1]", "[1,0]", "[1,1]"} {
		m := runJSON(t, "explain", "f32[2,2]{1,0:T(*,4)(1,1,4)}", "--offset", string(rune('0'+off)), "--json")
		if got := ints(t, m, "index"); report.DimsText(got) != want {
			t.Errorf("explain --offset %d: index %v, want %s", off, got, want)
		}
	}
}

// Issue #14 item 2: footprints beyond int64 bytes are parse errors, for every command;
// L(MaxInt64) gave a footprint of 0 and convert wrote an empty OUT with exit 0.
func TestFootprintOverflowRejected(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.raw")
	writeF32(t, in, 1, 2, 3, 4)
	out := filepath.Join(dir, "o.bin")
	for _, s := range []string{
		"f32[2,2]{1,0:T(9223372036854775807,128)}",
		"f32[2,2]{1,0:T(9223372036854775807)}",
		"f32[2,2]{1,0:T(2,2)L(9223372036854775807)}", // L(n) counts on tiled layouts only, as in XLA
	} {
		wantFails(t, []string{"info", s}, "bad shape", "at byte 8", "overflows int64")
		wantFails(t, []string{"show", s}, "overflows int64")
		wantFails(t, []string{"explain", s, "0,0"}, "overflows int64")
		wantFails(t, []string{"convert", "--from", "f32[2,2]", in, out, "--to", s}, "overflows int64")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("OUT was written: %v", err)
	}
}

// Issue #14 item 14: what convert cannot hold, the parser rejects with the rule, and
// every command says the same; "cannot hold OUT in memory" is only about memory.
func TestElementBitsRuleEverywhere(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.raw")
	writeF32(t, in, 1, 2, 3, 4)
	const rule = "E(3) on f32: a 32-bit type takes E(32) or no E"
	for _, args := range [][]string{
		{"info", "f32[8,128]{1,0:E(3)}"},
		{"show", "f32[2,2]{1,0:E(3)}"},
		{"explain", "f32[2,2]{1,0:E(3)}", "0,0"},
		{"convert", "--from", "f32[2,2]", in, filepath.Join(dir, "o.bin"), "--to", "f32[2,2]{1,0:E(3)}"},
		{"convert", "--from", "f32[2,2]", in, filepath.Join(dir, "o.bin"), "--to", "{1,0:E(3)}"},
		{"convert", "--from", "f32[2,2]{1,0:E(3)}", in, filepath.Join(dir, "o.bin"), "--to", "f32[2,2]"},
	} {
		wants := []string{rule}
		if !strings.HasPrefix(args[len(args)-1], "{") {
			wants = append(wants, "at byte") // the shape as given: the E is pointed at
		}
		errOut := wantFails(t, args, wants...)
		if strings.Contains(errOut, "memory") {
			t.Errorf("%q: %q talks of memory", args, errOut)
		}
	}
	wantFails(t, []string{"info", "pred[8,8,8]{0,2,1:E(32)}"}, "E(32) on pred", "1, 2, 4 or 8 bits")
}

// Issue #14 item 5: a footprint beyond what the machine holds fails before anything is
// allocated or created, naming both sizes; so does one beyond the free disk.
func TestConvertCapacity(t *testing.T) {
	defer func(m func() (int64, bool), d func(string) (int64, bool)) {
		availableMemory, freeDiskSpace = m, d
	}(availableMemory, freeDiskSpace)
	availableMemory = func() (int64, bool) { return 8 << 30, true }
	freeDiskSpace = func(string) (int64, bool) { return 1 << 40, true }

	dir := t.TempDir()
	in := filepath.Join(dir, "s.raw")
	writeF32(t, in, 1, 2, 3, 4)
	out := filepath.Join(dir, "o.bin")
	// An OUT that is mostly padding is written around its data, needing no memory for
	// it (TestPaddingOnlyHugeOut): then only the disk refuses it.
	wantFails(t, []string{"convert", "--from", "f32[2,2]", in, out, "--to", "f32[2,2]{1,0:T(1048576,1048576)}"},
		"no space left", "4.00 TiB (4398046511104 bytes)", "1.00 TiB (1099511627776 bytes) free")
	savedSparse := sparseMinBytes
	defer func() { sparseMinBytes = savedSparse }()
	sparseMinBytes = 1 << 62 // the whole image in memory, as for an OUT that is mostly data
	wantFails(t, []string{"convert", "--from", "f32[2,2]", in, out, "--to", "f32[2,2]{1,0:T(1048576,1048576)}"},
		"cannot hold OUT in memory", "4.00 TiB (4398046511104 bytes)", "8.00 GiB (8589934592 bytes) is available")
	if names := testfiles.DirNames(t, dir); !slices.Equal(names, []string{"s.raw"}) {
		t.Errorf("the directory holds %v, want only s.raw", names)
	}

	availableMemory = func() (int64, bool) { return 0, false } // unknown: not checked
	freeDiskSpace = func(string) (int64, bool) { return 1000, true }
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantFails(t, []string{"convert", "--from", "f32[2,2]", in, out, "--to", "f32[2,2]{1,0:T(32,32)}"},
		"cannot write OUT", "needs 4.00 KiB (4096 bytes)", "only 1000 B (1000 bytes) free")
	if got := string(readFile(t, out)); got != "old" {
		t.Errorf("OUT was changed to %q", got)
	}
	if names := testfiles.DirNames(t, dir); !slices.Equal(names, []string{"o.bin", "s.raw"}) {
		t.Errorf("the directory holds %v", names)
	}
	freeDiskSpace = func(string) (int64, bool) { return 4096, true }
	mustRun(t, "convert", "--from", "f32[2,2]", in, out, "--to", "f32[2,2]{1,0:T(32,32)}")
}

// Issue #14 item 5: show bounds its work whatever --max and --max-slices allow; these
// ran out of memory or for minutes.
func TestShowBoundsWork(t *testing.T) {
	dir := t.TempDir()
	wantFails(t, []string{"show", "f32[100000,100000]", "--svg", filepath.Join(dir, "f.svg"), "--max", "100000000"},
		"10000000000 elements to show", "at most 262144")
	wantFails(t, []string{"show", "f32[100000000,2,2]", "--max-slices", "1000000000"},
		"400000000 elements to show", "at most 4194304")
	wantFails(t, []string{"show", "u8[1000000000000000000,1,1]", "--max-slices", "9223372036854775807"}, "elements to show")
	if names := testfiles.DirNames(t, dir); len(names) != 0 {
		t.Errorf("show left %v", names)
	}
	// Up to the bound it still shows.
	out := mustRun(t, "show", "f32[600,400]", "--max", "600", "--svg", filepath.Join(dir, "f.svg"))
	if !strings.Contains(out, "footprint: 240000 elements") {
		t.Errorf("show output ends %q", out[max(0, len(out)-100):])
	}
}

// Issue #14 item 15: errors quote at most about 200 bytes of a bad input; a 120 KB
// layout string was echoed in full.
func TestErrorsQuoteLittle(t *testing.T) {
	huge := "f32[2,2]{1,0:T" + strings.Repeat("(1,1)", 24000) + "X}"
	dir := t.TempDir()
	in := filepath.Join(dir, "s.raw")
	writeF32(t, in, 1, 2, 3, 4)
	for _, args := range [][]string{
		{"info", huge},
		{"show", huge},
		{"explain", huge, "0,0"},
		{"explain", "f32[2,2]", strings.Repeat("1,", 60000) + "1"},
		{"convert", "--from", huge, in, filepath.Join(dir, "o.bin")},
		{"convert", "--from", "f32[2,2]", in, filepath.Join(dir, "o.bin"), "--to", huge},
		{"convert", "--from", "f32[2,2]", in, filepath.Join(dir, "o.bin"), "--to", "{1,0:" + strings.Repeat("T", 120000) + "}"},
		{strings.Repeat("v", 120000)},
		{"info", "f32[2,2]", strings.Repeat("x", 120000)},
	} {
		_, errOut, code := runCmd(t, args...)
		if code == exitOK || len(errOut) > 1200 {
			t.Errorf("%.80q…: exit %d, stderr of %d bytes: %.300q", args, code, len(errOut), errOut)
		}
	}
}
