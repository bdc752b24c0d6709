package simd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tpulayout/tpulayout/internal/testenv"
)

// TestRowsMisaligned checks every batched kernel of every implementation, streaming,
// on destination rows a multiple of 64 bytes apart that start m bytes past a 64-byte
// boundary, every m in 0..63 in the long run and every 5th otherwise (all destinations
// at the same m, or, for the kernels with several, at different ones), against the
// generic kernel run row by row. The sources are cut to their last row, so that the
// tail blocks of the last row would read past them.
func TestRowsMisaligned(t *testing.T) {
	lengths := []int{1, 7, 16, 31, 33, 63, 64, 65, 95, 127, 128, 129, 191, 255, 256, 257, 300, 511, 513}
	for _, c := range rowsCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, 10))
			for _, k := range raceSets() {
				for m := 0; m < 64; m += raceStep(testenv.Pick(5, 1), 9) {
					for _, n := range lengths {
						rows := Rows{N: 1 + r.IntN(4), Hints: Hints{Stream: true}}
						checkMisaligned(t, c, k, r, n, rows, m, r.IntN(3) == 0)
					}
				}
			}
		})
	}
}

// raceStep is a sweep's step, larger under -race: the race detector slows the
// generic reference 10–20× and the package has no sharing for it to check. The
// misalignment sweeps step by 1–3 bytes in the long run (testenv.Long) and by 5–10
// otherwise, which still meets every residue of 4 and 8; under -race by 9 or 21,
// which still meets every residue of 4.
func raceStep(step, race int) int {
	if raceEnabled {
		return race
	}
	return step
}

// raceSets are the kernel sets a sweep checks: every one available, or under -race the
// preferred one alone, for the same reason as raceStep.
func raceSets() []*Kernels {
	all := Available()
	if raceEnabled {
		return all[len(all)-1:]
	}
	return all
}

// checkMisaligned runs one batch with its destinations m bytes (or, with spread,
// different distances) past a 64-byte boundary and DstStride a multiple of 64.
func checkMisaligned(t *testing.T, c rowsCase, k *Kernels, r *rand.Rand, n int, rows Rows, m int, spread bool) {
	checkStrided(t, c, k, r, n, rows, m, spread, 0)
}

// checkStrided is checkMisaligned with DstStride ds (0: a random multiple of 64).
func checkStrided(t *testing.T, c rowsCase, k *Kernels, r *rand.Rand, n int, rows Rows, m int, spread bool, ds int) {
	t.Helper()
	nops := c.operands()
	for i := range nops {
		row := c.sh.w[i] * n
		if c.sh.dst[i] {
			rows.DstStride = max(rows.DstStride, (row+63)&^63+64*r.IntN(2))
		} else {
			rows.SrcStride = max(rows.SrcStride, row+r.IntN(3)*c.sh.w[i])
		}
	}
	if ds > 0 {
		rows.DstStride = ds
	}
	if r.IntN(4) == 0 {
		rows.SrcStride = 0 // one source row for all
	}
	stride := func(i int) int {
		if c.sh.dst[i] {
			return rows.DstStride
		}
		return rows.SrcStride
	}
	size := func(i int) int { return (rows.N-1)*stride(i) + c.sh.w[i]*n }
	off := func(i int) int {
		switch {
		case !c.sh.dst[i]:
			return r.IntN(64)
		case spread:
			return (m + 4*i) % 64
		}
		return m
	}
	checkRows(t, c, k, r, n, rows, size, off, fmt.Sprintf("%sRows/%s n=%d m=%d spread=%v ds=%d %+v", c.name, k.Name, n, m, spread, ds, rows))
}

// TestEdgePlan checks that a streaming batch whose destinations share a
// misalignment of whole words gets the kernel with head and tail blocks, and its
// arguments.
func TestEdgePlan(t *testing.T) {
	buf := make([]byte, 4096+64)
	base := int(-addr64(buf) & 63)
	for m := range 64 {
		d := &buf[base+(64-m)%64] // m bytes before a boundary
		src := &buf[0]
		var ed edges
		// f32 → bf16 (2-byte destination elements), AVX-512's 32-element blocks, 100 elements.
		r := Rows{N: 3, DstStride: 256, SrcStride: 400, Hints: Hints{Stream: true}}
		it, rows := shNarrow.edgePlan(&ed, r, 100, 32, [5]int{1000, 4000}, true, d, src)
		if m%4 != 0 {
			if rows != 0 {
				t.Errorf("m=%d: planned with part of a word of head", m)
			}
			continue
		}
		h := m / 2
		wantIt := (100 - h) / 32
		tb := 2 * (100 - h - 32*wantIt)
		if it != wantIt || rows != 3 || ed[0] != m/4 || ed[5] != m || ed[6] != 4*h || ed[7] != tb/4 {
			t.Errorf("m=%d: it=%d rows=%d edges=%v, want it=%d rows=3, head of %d bytes, tail of %d", m, it, rows, ed, wantIt, m, tb)
		}
		// Sources that end with the last row: its tail block would read past them.
		if _, rows := shNarrow.edgePlan(&ed, r, 100, 32, [5]int{1000, 2*400 + 4*100}, true, d, src); tb > 0 && rows != 2 {
			t.Errorf("m=%d: %d rows planned, want 2 (the last row's tail block reads past its source)", m, rows)
		}
	}
	var ed edges
	a, b := &buf[base+16], &buf[base+20]
	if _, rows := shUnpack16.edgePlan(&ed, Rows{N: 2, DstStride: 256, SrcStride: 512, Hints: Hints{Stream: true}}, 100, 32, [5]int{1000, 1000, 1000}, true, a, b, &buf[0]); rows != 0 {
		t.Errorf("destinations at different misalignments planned together")
	}
	if _, rows := shCopy.edgePlan(&ed, Rows{N: 2, DstStride: 1000, SrcStride: 1000, Hints: Hints{Stream: true}}, 600, 256, [5]int{2000, 2000}, false, a, &buf[0]); rows != 0 {
		t.Errorf("destination stride 1000 planned without per-row kernels")
	}
	if _, rows := shCopy.edgePlan(&ed, Rows{N: 2, DstStride: 1002, SrcStride: 1000, Hints: Hints{Stream: true}}, 600, 256, [5]int{2000, 2000}, true, a, &buf[0]); rows != 0 {
		t.Errorf("destination stride 1002 (rows at half words) planned")
	}
}

// TestTransposeMisaligned checks the non-temporal transposes on destination rows a
// multiple of 64 bytes apart, starting m bytes past a boundary, every m in 0..63,
// and that those whose misalignment is a whole number of elements get a head.
func TestTransposeMisaligned(t *testing.T) {
	impls := vectorImpls(t)
	r := rand.New(rand.NewPCG(11, 12))
	for _, w := range []int{4, 2, 1} {
		gen := Generic().transpose(w, false)
		for _, k := range impls {
			for _, stream := range []bool{false, true} {
				tr := k.transpose(w, true)
				if stream {
					tr = k.transposeStream(w)
				}
				for m := range 64 {
					rows, cols := 1+r.IntN(150), 1+r.IntN(150)
					ss, ds := cols*w+r.IntN(3)*w, (rows*w+63)&^63+64*r.IntN(2)
					srcLen, dstLen := (rows-1)*ss+cols*w, (cols-1)*ds+rows*w
					sg := newGuarded(srcLen, r.IntN(64))
					copy(sg.b(), randBytes(r, srcLen))
					wg, gg := newGuarded(dstLen, m), newGuarded(dstLen, m)
					gen(wg.b(), ds, sg.b(), ss, rows, cols)
					tr(gg.b(), ds, sg.b(), ss, rows, cols)
					k.Fence()
					what := fmt.Sprintf("%s w=%d stream=%v m=%d rows=%d cols=%d ds=%d", k.Name, w, stream, m, rows, cols, ds)
					gg.checkGuards(t, what)
					if !bytes.Equal(gg.b(), wg.b()) {
						t.Fatalf("%s: differs from generic", what)
					}
				}
			}
		}
	}
}

// TestRowsOddStride checks every batched kernel of every implementation, streaming,
// on destination rows apart by other than a multiple of 64 bytes (NumPy rows of odd
// lengths: 400, 1000, 16380, 32760 bytes, row bytes plus whole or half words), so
// that each row starts at its own distance past a line, from every first m.
func TestRowsOddStride(t *testing.T) {
	lengths := []int{1, 7, 31, 64, 65, 127, 128, 129, 200, 255, 257, 300, 513}
	for _, c := range rowsCases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(13, 14))
			for _, k := range raceSets() {
				for m := 0; m < 64; m += raceStep(testenv.Pick(6+r.IntN(5), 1+r.IntN(3)), 21) {
					for _, n := range lengths {
						row := 0
						for i := range c.operands() {
							if c.sh.dst[i] {
								row = max(row, c.sh.w[i]*n)
							}
						}
						ds := []int{400, 1000, 16380, 32760, row + 4*(1+2*r.IntN(8)), row + 2, row + 68}[r.IntN(7)]
						if ds < row || ds%64 == 0 {
							ds = row + 4*(1+2*r.IntN(8))
						}
						rows := Rows{N: 1 + r.IntN(8), Hints: Hints{Stream: true}}
						checkStrided(t, c, k, r, n, rows, m, r.IntN(3) == 0, ds)
					}
				}
			}
		})
	}
}

// TestRowPlan checks that a streaming batch of rows apart by whole words but not
// whole lines (f32 untiling into f32[8191,8190]: rows 32760 bytes apart) gets the
// kernel with per-row edges, every row's head as its address says, and that the
// rows whose tail blocks would read past the sources are left out.
func TestRowPlan(t *testing.T) {
	const ds, n, blk = 32760, 512, 128 // a tile's row of 128 f32, AVX2's copy block
	buf := make([]byte, 7*ds+n+64)
	base := int(-addr64(buf) & 63)
	for m := 0; m < 64; m += 4 {
		d := &buf[base+(64-m)%64]
		src := make([]byte, 8*512+blk) // room for any tail block
		var ed edges
		r := Rows{N: 8, DstStride: ds, SrcStride: 512, Hints: Hints{Stream: true}}
		_, rows := shCopy.edgePlan(&ed, r, n, blk, [5]int{len(buf), len(src)}, true, d, &src[0])
		if rows != 8 || ed[4] != 1 || ed[1] != n/4 || ed[2] != 4 {
			t.Fatalf("m=%d: rows=%d edges=%v, want 8 rows with per-row edges", m, rows, ed)
		}
		// Sources cut at the last row: each row's tail block reads a block past its
		// head and whole blocks.
		want := 8
		for i := range 8 {
			h := int(-(addr64(buf)+uintptr(base+(64-m)%64+i*ds))&63) / 4 * 4
			if left := n - h; left%blk != 0 && i*512+h+(left/blk+1)*blk > 8*512 {
				want = i
				break
			}
		}
		if _, rows := shCopy.edgePlan(&ed, r, n, blk, [5]int{len(buf), 8 * 512}, true, d, &src[0]); rows != want {
			t.Errorf("m=%d: sources cut at the last row: %d rows planned, want %d", m, rows, want)
		}
	}
	var ed edges
	if _, rows := shCopy.edgePlan(&ed, Rows{N: 8, DstStride: ds, SrcStride: 512, Hints: Hints{Stream: true}}, n, blk, [5]int{len(buf), 8 * 512}, true, &buf[base+2], &buf[0]); rows != 0 {
		t.Errorf("rows starting at half words planned")
	}
}
