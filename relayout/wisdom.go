package relayout

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/tpulayout/tpulayout/simd"
)

// Wisdom holds choices measured on one machine that plans use instead of the ones they
// derive from the cache sizes the CPU reports, in the spirit of FFTW's wisdom:
// `relayout-bench -tune FILE` measures them and writes the file, and plans read it when
// [WisdomEnv] names it (or after [SetWisdom]). A choice changes how fast a copy runs,
// never its bytes.
type Wisdom struct {
	// Version is the file format: 1 (or absent) holds StreamingBytes only, 2 adds
	// BlockBytes, 3 the worker split (WorkerBytes, SplitBytes, UnitsPerWorker) and
	// TransposeStreamingBytes, 4 StringCopy. A reader takes every version up to
	// [WisdomVersion] (a field an older file lacks keeps its default); WriteWisdom
	// writes WisdomVersion.
	Version int `json:"version,omitempty"`
	// CPU is the machine it was measured on, for people reading the file.
	CPU string `json:"cpu"`
	// StreamingBytes is the size of source and destination together from which plans
	// store non-temporally ([StoresAuto]); 0 keeps the default, half the last-level
	// cache. Virtual machines can report a cache far larger than the share they get.
	StreamingBytes int64 `json:"streaming_bytes"`
	// BlockBytes is the default of [WithBlockBytes], the bytes of one side of a
	// transpose block (a power of two from 256 to 16 MiB); 0 keeps the default derived
	// from the L2 cache.
	BlockBytes int `json:"block_bytes,omitempty"`
	// WorkerBytes is how much a worker must move to be worth starting: a copy of B
	// bytes (source and destination together) uses at most B/WorkerBytes workers, so
	// that the smallest copy that takes a second worker moves 2×WorkerBytes. 0 keeps
	// the default, four L2 caches.
	WorkerBytes int64 `json:"worker_bytes,omitempty"`
	// SplitBytes is the least a unit of parallel work moves (source and destination
	// together) when a plan cuts a run or repeats into units; 0 keeps the default,
	// 256 KiB.
	SplitBytes int64 `json:"split_bytes,omitempty"`
	// UnitsPerWorker is how many units of parallel work a plan on several workers cuts
	// for each worker where the array is large enough; 0 keeps the default, 8.
	UnitsPerWorker int `json:"units_per_worker,omitempty"`
	// TransposeStreamingBytes is the destination size from which plain transposes
	// store non-temporally ([StoresAuto]) even below StreamingBytes; 0 keeps the
	// default, four L2 caches.
	TransposeStreamingBytes int64 `json:"transpose_streaming_bytes,omitempty"`
	// StringCopy says how plans copy long contiguous runs they store non-temporally
	// (identical layouts, bitcasts, each worker's part of such a copy): with the CPU's
	// string copy (REP MOVSB) when true, with a loop of non-temporal vector stores when
	// false (see simd.Kernels.WithStringCopy). Absent (nil) keeps simd's rule from the
	// CPU model. Kernel sets without assembly (generic, purego builds) ignore it.
	StringCopy *bool `json:"string_copy,omitempty"`
}

// WisdomVersion is the newest wisdom file format this package reads and writes.
const WisdomVersion = 4

// wisdomKernels is k with the wisdom's choice of string copy where it has one.
func wisdomKernels(k *simd.Kernels) *simd.Kernels {
	if w := wisdom.Load(); w != nil && w.StringCopy != nil {
		return k.WithStringCopy(*w.StringCopy)
	}
	return k
}

// WisdomEnv names the environment variable that, when set to a file written by
// relayout-bench -tune, makes plans use its choices. It is read once, by the first
// [NewPlan]; a file that cannot be read or parsed is that call's error, and every
// later one's.
const WisdomEnv = "TPULAYOUT_WISDOM"

var (
	wisdom     atomic.Pointer[Wisdom]
	wisdomOnce sync.Once
	wisdomErr  error
)

// loadWisdom reads the file WisdomEnv names, once.
func loadWisdom() error {
	wisdomOnce.Do(func() {
		path := os.Getenv(WisdomEnv)
		if path == "" {
			return
		}
		w, err := ReadWisdom(path)
		if err != nil {
			wisdomErr = fmt.Errorf("%s: %w", WisdomEnv, err)
			return
		}
		wisdom.CompareAndSwap(nil, w)
	})
	return wisdomErr
}

// ReadWisdom reads a wisdom file: JSON with the fields of [Wisdom].
func ReadWisdom(path string) (*Wisdom, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("relayout: wisdom: %w", err)
	}
	var w Wisdom
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("relayout: wisdom %s: %w", path, err)
	}
	if w.Version < 0 || w.Version > WisdomVersion {
		return nil, fmt.Errorf("relayout: wisdom %s: version %d: want 1 to %d (a newer relayout-bench -tune wrote it)", path, w.Version, WisdomVersion)
	}
	if w.StreamingBytes < 0 || w.StreamingBytes > 1<<50 {
		return nil, fmt.Errorf("relayout: wisdom %s: streaming_bytes %d: want 0 (the default) to 2^50", path, w.StreamingBytes)
	}
	if b := w.BlockBytes; b != 0 && (b < 256 || b > 1<<24 || b&(b-1) != 0) {
		return nil, fmt.Errorf("relayout: wisdom %s: block_bytes %d: want 0 (the default) or a power of two from 256 to 16777216", path, b)
	}
	for _, f := range []struct {
		name     string
		v, least int64
	}{
		{"worker_bytes", w.WorkerBytes, 4 << 10},
		{"split_bytes", w.SplitBytes, 4 << 10},
		{"transpose_streaming_bytes", w.TransposeStreamingBytes, 1},
	} {
		if f.v != 0 && (f.v < f.least || f.v > 1<<50) {
			return nil, fmt.Errorf("relayout: wisdom %s: %s %d: want 0 (the default) or %d to 2^50", path, f.name, f.v, f.least)
		}
	}
	if u := w.UnitsPerWorker; u < 0 || u > 64 {
		return nil, fmt.Errorf("relayout: wisdom %s: units_per_worker %d: want 0 (the default) to 64", path, u)
	}
	return &w, nil
}

// WriteWisdom writes w to path as JSON, through a temporary file renamed over it.
func WriteWisdom(path string, w *Wisdom) error {
	if w == nil {
		return errors.New("relayout: WriteWisdom: nil wisdom")
	}
	v := *w
	v.Version = WisdomVersion
	b, err := json.MarshalIndent(&v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dirOf(path), ".wisdom-*")
	if err != nil {
		return fmt.Errorf("relayout: wisdom: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name()) // ours: made above
		return fmt.Errorf("relayout: wisdom: %w", err)
	}
	return nil
}

func dirOf(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if os.IsPathSeparator(path[i]) {
			return path[:i+1]
		}
	}
	return "."
}

// SetWisdom makes plans made from now on use w's choices (nil: the defaults), and
// returns a function that restores the previous wisdom. Plans already made keep theirs.
func SetWisdom(w *Wisdom) (restore func()) {
	loadWisdom() // so that the environment's file, read later, does not replace w
	prev := wisdom.Swap(w)
	return func() { wisdom.Store(prev) }
}
