package relayout

import "testing"

// The plan's kernel as one kind's type, for tests that look at a kind's fields: a zero
// one when the plan's kernel is of another kind, or when it has none (the plan's
// kernel kind, or Kernel, then says which).

func transposeOf(p *Plan) *transposeKernel {
	if k, ok := p.kern.(*transposeKernel); ok {
		return k
	}
	return &transposeKernel{}
}

func packingOf(p *Plan) *packingKernel {
	if k, ok := p.kern.(*packingKernel); ok {
		return k
	}
	return &packingKernel{}
}

// baseOf is the plan's kernelBase, a zero one when it has no kernel.
func baseOf(p *Plan) *kernelBase {
	if p.kern == nil {
		return &kernelBase{}
	}
	return p.kern.base()
}

// kindOf names the plan's kernel kind, "none" when it has none.
func kindOf(p *Plan) string {
	if p.kern == nil {
		return "none"
	}
	return p.kern.kind().String()
}

// planCase is a layout pair, as text, and what a property of its plan must be.
type planCase[T comparable] struct {
	dst, src string
	want     T
}

// checkPlans checks that each case's plan, made with opts, has the property that got
// reads; what names the property in the failures.
func checkPlans[T comparable](t *testing.T, what string, got func(*Plan) T, cases []planCase[T], opts ...Option) {
	t.Helper()
	for _, c := range cases {
		p := mustPlan(t, c.dst, c.src, opts...)
		if g := got(p); g != c.want {
			t.Errorf("%s ← %s (%s kernel): %s %v, want %v", c.dst, c.src, kindOf(p), what, g, c.want)
		}
	}
}
