package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
)

const (
	outIn   = fixtures + "f32_20x300.npy"
	outTo   = "bf16[20,300]{1,0:T(8,128)(2,1)}"
	outWant = fixtures + "f32_20x300.bf16.T8x128_2x1.bin"
)

// setStreamOut points OUT '-' at a buffer for the test.
func setStreamOut(t *testing.T) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	saved := streamOut
	streamOut = &b
	t.Cleanup(func() { streamOut = saved })
	return &b
}

// TestConvertToStdout checks that OUT '-' streams the image, whole and in bands, with
// nothing else on stdout, and creates no file.
func TestConvertToStdout(t *testing.T) {
	want := readFile(t, outWant)
	in := filepath.Join(testdataDir(t), outIn)
	for _, band := range []int64{1, 1 << 40} {
		setBand(t, band)
		img := setStreamOut(t)
		dir := t.TempDir()
		t.Chdir(dir)
		out := mustRun(t, "convert", in, "-", "--to", outTo)
		if out != "" {
			t.Errorf("band %d: stdout report %q beside the image", band, out)
		}
		if !bytes.Equal(img.Bytes(), want) {
			t.Errorf("band %d: streamed %d bytes, not the %d of %s", band, img.Len(), len(want), outWant)
		}
		if names := testfiles.DirNames(t, dir); len(names) != 0 {
			t.Errorf("band %d: OUT - left %q", band, names)
		}
	}
	for _, name := range []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		if !convert.IsStdout(name) && runtime.GOOS != "windows" {
			t.Errorf("convert.IsStdout(%q) is false", name)
		}
	}
}

// testdataDir is the package directory's absolute path, for tests that change directory.
func testdataDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestConvertToDevice checks that a character device OUT is written in place, not
// replaced by a file.
func TestConvertToDevice(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/null")
	}
	if got := mustRun(t, "convert", outIn, os.DevNull, "--to", outTo); got != outTo+"\n" {
		t.Errorf("convert to %s printed %q", os.DevNull, got)
	}
	st, err := os.Lstat(os.DevNull)
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, st.Mode(), err)
	}
}

// TestConvertToDescriptor runs the command with OUT /dev/fd/1, standard output being a
// pipe and then a regular file: the bytes reach it, and the file is the same file.
func TestConvertToDescriptor(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/fd")
	}
	if _, err := os.Stat("/dev/fd/1"); err != nil {
		t.Skip("no /dev/fd here")
	}
	want := readFile(t, outWant)
	cmd := exec.Command(os.Args[0], "convert", outIn, "/dev/fd/1", "--to", outTo)
	cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("OUT /dev/fd/1 to a pipe: err %v, %d bytes, want the %d of %s; stderr %s", err, len(got), len(want), outWant, stderr.String())
	}

	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("kept: ")
	before, _ := f.Stat()
	cmd = exec.Command(os.Args[0], "convert", outIn, "/dev/fd/1", "--to", outTo)
	cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("OUT /dev/fd/1 to a file: %v; stderr %s", err, stderr.String())
	}
	after, err := os.Stat(f.Name())
	if err != nil || !os.SameFile(before, after) {
		t.Errorf("the file standard output was is gone or replaced (%v)", err)
	}
	if got := readFile(t, f.Name()); !bytes.Equal(got, append([]byte("kept: "), want...)) {
		t.Errorf("standard output's file holds %d bytes, want \"kept: \" and the %d of the image", len(got), len(want))
	}
	if names := testfiles.DirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %q", names)
	}

	// An inherited descriptor, /dev/fd/3.
	g, err := os.Create(filepath.Join(dir, "fd3"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cmd = exec.Command(os.Args[0], "convert", outIn, "/dev/fd/3", "--to", outTo)
	cmd.Env = append(os.Environ(), "TPULAYOUT_RUN_MAIN=1")
	cmd.ExtraFiles, cmd.Stderr = []*os.File{g}, &stderr
	if out, err := cmd.Output(); err != nil || string(out) != outTo+"\n" {
		t.Fatalf("OUT /dev/fd/3: %v, stdout %q; stderr %s", err, out, stderr.String())
	}
	if got := readFile(t, g.Name()); !bytes.Equal(got, want) {
		t.Errorf("descriptor 3's file holds %d bytes, want the %d of the image", len(got), len(want))
	}
}

// TestConvertThroughSymlink checks that an OUT that is a symlink (to a file, to a
// chain of links, or dangling) is written at its target and stays a link; the same
// for a --all OUT that links to an empty directory.
func TestConvertThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	want := readFile(t, outWant)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.bin")
	os.WriteFile(real, []byte("old"), 0o600)
	os.Symlink("real.bin", filepath.Join(dir, "link"))
	os.Symlink(filepath.Join(dir, "link"), filepath.Join(dir, "chain"))
	os.Symlink("new.bin", filepath.Join(dir, "dangling"))
	for _, c := range []struct{ out, target string }{
		{"link", "real.bin"}, {"chain", "real.bin"}, {"dangling", "new.bin"},
	} {
		mustRun(t, "convert", outIn, filepath.Join(dir, c.out), "--to", outTo)
		st, err := os.Lstat(filepath.Join(dir, c.out))
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("OUT %s is no longer a symlink (%v)", c.out, err)
		}
		if got := readFile(t, filepath.Join(dir, c.target)); !bytes.Equal(got, want) {
			t.Errorf("OUT %s: its target %s holds %d bytes, want the image's %d", c.out, c.target, len(got), len(want))
		}
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode became %v", st.Mode().Perm())
	}
	if names := testfiles.DirNames(t, dir); len(names) != 5 {
		t.Errorf("directory holds %q", names)
	}

	ckpt := filepath.Join(dir, "m.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[8,128]", 1)}}, nil); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "images"), 0o755)
	os.Symlink("images", filepath.Join(dir, "imglink"))
	mustRun(t, "convert", ckpt, filepath.Join(dir, "imglink"), "--all", "--to", "tpu:v5e")
	if st, err := os.Lstat(filepath.Join(dir, "imglink")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("--all OUT imglink is no longer a symlink (%v)", err)
	}
	if names := testfiles.DirNames(t, filepath.Join(dir, "images")); len(names) != 2 {
		t.Errorf("--all through a link: images holds %q, want w.bin and manifest.json", names)
	}
}

// TestConvertBadOut checks the OUTs that cannot be written: each fails before any work,
// with a usage error that names the problem, and leaves nothing behind.
func TestConvertBadOut(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	ckpt := filepath.Join(dir, "m.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[8,128]", 1)}}, nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("old"), 0o644)
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"convert", ckpt, "", "--to", "tpu:v5e"}, []string{"OUT is empty", "(usage:"}},
		{[]string{"convert", ckpt, "", "--all", "--to", "tpu:v5e"}, []string{"OUT is empty", "(usage:"}},
		{[]string{"convert", ckpt, file, "--all", "--to", "tpu:v5e"}, []string{"OUT " + file, "new directory", "is a file", "(usage:"}},
		{[]string{"convert", ckpt, "-", "--all", "--to", "tpu:v5e"}, []string{"new directory", "(usage:"}},
	} {
		wantUsageError(t, c.args, c.wants...)
		if names := testfiles.DirNames(t, dir); len(names) != 2 {
			t.Errorf("%q left %q", c.args, names)
		}
	}
}

// TestConvertHugeTileLeavesNothing: the panicking command leaves nothing.
// (A panic while OUT is written is convert's TestPanicRemovesTemp.)
func TestConvertHugeTileLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.bin")
	os.WriteFile(empty, nil, 0o644)
	runCmd(t, "convert", "--from", "f32[8,128]{1,0:T(9223372036854775807,128)}", empty, filepath.Join(dir, "back.npy"))
	if names := testfiles.DirNames(t, dir); len(names) != 1 {
		t.Errorf("convert --from a huge tile left %q", names)
	}
}

// TestSVGOutputs checks that show --svg writes /dev/fd/1 as '-', a device in place,
// and a symlink's target (the link stays), as convert does.
func TestSVGOutputs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev, and symlinks need privileges")
	}
	const shape = "f32[3,5]{1,0:T(2,2)}"
	want := mustRun(t, "show", shape, "--svg", "-")
	// /dev/fd/1, not /dev/stdout: were it taken for a file, the rename would fail in
	// /dev/fd rather than replace the /dev/stdout link of the machine.
	if got := mustRun(t, "show", shape, "--svg", "/dev/fd/1"); got != want {
		t.Errorf("show --svg /dev/fd/1 printed %q, want what --svg - prints", got)
	}
	mustRun(t, "show", shape, "--svg", os.DevNull)
	if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device (%v)", os.DevNull, err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fig.svg"), []byte("old"), 0o644)
	os.Symlink("fig.svg", filepath.Join(dir, "link.svg"))
	mustRun(t, "show", shape, "--svg", filepath.Join(dir, "link.svg"))
	if st, err := os.Lstat(filepath.Join(dir, "link.svg")); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("--svg link.svg is no longer a symlink (%v)", err)
	}
	if got := readFile(t, filepath.Join(dir, "fig.svg")); string(got) != want {
		t.Errorf("the link's target holds %q, want the SVG", got)
	}
}
