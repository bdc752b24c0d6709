package relayout

import "fmt"

// executor carries out a plan's copies. NewPlan picks one: the compiled loop nest
// (loopNest), two passes through a row-major array (twoPass), sub-byte elements unpacked
// to bytes and packed back (subByte), or the per-element reference (perElement).
type executor interface {
	// copy relays out src into dst: exactly the footprints, not overlapping, not empty.
	copy(dst, src []byte)
	// kernel is Plan.Kernel.
	kernel() string
	// describe is what Plan.String prints after the shapes.
	describe() string
}

// loopNest runs the plan's loops (see compile) with its inner kernel.
type loopNest struct {
	p    *Plan
	part func(dst, src []byte, lo, hi int64) // p.runRange, made once for the worker pool
}

func (e *loopNest) copy(dst, src []byte) { e.p.run(dst, src, e.part, e.p.chunks) }
func (e *loopNest) kernel() string       { return e.p.kern.kind().String() }
func (e *loopNest) describe() string {
	return fmt.Sprintf("%s kernel (%s), %d outer iterations", e.p.kern.kind(), e.p.opts.kernels.Name, e.p.chunks)
}

// perElement finds each destination slot's logical index through the layouts' index
// math: every layout pair works, slowly.
type perElement struct {
	p    *Plan
	part func(dst, src []byte, lo, hi int64) // p.runReference, made once for the worker pool
}

func (e *perElement) copy(dst, src []byte) { e.p.run(dst, src, e.part, e.p.dst.ExpandedElements()) }
func (e *perElement) kernel() string       { return "reference" }
func (e *perElement) describe() string     { return "per-element path" }
