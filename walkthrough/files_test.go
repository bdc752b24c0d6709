package walkthrough

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/buffer/npy"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/relayout"
)

// TestWriteKeepsAndRefuses: a second Write keeps every file; a file of other bytes is
// an error and stays as it was.
func TestWriteKeepsAndRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("makes the files three times; the command's TestExample checks the same in -short runs")
	}
	dir := filepath.Join(t.TempDir(), "new")
	ws, err := Write(dir)
	if err != nil || len(ws) != len(Files()) {
		t.Fatalf("Write: %d files, %v", len(ws), err)
	}
	for _, w := range ws {
		if b, _ := os.ReadFile(w.Path); w.Kept || int64(len(b)) != w.Bytes {
			t.Errorf("%s: kept %v, %d bytes on disk, %d said", w.Name, w.Kept, len(b), w.Bytes)
		}
	}
	ws, err = Write(dir)
	for _, w := range ws {
		if !w.Kept {
			t.Errorf("the second Write wrote %s", w.Name)
		}
	}
	mine := filepath.Join(dir, "small.npy")
	os.WriteFile(mine, []byte("mine"), 0o644)
	if _, err := Write(dir); err == nil {
		t.Error("Write over a file of other bytes succeeded")
	}
	if b, _ := os.ReadFile(mine); !bytes.Equal(b, []byte("mine")) {
		t.Error("the file of other bytes was overwritten")
	}
}

// TestWriteErrors: a DIR that cannot be made and a file that cannot be written are
// errors naming the path and the cause, and nothing is written past them.
func TestWriteErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, root string) string // returns DIR
		want  func(dir string) string
		files int // files written before the error
	}{
		{"DIR is a file", func(t *testing.T, root string) string {
			p := filepath.Join(root, "file")
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(p, "dir")
		}, func(dir string) string { return "cannot make DIR " + dir + ": not a directory" }, 0},
		{"a file is a directory", func(t *testing.T, root string) string {
			if err := os.MkdirAll(filepath.Join(root, "weights.npy"), 0o755); err != nil {
				t.Fatal(err)
			}
			return root
		}, func(dir string) string {
			return "cannot write " + filepath.Join(dir, "weights.npy") + ": is a directory"
		}, 0},
	} {
		dir := c.setup(t, t.TempDir())
		ws, err := Write(dir)
		if err == nil || err.Error() != c.want(dir) || len(ws) != c.files {
			t.Errorf("%s: %d written, error %v; want %q", c.name, len(ws), err, c.want(dir))
		}
	}
}

// The truncated dump holds small.npy's values cut to bf16 toward zero (the high half
// of each f32), in bf16[20,300]{1,0:T(8,128)(2,1)}: read back to row-major, every
// element is the high 16 bits of small.npy's.
func TestTruncatedIsTheBug(t *testing.T) {
	var small, trunc []byte
	for _, f := range Files() {
		b, err := f.Data()
		if err != nil {
			t.Fatal(err)
		}
		switch f.Name {
		case "small.npy":
			small = b
		case "truncated.bin":
			trunc = b
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "small.npy")
	if err := os.WriteFile(p, small, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := npy.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	dump, err := buffer.Wrap(layout.MustParse("bf16[20,300]{1,0:T(8,128)(2,1)}"), trunc)
	if err != nil {
		t.Fatal(err)
	}
	rows := buffer.MustNew(layout.MustParse("bf16[20,300]"))
	plan, err := relayout.NewPlan(rows.Shape, dump.Shape)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Copy(rows, dump); err != nil {
		t.Fatal(err)
	}
	rounded := 0
	for i := range src.Len() {
		f := binary.LittleEndian.Uint32(src.Data[4*i:])
		got := binary.LittleEndian.Uint16(rows.Data[2*i:])
		if got != uint16(f>>16) {
			t.Fatalf("element %d: %#04x, want %#04x, the high half of %#08x", i, got, f>>16, f)
		}
		if v := float64(math.Float32frombits(f)); math.Abs(float64(math.Float32frombits(uint32(got)<<16))) < math.Abs(v) {
			rounded++
		}
	}
	if rounded == 0 || !strings.HasSuffix(src.Shape.String(), "[20,300]{1,0}") {
		t.Errorf("%d of %d elements cut toward zero; shape %s", rounded, src.Len(), src.Shape)
	}
}

// Example lists the files and the first bytes of their hashes: the same on every
// machine (the README's transcript shows figures computed from them).
func Example() {
	for _, f := range Files() {
		b, err := f.Data()
		if err != nil {
			fmt.Println(err)
			return
		}
		sum := sha256.Sum256(b)
		fmt.Printf("%-17s %8d %x\n", f.Name, len(b), sum[:4])
	}
	// Output:
	// weights.npy        1048704 41fd716d
	// small.npy            24128 84f7b745
	// model.safetensors  5245184 75388816
	// truncated.bin        18432 7aeb3ed8
	// module.txt             408 bf214ecd
	// rules.json             170 7d3b140c
}
