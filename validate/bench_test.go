package validate

import "testing"

// BenchmarkCompareWrongArrangement validates a 2048×2048 bf16 dump written without the
// pair packing: every element differs, so the diagnosis runs over about a million.
func BenchmarkCompareWrongArrangement(b *testing.B) {
	ref := refF32(b, 2048, 2048)
	good := converted(b, ref, "bf16[2048,2048]{1,0:T(8,128)}")
	dump := converted(b, ref, "bf16[2048,2048]{1,0:T(8,128)(2,1)}")
	copy(dump.Data, good.Data)
	b.ResetTimer()
	for range b.N {
		if _, err := Compare(dump, ref, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
