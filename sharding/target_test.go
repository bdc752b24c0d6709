package sharding

import (
	"testing"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
)

// TestResolveTargetAsConvert checks that ResolveTarget, which Python's shard uses,
// gives convert.Job.Target's layouts and errors (the CLI's) for every form of To a
// shard takes, hlo: shapes and HLO lines among them.
func TestResolveTargetAsConvert(t *testing.T) {
	shards := []layout.Shape{
		layout.NewShape(layout.F32, 256, 512),
		layout.NewShape(layout.BF16, 8, 128),
		layout.NewShape(layout.S8, 3, 5),
		layout.NewShape(layout.S32, 7),
	}
	for i := range shards {
		shards[i].Layout.MinorToMajor = layout.RowMajor(shards[i].Rank())
	}
	tos := []string{"tpu:v5e", "tpu:v4", "tpu:v99", "tpu:", "{1,0:T(8,128)(2,1)}", "{1,0:T(8,128)", "{0:T(128)}",
		"{1,0:T(8,128)(2,1)} ", "bf16", "f32", "f32[256,512]{0,1}", "f32[256,512", "bf16[8,128]{1,0:T(8,128)(2,1)}",
		"f32[3,5]", "u4", "nonsense", "{2,1,0}", "{1,0:T(3,0)}", "hlo:no-such-module.txt:param=0",
		"p = f32[256,512]{0,1} parameter(0)", "(f32[256,512]{1,0}, s8[3,5]{1,0}) {1}"}
	for _, sh := range shards {
		for _, to := range tos {
			for _, dtype := range []string{"", "bf16", "f32", "f99", "token"} {
				for _, floatOnly := range []bool{false, true} {
					want, werr := (&convert.Job{To: to, DType: dtype}).Target(sh, convert.Raw, floatOnly)
					got, gerr := ResolveTarget(to, dtype, sh, floatOnly)
					switch {
					case (werr == nil) != (gerr == nil):
						t.Errorf("%s To %q DType %q: convert %v, ResolveTarget %v", sh, to, dtype, werr, gerr)
					case werr != nil && werr.Error() != gerr.Error():
						t.Errorf("%s To %q DType %q:\nconvert       %s\nResolveTarget %s", sh, to, dtype, werr, gerr)
					case werr == nil && want.String() != got.String():
						t.Errorf("%s To %q DType %q: convert %s, ResolveTarget %s", sh, to, dtype, want, got)
					}
				}
			}
		}
	}
}
