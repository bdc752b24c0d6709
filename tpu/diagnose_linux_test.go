package tpu

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tpulayout/tpulayout/buffer"
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

// Diagnosing a mapped image against a mapped reference keeps a few dozen MiB of them
// resident, not their size, though some candidates (transposed) read all over the image.
func TestDiagnoseMappedStaysFlat(t *testing.T) {
	const size = 32 << 20
	old := buffer.MmapThreshold
	buffer.MmapThreshold = 0
	defer func() { buffer.MmapThreshold = old }()
	dir := t.TempDir()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>13)
	}
	var bufs []*buffer.Buffer
	for _, s := range []string{"f32[2048,4096]{1,0:T(8,128)}", "f32[2048,4096]{1,0}"} {
		p := filepath.Join(dir, strconv.Itoa(len(bufs)))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := buffer.ReadRaw(p, layout.MustParse(s))
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
	d, err := Diagnose(bufs[0], bufs[1], CheckOptions{})
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if d.Best.Arrangement == ArrDeclared || d.Best.Matched != d.Best.Compared {
		t.Errorf("diagnosis %+v, want an arrangement that explains every element (row-major)", d.Best)
	}
	if limit := int64(40 << 20); peak > limit {
		t.Errorf("diagnosing mapped files of %d MiB: resident file memory rose by %d MiB, want at most %d",
			size>>20, peak>>20, limit>>20)
	}
	t.Logf("peak rise %d MiB", peak>>20)
}
