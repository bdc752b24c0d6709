package relayout

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
