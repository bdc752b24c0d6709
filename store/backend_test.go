package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

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
