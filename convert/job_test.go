package convert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/buffer/safetensors"
	"github.com/tpulayout/tpulayout/internal/compilehook"
	"github.com/tpulayout/tpulayout/internal/testfiles"
	"github.com/tpulayout/tpulayout/layout"
)

// The job driven from Go, without the command: every input kind, output rule and
// report the command's convert verb prints comes from here.

// recorder is a Progress and a Note that keep what they heard.
type recorder struct {
	total, added int64
	done         int
	notes        []string
}

func (r *recorder) Total(n int64)   { r.total = n }
func (r *recorder) Add(n int64)     { r.added += n }
func (r *recorder) Done()           { r.done++ }
func (r *recorder) note(m Message)  { r.notes = append(r.notes, m.String()) }
func (r *recorder) job(j *Job) *Job { j.Progress, j.Note = r, r.note; return j }

// checkImage compares every element of the image in path, of shape dst, with src
// through the layout's index math (the oracle), converting as the job does.
func checkImage(t *testing.T, path string, dst layout.Shape, src *buffer.Buffer) {
	t.Helper()
	img, err := buffer.ReadRaw(path, dst)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	ix, sx := img.Indexer(), src.Indexer()
	idx := make([]int64, ix.Rank())
	for {
		got := buffer.LoadBits(img.Data, ix.Offset(idx), ix.ElementBits())
		want := buffer.LoadBits(src.Data, sx.Offset(idx), sx.ElementBits())
		if dst.DType != src.DType() {
			want = buffer.ConvertElement(dst.DType, src.DType(), want)
		}
		if got != want {
			t.Fatalf("%s at %v: %#x, want %#x", dst, idx, got, want)
		}
		if !layout.NextIndex(idx, dst.Dims) {
			return
		}
	}
}

func TestJobRoundTripExact(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ host, to, dtype string }{
		{"f32[20,300]", "tpu:v5e", "bf16"},
		{"f32[20,300]", "{0,1:T(8,128)}", ""},
		{"s8[3,70,200]", "s8[3,70,200]{0,2,1:T(32,128)(4,1)}", ""},
		{"bf16[5]", "{0:T(1024)}", ""},
	} {
		src := testfiles.RandomBuffer(t, c.host, 3)
		in := testfiles.WriteNPY(t, dir, "in.npy", src)
		img := filepath.Join(dir, "img.bin")
		var rec recorder
		r, err := rec.job(&Job{In: in, Out: img, To: c.to, DType: c.dtype}).Run()
		if err != nil {
			t.Fatalf("%s → %s: %v", c.host, c.to, err)
		}
		checkImage(t, img, r.Shape, src)
		if st, _ := os.Stat(img); st.Size() != r.Bytes || rec.total != r.Bytes || rec.added != r.Bytes || rec.done != 1 {
			t.Errorf("%s: %d bytes written, %d on disk; progress heard total %d, added %d, done %d",
				c.to, r.Bytes, st.Size(), rec.total, rec.added, rec.done)
		}
		back := filepath.Join(dir, "back.npy")
		if _, err := (&Job{In: img, Out: back, From: r.Shape.String(), To: src.DType().String()}).Run(); err != nil {
			t.Fatal(err)
		}
		b, err := npy.Read(back)
		if err != nil {
			t.Fatal(err)
		}
		if c.dtype == "" && !bytes.Equal(b.Data, src.Data) {
			t.Errorf("%s: the round trip changed the array", c.to)
		}
	}
}

// TestJobErrors: each error has its kind and names the field it is about; its message
// names the Job's fields, which a caller words its own way through Words.
func TestJobErrors(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[8,128]", 1))
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	cli := map[string]string{"In": "IN", "Out": "OUT", "To": "--to", "From": "--from", "DType": "--dtype",
		"Tensor": "--tensor", "Pad": "--pad", "View": "--view", "All": "--all", "Force": "--force"}
	for _, c := range []struct {
		job       Job
		kind      Kind
		field     string
		lib, with string // the message with the fields' names and with cli's
	}{
		{Job{In: in, Out: filepath.Join(dir, "o.bin")}, Setting, "To", "missing To: the layout of the device image Out", "missing --to: the layout of the device image OUT"},
		{Job{In: in, Out: "o.bin", Force: true}, Setting, "Force", "Force replaces the Out directory of All", "--force replaces the OUT directory of --all"},
		{Job{In: in, Out: "o.bin", From: "f32[8,128]"}, Setting, "From", "From is for a raw In; ", "--from is for a raw IN; "},
		{Job{In: in, Out: "o.bin", To: "tpu:v5e", Pad: "1e999"}, Setting, "Pad", "Pad 1e999 is outside float64's range", "--pad 1e999 is outside"},
		{Job{In: in, Out: "o.bin", To: "f32", DType: "bf16"}, Setting, "To", "To f32 and DType bf16 disagree", "--to f32 and --dtype bf16 disagree"},
		{Job{In: in, Out: ""}, Setting, "Out", "Out is empty", "OUT is empty"},
		{Job{In: filepath.Join(dir, "none.npy"), Out: "o.bin", To: "tpu:v5e"}, Input, "In", "cannot read In " + dir, "cannot read IN " + dir},
		{Job{In: in, Out: "o.bin", To: "f32[9,128]"}, Input, "To", "To f32[9,128] has dims [9,128], but In f32[8,128]{1,0} has dims [8,128]", "--to f32[9,128] has dims"},
		{Job{In: in, Out: filepath.Join(dir, "adir"), To: "tpu:v5e"}, Output, "Out", "cannot write Out " + dir + "/adir: it is not a regular file", "cannot write OUT"},
		{Job{In: in, Out: in, To: "f32"}, Setting, "Out", "Out " + in + " is In itself", "OUT " + in + " is IN itself"},
		{Job{In: in, Out: "o.bin", All: true, To: "tpu:v5e"}, Setting, "All", "All converts every tensor of a .safetensors In", "--all converts every tensor of a .safetensors IN"},
		{Job{In: "-", Out: "o", All: true, Stdin: strings.NewReader("")}, Setting, "In", "In - (standard input) is for one array", "IN - (standard input)"},
	} {
		_, err := c.job.Run()
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%+v: error %v (%T), want an *Error", c.job, err, err)
			continue
		}
		if e.Kind != c.kind || e.Field != c.field {
			t.Errorf("%+v: %s error about %q, want a %s error about %q", c.job, e.Kind, e.Field, c.kind, c.field)
		}
		if !strings.Contains(e.Error(), c.lib) {
			t.Errorf("%+v: %q, want %q in it", c.job, e.Error(), c.lib)
		}
		if got := e.Words(func(f string) string { return cli[f] }, nil); !strings.Contains(got, c.with) {
			t.Errorf("%+v: in a command's words %q, want %q in it", c.job, got, c.with)
		}
	}
	if names := testfiles.DirNames(t, dir); strings.Join(names, " ") != "adir in.npy" {
		t.Errorf("failed jobs left %q", names)
	}
}

// TestJobErrorCauses: an error unwraps to its cause, so that a missing input is
// fs.ErrNotExist, for a file and for a tensor's file alike, and names its path.
func TestJobErrorCauses(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.npy")
	for _, j := range []*Job{
		{In: missing, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e"},
		{In: filepath.Join(dir, "none.safetensors"), Out: filepath.Join(dir, "od"), To: "tpu:v5e", All: true},
		{In: filepath.Join(dir, "none.bin"), Out: filepath.Join(dir, "o.bin"), From: "f32[8]"},
	} {
		_, err := j.Run()
		var e *Error
		if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) || e.Kind != Input || e.Field != "In" {
			t.Errorf("%+v: %v; want an Input error about In that is fs.ErrNotExist", j, err)
		}
	}
	_, err := (&Check{Dump: missing, Layout: "f32[8]", Ref: missing}).Run()
	var e *Error
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &e) || e.Field != "Dump" {
		t.Errorf("check: %v; want an error about Dump that is fs.ErrNotExist", err)
	}
}

// TestJobStdinAndStdout: In "-" is read from Stdin (a .npy stream known by its
// magic), Out "-" streams into Stdout, and messages name "-", not the spooled copy.
func TestJobStdinAndStdout(t *testing.T) {
	dir := t.TempDir()
	src := testfiles.RandomBuffer(t, "f32[8,128]", 2)
	npyBytes, _ := os.ReadFile(testfiles.WriteNPY(t, dir, "in.npy", src))
	var out bytes.Buffer
	r, err := (&Job{In: "-", Out: "-", To: "f32[8,128]{0,1:T(8,128)}", Stdin: bytes.NewReader(npyBytes), Stdout: &out}).Run()
	if err != nil {
		t.Fatal(err)
	}
	if int64(out.Len()) != r.Bytes || r.Bytes == 0 {
		t.Errorf("streamed %d bytes, the job says %d", out.Len(), r.Bytes)
	}
	img := filepath.Join(dir, "img.bin")
	os.WriteFile(img, out.Bytes(), 0o644)
	checkImage(t, img, r.Shape, src)

	_, err = (&Job{In: "-", Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Stdin: strings.NewReader("raw bytes")}).Run()
	if err == nil || !strings.Contains(err.Error(), "In - (standard input) is raw bytes") || KindOf(err) != Setting {
		t.Errorf("raw stdin without From: %v", err)
	}
}

// TestJobAll converts every tensor into a directory with its manifest, notes the
// guessed defaults once, replaces its own output with Force, and refuses to replace
// a directory it did not write.
func TestJobAll(t *testing.T) {
	dir := t.TempDir()
	ckpt := testfiles.WriteCheckpoint(t, dir, "m.safetensors",
		safetensors.NamedBuffer{Name: "a/w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 1)},
		safetensors.NamedBuffer{Name: "q", Buf: testfiles.RandomBuffer(t, "s8[64,130]", 2)})
	out := filepath.Join(dir, "images")
	var rec recorder
	r, err := rec.job(&Job{In: ckpt, Out: out, All: true, To: "tpu:v5e", DType: "bf16"}).Run()
	if err != nil {
		t.Fatal(err)
	}
	m := r.Manifest
	if m == nil || len(m.Tensors) != 2 || m.Tensors[0].File != "a_w.bin" || m.Tensors[1].Layout != "s8[64,130]{1,0:T(8,128)(4,1)}" {
		t.Fatalf("manifest %+v", m)
	}
	var onDisk Manifest
	if b, _ := os.ReadFile(filepath.Join(out, "manifest.json")); json.Unmarshal(b, &onDisk) != nil || onDisk.Format != AllFormat {
		t.Errorf("manifest.json: %s", b)
	}
	if len(rec.notes) != 1 || !strings.Contains(rec.notes[0], "defaults of 1 of 2 tensors are guesses (first q ") {
		t.Errorf("notes %q", rec.notes)
	}
	if rec.added != m.Tensors[0].Bytes+m.Tensors[1].Bytes || rec.done != 1 {
		t.Errorf("progress heard %d bytes, done %d", rec.added, rec.done)
	}
	if err := CheckOwned(out); err != nil {
		t.Errorf("CheckOwned(our output): %v", err)
	}
	if _, err := (&Job{In: ckpt, Out: out, All: true, To: "tpu:v5e"}).Run(); KindOf(err) != Output || !strings.Contains(err.Error(), "not empty (Force replaces") {
		t.Errorf("All over an existing output without Force: %v", err)
	}
	if _, err := (&Job{In: ckpt, Out: out, All: true, Force: true, To: "{1,0:T(8,128)}"}).Run(); err != nil {
		t.Fatalf("Force: %v", err)
	}
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	_, err = (&Job{In: ckpt, Out: out, All: true, Force: true, To: "tpu:v5e"}).Run()
	if err == nil || !strings.Contains(err.Error(), "holds notes.txt, which its manifest.json does not list") {
		t.Errorf("Force over a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Error("the foreign file is gone")
	}
}

// TestJobCapacity: a footprint beyond the memory or disk Limits report fails before
// any file is made, naming both sizes.
func TestJobCapacity(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[8,128]", 1))
	huge := "f32[8,128]{1,0:T(1048576,1024)}" // 4 GiB
	_, err := (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: huge,
		Limits: Limits{SparseMinBytes: 1 << 62, Memory: func() (int64, bool) { return 1 << 30, true }}}).Run()
	if KindOf(err) != Output || !strings.Contains(err.Error(), "cannot hold Out in memory: converting needs 4.00 GiB (4294967296 bytes), but only 1.00 GiB (1073741824 bytes) is available") {
		t.Errorf("memory: %v", err)
	}
	_, err = (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: huge,
		Limits: Limits{Memory: func() (int64, bool) { return 1 << 40, true }, FreeDisk: func(string) (int64, bool) { return 4096, true }}}).Run()
	if KindOf(err) != Output || !strings.Contains(err.Error(), "no space left: it needs 4.00 GiB (4294967296 bytes), but its file system has only 4.00 KiB (4096 bytes) free") {
		t.Errorf("disk: %v", err)
	}
	if names := testfiles.DirNames(t, dir); len(names) != 1 {
		t.Errorf("left %q", names)
	}
}

// tempsRecorder is a Temps that keeps what it heard.
type tempsRecorder struct {
	held            int
	tracked, placed []string
	untracked       []string
}

func (r *tempsRecorder) Hold() func()     { r.held++; return sync.OnceFunc(func() { r.held-- }) }
func (r *tempsRecorder) Track(p string)   { r.tracked = append(r.tracked, p) }
func (r *tempsRecorder) Untrack(p string) { r.untracked = append(r.untracked, p) }
func (r *tempsRecorder) Placed()          { r.placed = append(r.placed, "placed") }
func (r *tempsRecorder) check(t *testing.T, what string) {
	t.Helper()
	slices.Sort(r.tracked)
	slices.Sort(r.untracked)
	if len(r.tracked) == 0 || !slices.Equal(r.tracked, r.untracked) || len(r.placed) == 0 || r.held != 0 {
		t.Errorf("%s: tracked %q, untracked %q, placed %d times, %d holds left", what, r.tracked, r.untracked, len(r.placed), r.held)
	}
}

// TestJobTemps: a Job tells Temps of its temporary output, under a hold, and that Out
// is placed; with All, of its temporary tree.
func TestJobTemps(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[8,128]", 1))
	var r tempsRecorder
	if _, err := (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Temps: &r}).Run(); err != nil {
		t.Fatal(err)
	}
	r.check(t, "one file")
	ckpt := testfiles.WriteCheckpoint(t, dir, "m.safetensors",
		safetensors.NamedBuffer{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[8,128]", 2)})
	r = tempsRecorder{}
	if _, err := (&Job{In: ckpt, Out: filepath.Join(dir, "od"), To: "tpu:v5e", All: true, Temps: &r}).Run(); err != nil {
		t.Fatal(err)
	}
	r.check(t, "All")
	if len(r.tracked) > 0 && filepath.Dir(r.tracked[0]) != dir {
		t.Errorf("the temporary tree %s is not beside Out", r.tracked[0])
	}
}

// TestJobCompilesTargetOnce: a conversion compiles its destination shape once, in
// Target, and passes the compiled shape down to the plan and the destination buffer,
// whole or in bands, and for every tensor of All.
func TestJobCompilesTargetOnce(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[24,136]", 1))
	ckpt := filepath.Join(dir, "in.safetensors")
	if err := safetensors.Write(ckpt, []safetensors.NamedBuffer{{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[24,136]", 2)}}, nil); err != nil {
		t.Fatal(err)
	}
	const dst = "bf16[24,136]{1,0:T(8,128)(2,1)}"
	for _, c := range []struct {
		name string
		job  Job
	}{
		{"whole", Job{In: in, Out: filepath.Join(dir, "whole.bin"), To: dst}},
		{"bands", Job{In: in, Out: filepath.Join(dir, "bands.bin"), To: dst, Limits: Limits{BandBytes: 1}}},
		{"layout", Job{In: in, Out: filepath.Join(dir, "layout.bin"), To: "{1,0:T(8,128)(2,1)}", DType: "bf16"}},
		{"all", Job{In: ckpt, Out: filepath.Join(dir, "all"), To: "{1,0:T(8,128)(2,1)}", DType: "bf16", All: true}},
	} {
		var mu sync.Mutex
		n := 0
		restore := compilehook.Set(func(s string) {
			mu.Lock()
			defer mu.Unlock()
			if s == dst {
				n++
			}
		})
		_, err := c.job.Run()
		restore()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n != 1 {
			t.Errorf("%s: %s compiled %d times, want once", c.name, dst, n)
		}
	}
}

// TestJobStdinErrorsName: an error about a bad stream names it as In's name in every
// error of its chain, not only in the outer text: no cause names the spooled copy.
func TestJobStdinErrorsName(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()
	for _, in := range []string{"\x93NUMPY\x01\x00\x02\x00{}", "\x40\x00\x00\x00\x00\x00\x00\x00{\"x\":"} {
		_, err := (&Job{In: "-", Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Stdin: strings.NewReader(in)}).Run()
		var e *Error
		if !errors.As(err, &e) || e.Path != StdinName || e.Err == nil {
			t.Fatalf("%q: %#v", in, err)
		}
		for c := e.Err; c != nil; c = errors.Unwrap(c) {
			if strings.Contains(c.Error(), "tpulayout-stdin") || !strings.Contains(c.Error(), StdinName) && c == e.Err {
				t.Errorf("%q: cause %q (%T) names the copy, or not In", in, c, c)
			}
		}
	}
}

// TestJobAllErrorsNameOut: an error about a tensor's file of All names it in Out, the
// directory it is written for, not in the temporary tree that becomes Out (a
// relative Out too).
func TestJobAllErrorsNameOut(t *testing.T) {
	dir := t.TempDir()
	testfiles.WriteCheckpoint(t, dir, "m.safetensors",
		safetensors.NamedBuffer{Name: "w", Buf: testfiles.RandomBuffer(t, "bf16[64,256]", 1)})
	t.Chdir(dir)
	_, err := (&Job{In: "m.safetensors", Out: "od", To: "tpu:v5e", All: true,
		Limits: Limits{FreeDisk: func(string) (int64, bool) { return 4096, true }}}).Run()
	want := "cannot write Out " + filepath.Join("od", "w.bin") + ": no space left"
	if KindOf(err) != Output || err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestWordsQuoteReaderCause: an input that a reader refuses is an error about its
// path whose cause is the reader's *buffer.FileError naming the same file; Words
// quotes that cause without the name, which the sentence gives already, and Error
// quotes it whole.
func TestWordsQuoteReaderCause(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"bad.npy", "bad.safetensors"} {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, []byte("not an array file at all"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e"}).Run()
		var e *Error
		var fe *buffer.FileError
		if !errors.As(err, &e) || e.Path != in || !errors.As(e.Err, &fe) || fe.Name != in || !errors.Is(err, buffer.ErrFormat) {
			t.Fatalf("%s: %v, want an Error about %s caused by a FileError naming it", name, err, in)
		}
		words := e.Words(nil, func(c error) string { return c.Error() })
		if want := "cannot read In " + in + ": " + fe.Err.Error(); words != want {
			t.Errorf("%s: Words %q, want %q", name, words, want)
		}
		if want := "cannot read In " + in + ": " + in + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: Error %q, want it to start %q", name, err, want)
		}
	}
}

// TestRunContext: a job whose context is done stops before it writes, in bands and
// with All alike, with an Output error that unwraps to ctx.Err(), and leaves nothing.
func TestRunContext(t *testing.T) {
	dir := t.TempDir()
	in := testfiles.WriteNPY(t, dir, "in.npy", testfiles.RandomBuffer(t, "f32[64,256]", 1))
	ckpt := testfiles.WriteCheckpoint(t, dir, "m.safetensors",
		safetensors.NamedBuffer{Name: "w", Buf: testfiles.RandomBuffer(t, "f32[16,256]", 2)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, j := range []*Job{
		{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Limits: Limits{BandBytes: 8 << 10}},
		{In: ckpt, Out: filepath.Join(dir, "od"), To: "tpu:v5e", All: true},
	} {
		_, err := j.RunContext(ctx)
		var e *Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &e) || e.Kind != Output || e.Field != "Out" {
			t.Errorf("%s: %v; want an Output error about Out that is context.Canceled", j.Out, err)
		}
	}
	if names := testfiles.DirNames(t, dir); len(names) != 2 {
		t.Errorf("stopped jobs left %q", names)
	}
	if _, err := (&Job{In: in, Out: filepath.Join(dir, "o.bin"), To: "tpu:v5e", Limits: Limits{BandBytes: 8 << 10}}).RunContext(context.Background()); err != nil {
		t.Errorf("a live context: %v", err)
	}
}

// panicProgress panics when it hears bytes written, as a display whose writer fails might.
type panicProgress struct{ noProgress }

func (panicProgress) Add(int64) { panic("panicProgress") }

// outTo is a device layout of the arrays the tests convert.
const outTo = "bf16[20,300]{1,0:T(8,128)(2,1)}"

// TestPanicRemovesTemp checks that a panic while Out is written (here from Progress,
// after the first band) removes the temporary file, and that a source whose bytes are
// shorter than its shape is an error and not a panic.
func TestPanicRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	defer func(m int64) { buffer.MmapThreshold = m }(buffer.MmapThreshold)
	buffer.MmapThreshold = 0
	j := &Job{Out: filepath.Join(dir, "out.bin"), Limits: Limits{BandBytes: 1}}
	src := testfiles.RandomBuffer(t, "f32[20,300]", 1)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic from Progress")
			}
		}()
		j.writeArray(nil, testfiles.Compile(t, outTo), src, nil, panicProgress{})
	}()
	short := testfiles.RandomBuffer(t, "f32[20,300]", 1)
	short.Data = short.Data[: len(short.Data)/2 : len(short.Data)/2]
	if _, err := j.writeArray(nil, testfiles.Compile(t, outTo), short, nil, nil); err == nil {
		t.Error("a short source converts")
	}
	if names := testfiles.DirNames(t, dir); len(names) != 0 {
		t.Errorf("a panicking job left %q", names)
	}
}
