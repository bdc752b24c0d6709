package hlo

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// genModule writes a module whose entry computation has n instructions in the form
// dumps after optimizations take: a parameter, then a chain of elementwise ops whose
// operands carry their shapes and names, each with metadata.
func genModule(n int) []byte {
	var b strings.Builder
	b.Grow(200 * n) // each line is under 200 bytes
	b.WriteString("HloModule big, entry_computation_layout={(f32[8,128]{1,0:T(8,128)})->f32[8,128]{1,0:T(8,128)}}\n\n")
	b.WriteString("ENTRY %main (p: f32[8,128]) -> f32[8,128] {\n")
	b.WriteString("  %i0 = f32[8,128]{1,0:T(8,128)} parameter(0), metadata={op_name=\"p\"}\n")
	for i := 1; i < n; i++ {
		root := ""
		if i == n-1 {
			root = "ROOT "
		}
		fmt.Fprintf(&b, "  %s%%i%d = f32[8,128]{1,0:T(8,128)} add(f32[8,128]{1,0:T(8,128)} %%i%d, f32[8,128]{1,0:T(8,128)} %%i%d), metadata={op_name=\"jit(f)/add\" source_file=\"f.py\" source_line=%d}\n", root, i, i-1, i/2, i)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// BenchmarkParse parses generated modules of growing size; the time per instruction
// stays flat when parsing is linear in the text. The largest, 10^6 instructions, is the
// size of the biggest real dumps.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{20_000, 80_000, 1_000_000} {
		b.Run(fmt.Sprintf("instructions=%d", n), func(b *testing.B) {
			text := genModule(n)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(text); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/instruction")
		})
	}
}

// TestParseCostPerInstruction bounds what parsing allocates per instruction: the
// instruction itself (its operands and attributes are its text), not lists of them,
// positioned errors built and discarded, repeated shapes reparsed, or scanners and
// splits made for every operand.
// Timing is left to BenchmarkParse.
func TestParseCostPerInstruction(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates: the counts would be its own")
	}
	const n = 4000
	text := genModule(n)
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := Parse(text); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per instruction", allocs/n)
	if per := allocs / n; per > 1.5 {
		t.Errorf("%.1f allocations per instruction, want at most 1.5", per)
	}
}

// TestParseMemoryPerInstruction bounds, per instruction and the text itself excluded,
// the heap a parsed module keeps (one object per instruction: its shape shared with
// every instruction of the same shape text, its operands and attributes kept as the
// text they are written in) and all that parsing allocates, garbage included (no
// table of names as strings, no list regrown by copying), which is what a process
// holds at its peak before the collector runs.
func TestParseMemoryPerInstruction(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates: the counts would be its own")
	}
	const n = 30_000
	text := genModule(n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	kept := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	total := int64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%d bytes kept, %d allocated per instruction", kept, total)
	if kept > 120 {
		t.Errorf("the module keeps %d bytes per instruction, want at most 120", kept)
	}
	if total > 180 {
		t.Errorf("parsing allocates %d bytes per instruction, want at most 180", total)
	}
}
