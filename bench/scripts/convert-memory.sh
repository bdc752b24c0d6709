#!/usr/bin/env bash
# Measures the peak resident memory of `tpulayout convert` on a large array: an
# f32[R,4096] raw file of SIZE_GIB GiB converted to bf16[R,4096]{1,0:T(8,128)(2,1)}.
# The target is under 300 MiB for 8 GiB: the input is memory-mapped and converted band
# by band, releasing the input pages of each band once consumed.
#
#   bash bench/scripts/convert-memory.sh                 # 8 GiB (needs 12 GiB of free disk)
#   SIZE_GIB=1 bash bench/scripts/convert-memory.sh      # a quick run
#   DATA=random SIZE_GIB=1 bash bench/scripts/convert-memory.sh
#   LAYOUT='{0,1:T(8,128)(2,1)}' SIZE_GIB=1 bash bench/scripts/convert-memory.sh  # transposed
#
# DATA=sparse (the default) makes the input a sparse file of zeros with truncate: no
# time or disk to generate it, and the same memory behaviour (the kernel still maps a
# page-cache page for every page read). DATA=random fills it from /dev/urandom, which
# writes SIZE_GIB GiB to disk first. WORK sets the directory (default: a new one under
# /tmp); everything made there is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZE_GIB=${SIZE_GIB:-8}
DATA=${DATA:-sparse}
COLS=4096
ROWS=$((SIZE_GIB * (1 << 30) / (4 * COLS)))
WORK=${WORK:-$(mktemp -d /tmp/convert-memory.XXXXXX)}
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

echo "building tpulayout"
go build -o "$WORK/tpulayout" ./cmd/tpulayout

IN="$WORK/in.f32"
OUT="$WORK/out.bf16"
echo "making a ${SIZE_GIB} GiB input ($DATA): f32[$ROWS,$COLS]"
case "$DATA" in
sparse) truncate -s "$((ROWS * COLS * 4))" "$IN" ;;
random) head -c "$((ROWS * COLS * 4))" /dev/urandom >"$IN" ;;
*) echo "DATA must be sparse or random" >&2; exit 2 ;;
esac

FROM="f32[$ROWS,$COLS]"
LAYOUT=${LAYOUT:-'{1,0:T(8,128)(2,1)}'}
TO="bf16[$ROWS,$COLS]$LAYOUT"
echo "+ /usr/bin/time -v tpulayout convert --from '$FROM' in.f32 out.bf16 --to '$TO'"
/usr/bin/time -v "$WORK/tpulayout" convert --from "$FROM" "$IN" "$OUT" --to "$TO" 2>"$WORK/time.txt"
grep -E 'Maximum resident set size|Elapsed \(wall clock\)|Percent of CPU' "$WORK/time.txt"
kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
echo "output: $(stat -c %s "$OUT") bytes"
echo "peak RSS: $((kib / 1024)) MiB for a ${SIZE_GIB} GiB conversion"
