package buffer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/layout"
)

// rssFile is the process's resident memory backed by files (mapped), from /proc.
func rssFile() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no RssFile line")
}

// Comparing two mapped files keeps a few windows of them resident, not their size:
// the pages are released as the comparison goes.
func TestCompareMappedStaysFlat(t *testing.T) {
	const size = 64 << 20
	shape := layout.MustParse("f32[4096,4096]{1,0}")
	dir := t.TempDir()
	data := bytes.Repeat([]byte{0, 0, 0x80, 0x3f}, size/4) // 1.0
	var bufs []*Buffer
	for _, name := range []string{"a.raw", "b.raw"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := ReadRaw(p, shape)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		if !b.Mapped() {
			t.Skip("not mapped here")
		}
		bufs = append(bufs, b)
	}
	data = nil
	base, err := rssFile()
	if err != nil {
		t.Skipf("/proc/self/status: %v", err)
	}
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if v, err := rssFile(); err == nil {
				peak = max(peak, v-base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	r, err := Compare(bufs[0], bufs[1], CompareOptions{})
	close(done)
	wg.Wait()
	if err != nil || r.Identical != 4096*4096 {
		t.Fatalf("Compare: %+v, %v", r, err)
	}
	if peak > 3*releaseBytes {
		t.Errorf("comparing two mapped files of %d MiB: resident file memory rose by %d MiB, want at most %d",
			size>>20, peak>>20, 3*releaseBytes>>20)
	}
	t.Logf("peak rise %d MiB", peak>>20)
}
