package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

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
