#!/usr/bin/env bash
# Measures the peak resident memory and time of a sharded conversion: a safetensors
# checkpoint of SIZE_GIB GiB (four f32 tensors of equal size, [R,4096]) converted for an
# 8-device mesh data=2,model=4 with P("data", "model") on every tensor, to the v5e
# default bf16 layout. The target is under 400 MiB for 4 GiB: each shard is gathered
# band by band from the memory-mapped source, whose pages are released as it goes.
#
#   bash bench/scripts/shard-memory.sh                   # 4 GiB (needs 7 GiB of free disk)
#   SIZE_GIB=1 bash bench/scripts/shard-memory.sh        # a quick run
#   DATA=random bash bench/scripts/shard-memory.sh       # real data (writes the input first)
#   PROCS=4 bash bench/scripts/shard-memory.sh           # also as 4 processes, one after
#                                                # another, then merged and compared
#
# DATA=sparse (the default) makes the tensor data a sparse file of zeros: no time or
# disk to generate it and the same memory behaviour (every page read is still mapped).
# DATA=random fills it from /dev/urandom. WORK sets the directory (default: a new one
# under /tmp); everything made there is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZE_GIB=${SIZE_GIB:-4}
DATA=${DATA:-sparse}
PROCS=${PROCS:-1}
COLS=4096
ROWS=$((SIZE_GIB * (1 << 30) / (4 * 4 * COLS))) # per tensor
WORK=${WORK:-$(mktemp -d /tmp/shard-memory.XXXXXX)}
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

echo "building tpulayout"
go build -o "$WORK/tpulayout" ./cmd/tpulayout

CKPT="$WORK/model.safetensors"
echo "making a ${SIZE_GIB} GiB checkpoint ($DATA): 4 × f32[$ROWS,$COLS]"
python3 - "$CKPT" "$ROWS" "$COLS" <<'PY'
import json, sys
path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = rows * cols * 4
hdr = {f"layers.{i}.w": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [i * n, (i + 1) * n]} for i in range(4)}
h = json.dumps(hdr).encode()
h += b" " * (-len(h) % 8)
with open(path, "wb") as f:
    f.write(len(h).to_bytes(8, "little") + h)
    f.truncate(8 + len(h) + 4 * n)
PY
if [ "$DATA" = random ]; then
	hdr=$(($(stat -c %s "$CKPT") - 4 * ROWS * COLS * 4))
	head -c "$((4 * ROWS * COLS * 4))" /dev/urandom | dd of="$CKPT" bs=1M seek="$hdr" oflag=seek_bytes conv=notrunc status=none
elif [ "$DATA" != sparse ]; then
	echo "DATA must be sparse or random" >&2
	exit 2
fi

ARGS=(--all --mesh data=2,model=4 --spec 'P("data", "model")' --to tpu:v5e --dtype bf16)
echo "+ /usr/bin/time -v tpulayout convert model.safetensors out ${ARGS[*]}"
/usr/bin/time -v "$WORK/tpulayout" convert "$CKPT" "$WORK/out" "${ARGS[@]}" >/dev/null 2>"$WORK/time.txt"
grep -E 'User time|System time|Maximum resident set size|Elapsed \(wall clock\)|Percent of CPU' "$WORK/time.txt"
kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
echo "output: $(du -sb "$WORK/out" | cut -f1) bytes in $(find "$WORK/out" -type f | wc -l) files"
echo "peak RSS: $((kib / 1024)) MiB for a ${SIZE_GIB} GiB checkpoint on 8 devices"

if [ "$PROCS" -gt 1 ]; then
	for ((i = 0; i < PROCS; i++)); do
		/usr/bin/time -v "$WORK/tpulayout" convert "$CKPT" "$WORK/outp" "${ARGS[@]}" --process "$i/$PROCS" >/dev/null 2>"$WORK/time.txt"
		echo "process $i/$PROCS: peak RSS $(($(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt") / 1024)) MiB," \
			"$(awk -F': ' '/Elapsed/ {print $2}' "$WORK/time.txt")"
	done
	"$WORK/tpulayout" manifest merge "$WORK/outp"
	if diff -r "$WORK/out" "$WORK/outp" >/dev/null; then
		echo "merged $PROCS-process output equals the one-process output byte for byte"
	else
		echo "merged $PROCS-process output DIFFERS from the one-process output" >&2
		exit 1
	fi
fi
