package relayout

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// Option configures a [Plan]; a bad value is an error from [NewPlan].
type Option func(*options) error

type options struct {
	workers    int
	blockBytes int
	split      workSplit // how the plan's copies split over workers
	kernels    *simd.Kernels
	pad        padPolicy
	padValue   float64
	generic    bool // force the per-element path (tests and benchmarks)
	stores     Stores
}

// Stores says how a plan stores its destination: [StoresAuto] decides from the sizes
// (see [Wisdom]), [StoresStream] uses non-temporal stores wherever a kernel has them,
// [StoresCache] never does. The choice changes the speed of a copy, never its bytes.
type Stores uint8

const (
	StoresAuto Stores = iota
	StoresStream
	StoresCache
)

func (s Stores) String() string {
	switch s {
	case StoresStream:
		return "stream"
	case StoresCache:
		return "cache"
	}
	return "auto"
}

// ParseStores reads a [Stores] from its name: "auto", "stream" or "cache".
func ParseStores(name string) (Stores, error) {
	for _, s := range []Stores{StoresAuto, StoresStream, StoresCache} {
		if s.String() == name {
			return s, nil
		}
	}
	return StoresAuto, fmt.Errorf("relayout: stores %q: want auto, stream or cache", name)
}

// WithStores sets how the plan stores its destination (default [StoresAuto]): for
// measuring which way is faster on a machine, as relayout-bench -stores and -tune do.
func WithStores(s Stores) Option {
	return func(o *options) error {
		if s > StoresCache {
			return fmt.Errorf("relayout: WithStores(%d): want StoresAuto, StoresStream or StoresCache", s)
		}
		o.stores = s
		return nil
	}
}

// storesOr is whether to stream given the sizes' choice auto.
func (o *options) storesOr(auto bool) bool {
	switch o.stores {
	case StoresStream:
		return true
	case StoresCache:
		return false
	}
	return auto
}

type padPolicy uint8

const (
	padZero padPolicy = iota
	padLeave
	padValue
)

func defaultOptions() options {
	return options{workers: runtime.GOMAXPROCS(0), blockBytes: defaultBlockBytes(), split: defaultSplit(), kernels: simd.Default()}
}

// WithWorkers sets how many goroutines a Copy uses (default GOMAXPROCS). Each takes a
// disjoint range of the destination.
func WithWorkers(n int) Option {
	return func(o *options) error {
		if n < 1 || n > 1024 {
			return fmt.Errorf("relayout: WithWorkers(%d): want 1 to 1024", n)
		}
		o.workers = n
		return nil
	}
}

// WithBlockBytes sets the bytes of one transpose block on each side (default: the L2
// cache size the CPU reports, rounded down to a power of two, or 1 MiB when unknown). It
// must be a power of two from 256 to 16 MiB.
func WithBlockBytes(n int) Option {
	return func(o *options) error {
		if n < 256 || n > 1<<24 || n&(n-1) != 0 {
			return fmt.Errorf("relayout: WithBlockBytes(%d): want a power of two from 256 to 16777216", n)
		}
		o.blockBytes = n
		return nil
	}
}

// WithKernel picks the SIMD implementation by name: "generic", "avx2" or "avx512" (see
// simd.Available); "reference" skips the fast path altogether and copies element by
// element through the layouts' index math.
func WithKernel(name string) Option {
	return func(o *options) error {
		if name == "reference" {
			o.generic = true
			return nil
		}
		k, ok := simd.Lookup(name)
		if !ok {
			var names []string
			for _, k := range simd.Available() {
				names = append(names, k.Name)
			}
			return fmt.Errorf("relayout: WithKernel(%q): not available on this machine (have %v and reference)", name, names)
		}
		o.kernels = k
		return nil
	}
}

// WithPadZero writes zeros to destination padding (the default).
func WithPadZero() Option { return func(o *options) error { o.pad = padZero; return nil } }

// WithPadLeave leaves destination padding untouched.
func WithPadLeave() Option { return func(o *options) error { o.pad = padLeave; return nil } }

// WithPadValue fills destination padding with v, converted to the destination type.
func WithPadValue(v float64) Option {
	return func(o *options) error { o.pad, o.padValue = padValue, v; return nil }
}

// ErrShape reports that two shapes cannot be relaid out into each other.
var ErrShape = errors.New("relayout: shapes do not match")

// typeError reports element types with no conversion between them (c128 → c64). It is
// an [ErrShape], but says that the types differ, not the shapes.
type typeError struct{ dst, src layout.DType }

func (e typeError) Error() string {
	return fmt.Sprintf("relayout: the element types differ and there is no conversion: cannot convert %s to %s", e.src, e.dst)
}

func (e typeError) Is(target error) bool { return target == ErrShape }
