package hlo_test

import (
	"fmt"

	"github.com/tpulayout/tpulayout/hlo"
)

func ExampleParse() {
	text := `HloModule jit_f, entry_computation_layout={(bf16[8,128]{1,0:T(8,128)(2,1)})->(f32[8]{0:T(256)}, bf16[8,128]{1,0:T(8,128)(2,1)})}

ENTRY %main.4 (p0: bf16[8,128]) -> (f32[8], bf16[8,128]) {
  %p0 = bf16[8,128]{1,0:T(8,128)(2,1)} parameter(0), sharding={replicated}, metadata={op_name="x"}
  %c = f32[8]{0:T(256)} convert(bf16[8]{0:T(256)(128)(2,1)} %p0)
  ROOT %t = (f32[8]{0:T(256)}, bf16[8,128]{1,0:T(8,128)(2,1)}) tuple(%c, %p0)
}
`
	m, err := hlo.Parse([]byte(text))
	if err != nil {
		panic(err)
	}
	for _, p := range m.Entry.Parameters() {
		n, _ := p.ParameterNumber()
		fmt.Printf("parameter %d %s: %s\n", n, p.Name, p.Shape)
	}
	for _, r := range m.Results() {
		fmt.Printf("result %s: %s\n", r.IndexString(), r.Shape)
	}
	_, err = hlo.Parse([]byte("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0)\n"))
	fmt.Println(err)
	// Output:
	// parameter 0 p0: bf16[8,128]{1,0:T(8,128)(2,1)}
	// result {0}: f32[8]{0:T(256)}
	// result {1}: bf16[8,128]{1,0:T(8,128)(2,1)}
	// hlo: line 2, col 9: computation e is never closed: the text ends first (truncated?)
}
