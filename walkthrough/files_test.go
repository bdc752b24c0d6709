package walkthrough

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
