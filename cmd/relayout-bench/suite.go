package main

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/tpulayout/tpulayout/layout"
)

// benchCase is one relayout of the suite. src and dst are format strings taking the dims:
// two (rows, cols) for a 2-D case, four (a, a, a, a) for a 4-D one, or what dims returns.
type benchCase struct {
	name     string
	src, dst string
	fourD    bool
	dims     func(sizeSpec) []any // the format's arguments, when set
}

// xlaInt4 is the layout XLA gives an int4 weight, s4[8,32768,1,256] at the large size:
// the dim of 256 minor-most, tiles of 64 rows of 128 along the 32768, whose dim is
// sized so that the array has as many elements as the 2-D cases (at least one).
const xlaInt4 = "s4[8,%d,1,256]{3,1,0,2:T(64,128)(8,1)E(4)}"

func xlaInt4Dims(sz sizeSpec) []any { return []any{max(sz.rows*sz.cols/2048, 1)} }

// suite is the default set of cases, the same as relayout/bench_test.go's benchCases.
var suite = []benchCase{
	{"f32-rowmajor-to-T8x128", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0:T(8,128)}", false, nil},
	{"f32-T8x128-to-rowmajor", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0}", false, nil},
	{"bf16-rowmajor-to-T8x128-2x1", "bf16[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", false, nil},
	{"bf16-T8x128-2x1-to-rowmajor", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0}", false, nil},
	{"f32-to-bf16-T8x128-2x1", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", false, nil},
	{"f32-transpose", "f32[%d,%d]{1,0}", "f32[%d,%d]{0,1}", false, nil},
	{"f32-perm3210", "f32[%d,%d,%d,%d]{3,2,1,0}", "f32[%d,%d,%d,%d]{0,1,2,3}", true, nil},
	{"bf16-T8x128-2x1-to-T16x128-2x1", "bf16[%d,%d]{1,0:T(8,128)(2,1)}", "bf16[%d,%d]{1,0:T(16,128)(2,1)}", false, nil},
	{"s8-rowmajor-to-T32x128-4x1", "s8[%d,%d]{1,0}", "s8[%d,%d]{1,0:T(32,128)(4,1)}", false, nil},
	{"f32-to-f8e4m3fn-T8x128-4x1", "f32[%d,%d]{1,0}", "f8e4m3fn[%d,%d]{1,0:T(8,128)(4,1)}", false, nil},
	{"s8-rowmajor-to-T8x128-4x1-transposed", "s8[%d,%d]{1,0}", "s8[%d,%d]{0,1:T(8,128)(4,1)}", false, nil},
	{"s4-rowmajor-to-T8x128-8x1", "s4[%d,%d]{1,0}", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", false, nil},
	{"s4-T8x128-8x1-to-rowmajor", "s4[%d,%d]{1,0:T(8,128)(8,1)E(4)}", "s4[%d,%d]{1,0}", false, nil},
	{"s4-rowmajor-to-xla-T64x128-8x1", "s4[8,%d,1,256]{3,2,1,0}", xlaInt4, false, xlaInt4Dims},
	{"s4-xla-T64x128-8x1-to-rowmajor", xlaInt4, "s4[8,%d,1,256]{3,2,1,0}", false, xlaInt4Dims},
	// The copy path: identical layouts, and a conversion between dtypes in one layout.
	{"f32-rowmajor-identical", "f32[%d,%d]{1,0}", "f32[%d,%d]{1,0}", false, nil},
	{"f32-T8x128-identical", "f32[%d,%d]{1,0:T(8,128)}", "f32[%d,%d]{1,0:T(8,128)}", false, nil},
	{"f32-to-bf16-rowmajor", "f32[%d,%d]{1,0}", "bf16[%d,%d]{1,0}", false, nil},
}

// shapes are relayouts of awkward real shapes, run as they are by --size shapes: dims that
// are not tile multiples, narrow arrays whose rows are one or two tiles, a dim of 3 in
// tiles of 4 rows (TPU's default tiling for bf16[N,3,M]). Each took an element-by-element
// or per-row path at some point (bench/design-notes.md).
var shapes = []benchCase{
	{"f32-odd-to-T8x128", "f32[8191,8190]{1,0}", "f32[8191,8190]{1,0:T(8,128)}", false, nil},
	{"f32-odd-T8x128-to-rowmajor", "f32[8191,8190]{1,0:T(8,128)}", "f32[8191,8190]{1,0}", false, nil},
	{"bf16-odd-to-T8x128-2x1", "bf16[8191,8190]{1,0}", "bf16[8191,8190]{1,0:T(8,128)(2,1)}", false, nil},
	{"bf16-odd-T8x128-2x1-to-rowmajor", "bf16[8191,8190]{1,0:T(8,128)(2,1)}", "bf16[8191,8190]{1,0}", false, nil},
	{"bf16-odd-T8x128-2x1-to-T16x128-2x1", "bf16[8191,8190]{1,0:T(8,128)(2,1)}", "bf16[8191,8190]{1,0:T(16,128)(2,1)}", false, nil},
	{"f32-odd-transpose", "f32[8191,8190]{1,0}", "f32[8191,8190]{0,1}", false, nil},
	{"f32-odd-perm3210", "f32[63,65,67,61]{3,2,1,0}", "f32[63,65,67,61]{0,1,2,3}", false, nil},
	{"f32-narrow-to-T8x128", "f32[200000,200]{1,0}", "f32[200000,200]{1,0:T(8,128)}", false, nil},
	{"bf16-narrow-to-T8x128-2x1", "bf16[200000,200]{1,0}", "bf16[200000,200]{1,0:T(8,128)(2,1)}", false, nil},
	{"bf16-narrow-T8x128-2x1-to-rowmajor", "bf16[200000,200]{1,0:T(8,128)(2,1)}", "bf16[200000,200]{1,0}", false, nil},
	{"bf16-3rows-to-T4x128-2x1", "bf16[4096,3,4096]{2,1,0}", "bf16[4096,3,4096]{2,1,0:T(4,128)(2,1)}", false, nil},
	{"bf16-3rows-T4x128-2x1-to-rowmajor", "bf16[4096,3,4096]{2,1,0:T(4,128)(2,1)}", "bf16[4096,3,4096]{2,1,0}", false, nil},
}

// sizeSpec is one size of the run: rows×cols for the 2-D cases and a^4 for the 4-D ones,
// or the shapes set.
type sizeSpec struct {
	rows, cols, a int64
	shapes        bool
}

var (
	sizeSmall = sizeSpec{rows: 1024, cols: 1024, a: 32} // f32: 4 MiB, fits in L3
	sizeLarge = sizeSpec{rows: 8192, cols: 8192, a: 64} // f32: 256 MiB (64 MiB for 64^4), DRAM
)

// parseSizes reads --size: small, large, both, shapes, or NxM (N alone means NxN).
func parseSizes(s string) ([]sizeSpec, error) {
	switch s {
	case "shapes":
		return []sizeSpec{{shapes: true}}, nil
	case "small":
		return []sizeSpec{sizeSmall}, nil
	case "large":
		return []sizeSpec{sizeLarge}, nil
	case "both":
		return []sizeSpec{sizeSmall, sizeLarge}, nil
	}
	r, c, ok := strings.Cut(s, "x")
	if !ok {
		c = r
	}
	rows, err1 := strconv.ParseInt(r, 10, 64)
	cols, err2 := strconv.ParseInt(c, 10, 64)
	if err1 != nil || err2 != nil || rows < 1 || cols < 1 || rows > 1<<20 || cols > 1<<20 {
		return nil, fmt.Errorf("--size %q: want small, large, both, shapes or NxM with N, M from 1 to 1048576", s)
	}
	// The 4-D case gets about as many elements: a = (rows·cols)^(1/4).
	a := max(int64(math.Sqrt(math.Sqrt(float64(rows*cols)))+1e-9), 1)
	return []sizeSpec{{rows: rows, cols: cols, a: a}}, nil
}

// job is one relayout to measure: a case at one size.
type job struct {
	name     string
	size     string // "1024x1024", "32x32x32x32": dims joined by x, no spaces
	dst, src layout.Shape
}

func (c benchCase) job(sz sizeSpec) job {
	var dst, src string
	if sz.shapes {
		dst, src = c.dst, c.src
	} else if c.dims != nil {
		dst, src = fmt.Sprintf(c.dst, c.dims(sz)...), fmt.Sprintf(c.src, c.dims(sz)...)
	} else if c.fourD {
		dst = fmt.Sprintf(c.dst, sz.a, sz.a, sz.a, sz.a)
		src = fmt.Sprintf(c.src, sz.a, sz.a, sz.a, sz.a)
	} else {
		dst = fmt.Sprintf(c.dst, sz.rows, sz.cols)
		src = fmt.Sprintf(c.src, sz.rows, sz.cols)
	}
	d, s := layout.MustParse(dst), layout.MustParse(src)
	return job{name: c.name, size: dimsName(s.Dims), dst: d, src: s}
}

func dimsName(dims []int64) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.FormatInt(d, 10)
	}
	if len(parts) == 0 {
		return "scalar"
	}
	return strings.Join(parts, "x")
}

// selectJobs builds the suite's jobs for the sizes, keeping the cases re matches.
func selectJobs(re *regexp.Regexp, sizes []sizeSpec) []job {
	var jobs []job
	for _, sz := range sizes {
		cases := suite
		if sz.shapes {
			cases = shapes
		}
		for _, c := range cases {
			if re == nil || re.MatchString(c.name) {
				jobs = append(jobs, c.job(sz))
			}
		}
	}
	return jobs
}

// customJob is the --from/--to pair.
func customJob(from, to string) (job, error) {
	src, err := layout.Parse(from)
	if err != nil {
		return job{}, fmt.Errorf("--from: %v", err)
	}
	dst, err := layout.Parse(to)
	if err != nil {
		return job{}, fmt.Errorf("--to: %v", err)
	}
	return job{name: "custom", size: dimsName(src.Dims), dst: dst, src: src}, nil
}

// sampleElems bounds the shape the per-element reference is timed on.
const sampleElems = 1 << 16

// shrink returns s with its largest dims halved until it has at most sampleElems
// elements: the smaller shape of the same case that the reference is timed on.
// Layouts do not depend on the dims (tiles pad), so the result is valid.
func shrink(s layout.Shape) layout.Shape {
	dims := append([]int64(nil), s.Dims...)
	for {
		n, big := int64(1), 0
		for i, d := range dims {
			n *= d
			if d > dims[big] {
				big = i
			}
		}
		if n <= sampleElems || dims[big] <= 1 {
			break
		}
		dims[big] = (dims[big] + 1) / 2
	}
	s.Dims = dims
	return s
}
