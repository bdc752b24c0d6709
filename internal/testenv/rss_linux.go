package testenv

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rssFile is this process's resident file-backed memory (RssFile in
// /proc/self/status), in bytes.
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

// PeakRSSFileRise runs fn and returns by how much this process's resident
// file-backed memory rose above its level before fn at most, sampled every
// millisecond while fn runs and once after it returns. Its error is only that /proc/self/status cannot be
// read, before fn runs.
func PeakRSSFileRise(fn func()) (int64, error) {
	base, err := rssFile()
	if err != nil {
		return 0, err
	}
	var peak int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
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
	})
	fn()
	close(done)
	wg.Wait()
	if v, err := rssFile(); err == nil {
		peak = max(peak, v-base)
	}
	return peak, nil
}

// FileRise runs fn under PeakRSSFileRise and returns fn's value, the rise and fn's error;
// it skips t where /proc/self/status cannot be read.
func FileRise[T any](t testing.TB, fn func() (T, error)) (T, int64, error) {
	t.Helper()
	var v T
	var err error
	peak, perr := PeakRSSFileRise(func() { v, err = fn() })
	if perr != nil {
		t.Skipf("/proc/self/status: %v", perr)
	}
	return v, peak, err
}
