package main

import (
	"testing"

	"github.com/tpulayout/tpulayout/convert"
	"github.com/tpulayout/tpulayout/layout"
	"github.com/tpulayout/tpulayout/sharding"
)

// TestShardTargetsAsCLI checks that the library's target resolution, which Python's
// shard uses, gives the CLI's layouts and the CLI's messages for every form of --to
// a shard takes, hlo: shapes and HLO lines among them.
func TestShardTargetsAsCLI(t *testing.T) {
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
					got, gerr := sharding.ResolveTarget(to, dtype, sh, floatOnly)
					switch {
					case (werr == nil) != (gerr == nil):
						t.Errorf("%s --to %q --dtype %q: CLI %v, library %v", sh, to, dtype, werr, gerr)
					case werr != nil && errText(werr) != errText(gerr):
						t.Errorf("%s --to %q --dtype %q:\nCLI     %s\nlibrary %s", sh, to, dtype, errText(werr), errText(gerr))
					case werr == nil && want.String() != got.String():
						t.Errorf("%s --to %q --dtype %q: CLI %s, library %s", sh, to, dtype, want, got)
					}
				}
			}
		}
	}
}
