package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/tpulayout/tpulayout/store/storetest"
)

// TestBackends runs the calls every backend answers alike against the file system
// and each server: PutFile and its metadata, ReadAll, Observe, List, Delete and a
// missing object.
func TestBackends(t *testing.T) {
	bases := map[string]func(t *testing.T) string{
		"file": func(t *testing.T) string { return "file://" + filepath.ToSlash(t.TempDir()) },
	}
	for _, s := range storetest.All(t) {
		bases[s.Name()] = func(t *testing.T) string { s.Point(t, s.Endpoint); return s.Scheme + "://" + s.NewBucket(t) }
	}
	for name, base := range bases {
		t.Run(name, func(t *testing.T) { checkBackend(t, base(t)) })
	}
}

func checkBackend(t *testing.T, base string) {
	ctx := context.Background()
	open := func(name string) (*Bucket, string) {
		b, key, err := Open(ctx, base+"/"+name)
		if err != nil {
			t.Fatal(err)
		}
		return b, key
	}
	b, x := open("d/x.bin")
	_, y := open("d/y.bin")
	_, none := open("d/none.bin")
	data := []byte("0123456789abcdef")
	meta := map[string]string{"sha256": "abc"}
	for key, size := range map[string]int64{x: 16, y: 3} {
		if err := b.PutFile(ctx, key, bytes.NewReader(data), size, meta); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := b.ReadAll(ctx, y); err != nil || string(got) != "012" {
		t.Errorf("ReadAll: %q, %v", got, err)
	}
	o, err := b.Object(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Local() && o.Attrs().Metadata["sha256"] != "abc" {
		t.Errorf("metadata %v", o.Attrs().Metadata)
	}
	var mu sync.Mutex
	var seen []string
	o.Observe(func(off int64, p []byte) { mu.Lock(); seen = append(seen, fmt.Sprintf("%d:%s", off, p)); mu.Unlock() })
	rs := []Range{{2, make([]byte, 3)}, {10, make([]byte, 6)}}
	if err := o.ReadRanges(rs, 2); err != nil {
		t.Fatal(err)
	}
	o.Observe(nil)
	if _, err := o.ReadAt(make([]byte, 1), 0); err != nil {
		t.Fatal(err)
	}
	slices.Sort(seen)
	if want := []string{"10:abcdef", "2:234"}; !slices.Equal(seen, want) {
		t.Errorf("observed %q, want %q", seen, want)
	}
	as, err := b.List(ctx, strings.TrimSuffix(x, "x.bin"))
	if err != nil || len(as) != 2 || as[0].Key != x || as[1].Key != y || as[1].Size != 3 {
		t.Errorf("List: %+v, %v", as, err)
	}
	if err := b.Delete(ctx, y); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{y, none} {
		if _, err := b.Stat(ctx, key); !errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), key) {
			t.Errorf("Stat of %s: %v; want ErrNotExist naming it", key, err)
		}
	}
}

// Open takes a path or a URL; a bucket holds objects by key.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "store-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	b, key, err := Open(ctx, filepath.Join(dir, "greeting.txt"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := b.Put(ctx, key, strings.NewReader("hello"), 5, nil); err != nil {
		fmt.Println(err)
		return
	}
	p, err := b.ReadAll(ctx, key)
	fmt.Println(b.Local(), string(p), err)
	_, err = b.Stat(ctx, filepath.Join(dir, "none.txt"))
	fmt.Println(errors.Is(err, ErrNotExist))
	// Output:
	// true hello <nil>
	// true
}

func TestFileBucket(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, key, err := Open(ctx, "file://"+filepath.ToSlash(dir)+"/out/a.bin")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789"), 1000)
	if err := b.Put(ctx, key, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, filepath.Join(dir, "out", "sub", "b.bin"), strings.NewReader("xy"), 2, nil); err != nil {
		t.Fatal(err)
	}
	o, err := b.Object(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 25)
	if n, err := o.ReadAt(p, 9990); n != 10 || err != io.EOF || string(p[:n]) != "0123456789" {
		t.Errorf("ReadAt at the end = %d, %v, %q", n, err, p[:n])
	}
	rs := []Range{{Off: 5, Buf: make([]byte, 10)}, {Off: 4000, Buf: make([]byte, 3000)}}
	if err := o.ReadRanges(rs, 2); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if !bytes.Equal(r.Buf, data[r.Off:r.Off+int64(len(r.Buf))]) {
			t.Errorf("range at %d differs", r.Off)
		}
	}
	as, err := b.List(ctx, filepath.Join(dir, "out")+"/")
	if err != nil || len(as) != 2 || as[0].Size != int64(len(data)) || as[1].Size != 2 {
		t.Errorf("List = %+v, %v", as, err)
	}
	// The file is replaced by a shorter one: reads through o fail, naming it.
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(key, data[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = o.ReadAt(p, 0)
	if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), key) {
		t.Errorf("read of a changed file: %v", err)
	}
	if err := b.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Stat(ctx, key); !errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), key) {
		t.Errorf("Stat of a deleted file: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}

func TestCheckContentRange(t *testing.T) {
	const size = 100
	for _, c := range []struct {
		cr   string
		off  int64
		n    int
		want string // "" for nil, "range" for a RangeError, "changed" for ErrChanged
	}{
		{"bytes 10-19/100", 10, 10, ""},
		{"bytes 10-19/*", 10, 10, ""},
		{"", 0, 10, ""},
		{"", 10, 10, "range"},                // a whole object's bytes do not start at 10
		{"bytes 20-29/100", 10, 10, "range"}, // another range of the same length
		{"bytes 10-18/100", 10, 10, "range"},
		{"bytes 10-20/100", 10, 10, "range"},
		{"bytes 10-19/200", 10, 10, "changed"},
		{"bytes 19-10/100", 10, 10, "range"},
		{"bytes 10-19/15", 10, 10, "range"},
		{"bytes +10-19/100", 10, 10, "range"},
		{"bytes 10-19", 10, 10, "range"},
		{"bytes */100", 10, 10, "range"},
		{"octets 10-19/100", 10, 10, "range"},
		{"bytes 10-99999999999999999999/100", 10, 10, "range"},
	} {
		err := checkContentRange(c.cr, c.off, c.n, size)
		var re *RangeError
		switch {
		case c.want == "" && err != nil,
			c.want == "range" && !errors.As(err, &re),
			c.want == "changed" && !errors.Is(err, ErrChanged):
			t.Errorf("checkContentRange(%q, %d, %d) = %v, want %s", c.cr, c.off, c.n, err, c.want)
		}
		if re != nil && (re.Off != c.off || re.Len != int64(c.n) || re.Size != size ||
			!strings.Contains(err.Error(), fmt.Sprintf("bytes=%d-%d", c.off, c.off+int64(c.n)-1)) || !strings.Contains(err.Error(), c.cr)) {
			t.Errorf("checkContentRange(%q): %v; want both ranges named", c.cr, err)
		}
	}
}

// FuzzContentRange: a Content-Range passes the check only when it says exactly
// the bytes asked for (or is absent, for a read from the start), and an error
// shows the header with no control character in it.
func FuzzContentRange(f *testing.F) {
	f.Add("bytes 0-9/10", int64(0), 10, int64(10))
	f.Add("bytes 10-19/*", int64(10), 10, int64(100))
	f.Add("bytes 5-4/3\x1b[2J", int64(5), 1, int64(3))
	f.Fuzz(func(t *testing.T, cr string, off int64, n int, size int64) {
		if off < 0 || n <= 0 || size <= 0 || off >= size || int64(n) > size-off {
			return // not a read ReadAt makes
		}
		err := checkContentRange(cr, off, n, size)
		first, last, total, perr := parseContentRange(cr)
		if perr == nil {
			if first < 0 || first > last || (total >= 0 && last >= total) {
				t.Fatalf("parseContentRange(%q) = %d, %d, %d", cr, first, last, total)
			}
			again := fmt.Sprintf("bytes %d-%d/%d", first, last, total)
			if f2, l2, t2, err := parseContentRange(again); total >= 0 && (err != nil || f2 != first || l2 != last || t2 != total) {
				t.Fatalf("parseContentRange(%q) = %d, %d, %d; of %q: %d, %d, %d, %v", cr, first, last, total, again, f2, l2, t2, err)
			}
		}
		if err == nil {
			if cr == "" && off != 0 || cr != "" && (perr != nil || first != off || last != off+int64(n)-1 || total >= 0 && total != size) {
				t.Fatalf("checkContentRange(%q, %d, %d, %d) passed", cr, off, n, size)
			}
			return
		}
		if strings.ContainsFunc(err.Error(), unicode.IsControl) {
			t.Fatalf("error %q holds a control character", err)
		}
	})
}
