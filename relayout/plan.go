package relayout

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/tpulayout/tpulayout/buffer"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/simd"
)

// Plan copies arrays from one layout to another. It is compiled once by [NewPlan],
// immutable, and safe for concurrent [Plan.Copy] calls.
type Plan struct {
	dst, src     *layout.Indexer
	dt, st       layout.DType
	dbits, sbits int // element bits in memory
	opts         options
	fill         uint64 // padding bits, unless opts.pad is padLeave
	fillBytes    []byte // fill as one element's bytes (whole-byte elements)
	conv         func(uint64) uint64
	converter    *buffer.Converter // conv over runs

	exec      executor // how Copy runs: the loops below, or another way (see executor)
	outer     []loop   // outer loops, major first
	inner     []loop   // the kernel's loops
	bounds    []bound  // per dim (logical dims, then destination-only digits)
	kern      kernel   // the inner kernel, one type per kind (see chooseKernel)
	chunks    int64    // iterations of the outer loops
	ragged    []bool
	stream    bool  // non-temporal stores: copy runs, transposes
	ahead     ahead // the source to ask for ahead of the blocks (see planAhead)
	readAhead bool  // the source is large enough to ask for ahead (see readsAhead)
	prefill   bool  // some dims are table loops: padding is written before the data
	bitcast   bool  // every element keeps its offset: the identical-layout copy (see planBitcast)
}

// NewPlan compiles a relayout from src's layout to dst's. The logical dims must be equal;
// the element types may differ (the copy converts, see [Plan.Copy]).
func NewPlan(dst, src layout.Shape, opts ...Option) (*Plan, error) {
	di, si, err := compileBoth(dst, src)
	if err != nil {
		return nil, err
	}
	return NewPlanCompiled(di, si, opts...)
}

// NewPlanCompiled is [NewPlan] on shapes the caller has compiled already.
func NewPlanCompiled(di, si *layout.Indexer, opts ...Option) (*Plan, error) {
	p, err := newPlanCompiled(di, si, opts)
	if err != nil {
		return nil, err
	}
	dst, src := di.Shape(), si.Shape()
	if p.bitcast {
		// The same dtype and offsets: the loop nest is the identical-layout copy; packed
		// sub-byte elements copy their bytes.
		if e := planPackedCopy(p, opts); e != nil {
			p.exec = e
		} else if e := planSubByte(p, src, src, opts); e != nil {
			p.exec = e
		}
		return p, nil
	}
	if e := planTwoPass(p, dst, src, opts); e != nil {
		p.exec = e
	} else if e := planNibbleTiles(p, dst, src); e != nil {
		p.exec = e
	} else if e := planNibbleWords(p, dst, src); e != nil {
		p.exec = e
	} else if e := planSubByte(p, dst, src, opts); e != nil {
		p.exec = e
	}
	return p, nil
}

// newPlan is NewPlan without the two-pass and sub-byte executors: the loop nest, or the
// per-element path when there is none.
func newPlan(dst, src layout.Shape, opts []Option) (*Plan, error) {
	di, si, err := compileBoth(dst, src)
	if err != nil {
		return nil, err
	}
	return newPlanCompiled(di, si, opts)
}

// compileBoth compiles a plan's two shapes.
func compileBoth(dst, src layout.Shape) (di, si *layout.Indexer, err error) {
	if di, err = layout.Compile(dst); err != nil {
		return nil, nil, fmt.Errorf("relayout: destination: %w", err)
	}
	if si, err = layout.Compile(src); err != nil {
		return nil, nil, fmt.Errorf("relayout: source: %w", err)
	}
	return di, si, nil
}

// newPlanCompiled is newPlan on compiled shapes.
func newPlanCompiled(di, si *layout.Indexer, opts []Option) (*Plan, error) {
	if err := loadWisdom(); err != nil {
		return nil, err
	}
	o := defaultOptions()
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	o.kernels = wisdomKernels(o.kernels)
	dst, src := di.Shape(), si.Shape()
	if err := sameDims(dst, src); err != nil {
		return nil, err
	}
	if dst.DType != src.DType && !buffer.CanConvert(dst.DType, src.DType) {
		return nil, typeError{dst.DType, src.DType}
	}
	p := &Plan{dst: di, src: si, dt: dst.DType, st: src.DType, dbits: di.ElementBits(), sbits: si.ElementBits(), opts: o}
	p.exec = &perElement{p, p.runReference}
	for _, b := range []int{p.dbits, p.sbits} {
		if b > 8 && b != 16 && b != 32 && b != 64 && b != 128 {
			return nil, fmt.Errorf("%w: %d-bit elements are not addressable (E(n) must be below 8 or the type's width)", ErrShape, b)
		}
	}
	if (p.dbits > 64 || p.sbits > 64) && (p.dt != p.st || p.dbits != p.sbits) {
		return nil, fmt.Errorf("%w: %d-bit elements must keep their type and width", ErrShape, max(p.dbits, p.sbits))
	}
	if o.pad == padValue {
		if !buffer.CanConvert(p.dt, layout.F64) {
			return nil, fmt.Errorf("relayout: WithPadValue: %s padding cannot hold a number", p.dt)
		}
		p.fill = buffer.Widen(p.dt, p.dbits, buffer.ConvertElement(p.dt, layout.F64, math.Float64bits(o.padValue)))
	}
	if p.dbits%8 == 0 {
		var le [8]byte
		binary.LittleEndian.PutUint64(le[:], p.fill)
		p.fillBytes = make([]byte, p.dbits/8)
		copy(p.fillBytes, le[:]) // c128 padding is zero beyond the low 8 bytes
	}
	if p.dt != p.st {
		dt, st := p.dt, p.st
		p.conv = func(b uint64) uint64 { return buffer.ConvertElement(dt, st, b) }
		// Pairs without a SIMD kernel convert whole runs; sub-byte E(n) cannot (nil).
		p.converter, _ = buffer.NewConverter(dt, p.dbits, st, p.sbits)
	}
	p.bitcast = planBitcast(p, dst, src)
	if !o.generic {
		p.compile()
	}
	return p, nil
}

func sameDims(dst, src layout.Shape) error {
	if len(dst.Dims) != len(src.Dims) {
		return fmt.Errorf("%w: destination has rank %d (%v), source rank %d (%v)", ErrShape, len(dst.Dims), dst.Dims, len(src.Dims), src.Dims)
	}
	for i := range dst.Dims {
		if dst.Dims[i] != src.Dims[i] {
			return fmt.Errorf("%w: dimension %d is %d in the destination but %d in the source (%v vs %v)", ErrShape, i, dst.Dims[i], src.Dims[i], dst.Dims, src.Dims)
		}
	}
	return nil
}

// String describes the plan: shapes, path, kernel and loops, then what the layout
// algebra found: "bitcast" when every element keeps its offset (the plan is then the
// copy between identical layouts), else the longest run of elements contiguous on both
// sides, when the algebra reads both layouts as single layouts.
func (p *Plan) String() string {
	return fmt.Sprintf("%s ← %s: %s%s", p.dst.Shape(), p.src.Shape(), p.exec.describe(), p.describeMap())
}

// Kernel names the inner kernel the plan uses: "copy", "interleave", "deinterleave",
// "transpose", "elementwise", or "reference" for the per-element path; passes joined by
// "+" for a plan that goes through a row-major array, or that unpacks sub-byte elements
// to bytes ("unpack") and packs them back ("pack").
func (p *Plan) Kernel() string { return p.exec.kernel() }

// SrcBytes and DstBytes are the footprints the plan reads and writes.
func (p *Plan) SrcBytes() int64 { return p.src.FootprintBytes() }

// DstBytes is the destination footprint.
func (p *Plan) DstBytes() int64 { return p.dst.FootprintBytes() }

// Copy relays out src into dst. Their shapes must be the plan's (dims, dtype and layout).
// Elements are converted when the dtypes differ: f32→bf16 and f32→f16 round to nearest
// even (a NaN becomes the quiet NaN with its sign, as XLA converts it), and any other
// numeric pair follows buffer.ConvertElement.
// Destination padding is written as the plan's options say (zeros by default); source
// padding is never read. Copy does not allocate: the buffers some plans need (a scratch
// block per worker for transposes and packings that convert, a row-major array for
// two-pass plans, byte arrays for sub-byte ones, see [Plan.Kernel]) are made by NewPlan;
// only copies running concurrently beyond those make their own.
func (p *Plan) Copy(dst, src *buffer.Buffer) error {
	if err := p.check(dst.Shape, p.dst, "destination"); err != nil {
		return err
	}
	if err := p.check(src.Shape, p.src, "source"); err != nil {
		return err
	}
	return p.CopyBytes(dst.Data, src.Data)
}

func (p *Plan) check(s layout.Shape, ix *layout.Indexer, side string) error {
	want := ix.Shape()
	if s.DType != want.DType || !slices.Equal(s.Dims, want.Dims) || !sameLayout(s, want) {
		return fmt.Errorf("%w: %s is %s, the plan's %s is %s", ErrShape, side, s, side, want)
	}
	return nil
}

func sameLayout(s, want layout.Shape) bool {
	l := s.Layout
	if l.MinorToMajor == nil && len(s.Dims) > 0 {
		l.MinorToMajor = layout.RowMajor(len(s.Dims))
	}
	return l.Equal(want.Layout)
}

// CopyBytes is [Plan.Copy] on raw byte slices holding exactly each side's footprint.
func (p *Plan) CopyBytes(dst, src []byte) error {
	if int64(len(dst)) != p.dst.FootprintBytes() {
		return fmt.Errorf("%w: destination %s needs %d bytes, got %d", buffer.ErrSize, p.dst.Shape(), p.dst.FootprintBytes(), len(dst))
	}
	if int64(len(src)) != p.src.FootprintBytes() {
		return fmt.Errorf("%w: source %s needs %d bytes, got %d", buffer.ErrSize, p.src.Shape(), p.src.FootprintBytes(), len(src))
	}
	if overlap(dst, src) {
		return fmt.Errorf("%w: destination and source memory overlap", ErrShape)
	}
	if len(dst) == 0 {
		return nil
	}
	// The calling goroutine runs a part too: a fault there (a mapped source whose file
	// was truncated) must panic, as in the workers, not crash the process.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	p.exec.copy(dst, src)
	if p.opts.pad != padLeave {
		clearTail(dst, p.dst.FootprintElements(), p.dst.ElementBits())
	}
	return nil
}

// clearTail zeroes the bits of packed's last byte beyond its n elements of w bits: they
// belong to no element, and a plan that writes padding leaves no stale bits.
func clearTail(packed []byte, n int64, w int) {
	if used := n * int64(w) % 8; used != 0 {
		packed[len(packed)-1] &= byte(1)<<used - 1
	}
}

func overlap(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}

// k returns the simd kernels the plan runs on.
func (p *Plan) k() *simd.Kernels { return p.opts.kernels }

// isReference reports whether the plan copies element by element.
func (p *Plan) isReference() bool {
	_, ok := p.exec.(*perElement)
	return ok
}
