#!/usr/bin/env bash
# other-pairs.sh times layout pairs beyond the suite's nine (transposed TPU tilings,
# converting transposes, tiles that do not nest, conversions without a fused kernel,
# sub-byte elements) with relayout-bench at 8192×8192, one worker, and prints its
# summary table. Usage (from the module root):
#   bash bench/scripts/other-pairs.sh [extra relayout-bench flags, e.g. -count 9]
set -euo pipefail
cd "$(dirname "$0")/../.."
go build -o /tmp/relayout-bench.$$ ./cmd/relayout-bench
trap 'rm -f /tmp/relayout-bench.$$' EXIT
n=8192
pairs=(
	"bf16[$n,$n]{1,0}|bf16[$n,$n]{0,1:T(8,128)(2,1)}"
	"bf16[$n,$n]{0,1:T(8,128)(2,1)}|bf16[$n,$n]{1,0}"
	"s8[$n,$n]{1,0}|s8[$n,$n]{0,1:T(32,128)(4,1)}"
	"f32[$n,$n]{1,0}|f32[$n,$n]{0,1:T(8,128)}"
	"f32[$n,$n]{0,1:T(8,128)}|f32[$n,$n]{1,0}"
	"s8[$n,$n]{0,1:T(32,128)(4,1)}|s8[$n,$n]{1,0}"
	"f32[$n,$n]{1,0}|bf16[$n,$n]{0,1}"
	"f32[$n,$n]{1,0}|bf16[$n,$n]{0,1:T(8,128)(2,1)}"
	"bf16[$n,$n]{0,1:T(8,128)(2,1)}|f32[$n,$n]{1,0}"
	"f32[$n,$n]{1,0:T(8,128)}|f32[$n,$n]{1,0:T(6,128)}"
	"bf16[$n,$n]{1,0:T(8,128)(2,1)}|bf16[$n,$n]{0,1:T(8,128)(2,1)}"
	"s8[$n,$n]{1,0}|f32[$n,$n]{1,0}"
	"f64[$n,$n]{1,0}|f32[$n,$n]{1,0}"
	"f32[$n,$n]{1,0}|s32[$n,$n]{1,0}"
	"s64[$n,$n]{1,0}|s32[$n,$n]{1,0:T(8,128)}"
	"f64[$n,$n]{1,0}|bf16[$n,$n]{1,0:T(8,128)(2,1)}"
	"f16[$n,$n]{1,0}|bf16[$n,$n]{1,0:T(8,128)(2,1)}"
	"bf16[$n,$n]{1,0:T(8,128)(2,1)}|f16[$n,$n]{1,0}"
	"s8[$n,$n]{1,0}|bf16[$n,$n]{1,0:T(8,128)(2,1)}"
	"f32[$n,$n]{1,0}|s8[$n,$n]{1,0:T(32,128)(4,1)}"
	"s4[$n,$n]{1,0:E(4)}|s4[$n,$n]{1,0:T(64,128)(8,1)E(4)}"
	"s4[$n,$n]{1,0:T(64,128)(8,1)E(4)}|s4[$n,$n]{1,0:E(4)}"
)
for p in "${pairs[@]}"; do
	/tmp/relayout-bench.$$ -from "${p%|*}" -to "${p#*|}" -workers 1 -count 5 -table "$@" 2>/dev/null |
		awk -v p="${p%|*} → ${p#*|}" 'NR == 2 { printf "%-64s %-22s %s\n", p, $4, $9 }'
done
