//go:build unix

package convert_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

func TestStreamNames(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	file := testfiles.WriteFile(t, dir, "a.bin", nil)
	for _, c := range []struct {
		out            string
		stdout, stream bool
	}{
		{"-", true, true},
		{"/dev/stdout", true, true},
		{"/dev/fd/1", true, true},
		{"/proc/self/fd/1", true, true},
		{"/dev/fd/../fd/1", true, true},
		{"/dev/stderr", false, true},
		{"/dev/fd/7", false, true},
		{"/dev/fd/0", false, true}, // not a name of stdin's, but a character device or pipe
		{"/dev/null", false, true},
		{fifo, false, true},
		{file, false, false},
		{filepath.Join(dir, "missing.bin"), false, false},
		{"/dev/fd/x", false, false},
	} {
		if got := convert.IsStdout(c.out); got != c.stdout {
			t.Errorf("IsStdout(%q) = %v", c.out, got)
		}
		if c.out == "/dev/fd/0" {
			continue // what stdin is depends on how the test runs
		}
		if got := convert.IsStream(c.out); got != c.stream {
			t.Errorf("IsStream(%q) = %v", c.out, got)
		}
	}
}

func TestCheckOutName(t *testing.T) {
	for _, c := range []struct {
		job  convert.Job
		want string
	}{
		{convert.Job{}, "Out is empty: name a file, or - for standard output"},
	} {
		err := c.job.CheckOutName()
		var e *convert.Error
		if !errors.As(err, &e) || e.Kind != convert.Setting || e.Field != "Out" || e.Error() != c.want {
			t.Errorf("%+v: %v; want a usage error %q", c.job, err, c.want)
		}
	}
	if err := (&convert.Job{Out: "x.bin"}).CheckOutName(); err != nil {
		t.Errorf("x.bin: %v", err)
	}
}

// progress records what a Job tells its Progress.
type progress struct {
	total, added int64
	totals, done int
}

func (p *progress) Total(n int64) { p.total = n; p.totals++ }
func (p *progress) Add(n int64)   { p.added += n }
func (p *progress) Done()         { p.done++ }

// TestJobOutputs: the same image whether Out is a file, standard output, a descriptor
// or a FIFO; the Progress hears every byte once.
func TestJobOutputs(t *testing.T) {
	dir := t.TempDir()
	src := buffer.MustNew(layout.MustParse("f32[20,300]"))
	for i := range src.Len() {
		src.SetF32([]int64{i / 300, i % 300}, float32(i))
	}
	in := filepath.Join(dir, "in.npy")
	if err := npy.Write(in, src); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "img.bin")
	var p progress
	r, err := (&convert.Job{In: in, Out: file, To: "tpu:v5e", DType: "bf16", Progress: &p}).Run()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(file)
	if err != nil || int64(len(want)) != r.Bytes {
		t.Fatalf("%d bytes in %s, the job says %d (%v)", len(want), file, r.Bytes, err)
	}
	if p.total != r.Bytes || p.added != r.Bytes || p.totals != 1 || p.done != 1 {
		t.Errorf("progress %+v for %d bytes", p, r.Bytes)
	}

	var stdout bytes.Buffer
	if _, err := (&convert.Job{In: in, Out: "/dev/stdout", To: "tpu:v5e", DType: "bf16", Stdout: &stdout}).Run(); err != nil || !bytes.Equal(stdout.Bytes(), want) {
		t.Errorf("/dev/stdout: %d bytes, %v", stdout.Len(), err)
	}

	f, err := os.Create(filepath.Join(dir, "fd.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("head")
	fdName := "/dev/fd/" + itoa(int(f.Fd()))
	if _, err := (&convert.Job{In: in, Out: fdName, To: "tpu:v5e", DType: "bf16"}).Run(); err != nil {
		t.Fatalf("%s: %v", fdName, err)
	}
	// Written at the descriptor's offset, as a shell's >&N.
	if got, _ := os.ReadFile(f.Name()); string(got) != "head"+string(want) {
		t.Errorf("%s: %d bytes, want head and %d", fdName, len(got), len(want))
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	if _, err := (&convert.Job{In: in, Out: fifo, To: "tpu:v5e", DType: "bf16"}).Run(); err != nil {
		t.Fatalf("FIFO: %v", err)
	}
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("FIFO: %d bytes", len(b))
	}
	var names []string
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			names = append(names, e.Name())
		}
	}
	if strings.Join(names, " ") != "fd.bin fifo img.bin in.npy" {
		t.Errorf("left beside the outputs: %v", names)
	}
}

// A job that streams into a descriptor the caller holds (/dev/fd/N) leaves it open:
// the caller goes on writing to it after the job, and after a garbage collection.
func TestJobLeavesDescriptorOpen(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npy")
	if err := npy.Write(in, buffer.MustNew(layout.MustParse("f32[8,128]"))); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := (&convert.Job{In: in, Out: "/dev/fd/" + itoa(int(f.Fd())), To: "tpu:v5e"}).Run()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	if _, err := f.WriteString("tail"); err != nil {
		t.Fatalf("the caller's descriptor after the job: %v", err)
	}
	if st, err := f.Stat(); err != nil || st.Size() != r.Bytes+4 {
		t.Errorf("%d bytes, want the image's %d and 4 (%v)", st.Size(), r.Bytes, err)
	}
	// A descriptor that is not open is an output error naming it.
	g, err := os.Create(filepath.Join(dir, "closed.bin"))
	if err != nil {
		t.Fatal(err)
	}
	closed := "/dev/fd/" + itoa(int(g.Fd()))
	g.Close()
	_, err = (&convert.Job{In: in, Out: closed, To: "tpu:v5e"}).Run()
	var e *convert.Error
	if !errors.As(err, &e) || e.Kind != convert.Output || !errors.Is(err, syscall.EBADF) || !strings.HasPrefix(e.Error(), "cannot write Out "+closed+": ") {
		t.Errorf("a closed descriptor: %v", err)
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// A stream takes an image written in order only.
func TestWriteOutputStreamOrder(t *testing.T) {
	var out bytes.Buffer
	j := &convert.Job{Out: "-", Stdout: &out}
	err := j.WriteOutput(func(w convert.ImageWriter) error {
		if _, err := w.WriteAt([]byte("ab"), 0); err != nil {
			return err
		}
		if _, err := w.WriteAt([]byte("cd"), 2); err != nil {
			return err
		}
		_, err := w.WriteAt([]byte("x"), 1)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "cannot stream out of order (byte 1 after 4)") || out.String() != "abcd" {
		t.Errorf("out of order: %v, %q written", err, out.String())
	}
}

// Result.WriteText prints Out's shape, or with All a line per tensor (its name quoted
// when it holds a space or control character) and the manifest.
func TestResultWriteText(t *testing.T) {
	dir := t.TempDir()
	ckpt := testfiles.WriteCheckpoint(t, dir, "m.safetensors",
		safetensors.NamedBuffer{Name: "w", Buf: buffer.MustNew(layout.MustParse("f32[8,128]"))},
		safetensors.NamedBuffer{Name: "a b\x1b", Buf: buffer.MustNew(layout.MustParse("f32[8,128]"))})
	out := filepath.Join(dir, "out")
	r, err := (&convert.Job{In: ckpt, Out: out, All: true, To: "tpu:v5e"}).Run()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b, out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "manifest") || !strings.HasSuffix(lines[2], filepath.Join(out, "manifest.json")) {
		t.Fatalf("All:\n%s", b.String())
	}
	for i, e := range r.Manifest.Tensors {
		f := strings.Fields(lines[i])
		if f[len(f)-2] != e.Layout || f[len(f)-1] != filepath.Join(out, e.File) || !strings.HasPrefix(lines[i], convert.NameText(e.Name)+" ") {
			t.Errorf("line %q for %+v", lines[i], e)
		}
	}
	if !strings.Contains(b.String(), `"a b\x1b"`) {
		t.Errorf("the name with a space and an escape is not quoted:\n%s", b.String())
	}
	b.Reset()
	one := &convert.Result{Shape: layout.MustParse("bf16[8,128]{1,0:T(8,128)(2,1)}")}
	if err := one.WriteText(&b, "x.bin"); err != nil || b.String() != "bf16[8,128]{1,0:T(8,128)(2,1)}\n" {
		t.Errorf("one array: %q, %v", b.String(), err)
	}
}
