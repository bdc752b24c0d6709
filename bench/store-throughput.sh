#!/usr/bin/env bash
# Conversion throughput from an S3 server (versitygw on this machine, started by
# .ci/store.sh) beside plain ranged GETs of the same bytes from the same server in
# the same run, and the conversion's peak RSS. The checkpoint: SIZE_GIB GiB of four
# f32[R,4096] tensors of random data, converted with P("data", "model") on
# data=2,model=4 to the v5e bf16 layout (each source byte is read once).
#
#   bash bench/store-throughput.sh            # 1 GiB
#   SIZE_GIB=4 bash bench/store-throughput.sh # the issue's size (needs ~16 GiB of /tmp)
#   TPULAYOUT=/tmp/tl-old bash bench/store-throughput.sh  # time that build, not this tree's
#
# Each line gives the client's CPU time (user+system) and the server's in that phase:
# on one machine the server competes with the conversion for the same cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != --inside ]; then
  exec .ci/store.sh --exec bash "$0" --inside
fi

SIZE_GIB=${SIZE_GIB:-1}
COLS=4096
ROWS=$((SIZE_GIB * (1 << 30) / (4 * 4 * COLS)))
WORK=$(mktemp -d /tmp/store-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
if [ -n "${TPULAYOUT:-}" ]; then
  cp "$TPULAYOUT" "$WORK/tpulayout"
else
  go build -o "$WORK/tpulayout" ./cmd/tpulayout
fi
go build -o "$WORK/storebench" ./bench/storebench

CKPT="$WORK/model.safetensors"
python3 - "$CKPT" "$ROWS" "$COLS" <<'PY'
import json, sys
path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = rows * cols * 4
hdr = {f"layers.{i}.w": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [i * n, (i + 1) * n]} for i in range(4)}
h = json.dumps(hdr).encode()
h += b" " * (-len(h) % 8)
with open(path, "wb") as f:
    f.write(len(h).to_bytes(8, "little") + h)
PY
head -c "$((4 * ROWS * COLS * 4))" /dev/urandom >>"$CKPT"
size=$(stat -c %s "$CKPT")
data=$((4 * ROWS * COLS * 4))
echo "checkpoint: $size bytes (4 × f32[$ROWS,$COLS]), uploading to s3://tpulayout/model.safetensors"
"$WORK/storebench" put "$CKPT" s3://tpulayout/model.safetensors
ARGS=(--all --mesh data=2,model=4 --spec 'P("data", "model")' --to tpu:v5e --dtype bf16)
# The same conversion from the local file: what the computing and writing cost.
/usr/bin/time -f '%e %M' "$WORK/tpulayout" convert "$CKPT" "$WORK/out" "${ARGS[@]}" >/dev/null 2>"$WORK/time.txt"
read -r secs kib <"$WORK/time.txt"
echo "convert from the local file: $data bytes in $secs s: $(python3 -c "print(f'{$data/$secs/2**20:.0f}')") MiB/s, peak RSS $((kib / 1024)) MiB"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$CKPT" "$WORK/out" # from here on, the bucket holds the only copy

# The server shares the cores: its CPU time (clock ticks of user+system) in each phase.
vgw=$(pgrep -f -- "--port 127.0.0.1:${AWS_ENDPOINT_URL_S3##*:}" | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$vgw/stat"; }
hz=$(getconf CLK_TCK)

for round in 1 2; do
  t0=$(ticks)
  /usr/bin/time -f '%U %S' -o "$WORK/get.txt" "$WORK/storebench" get s3://tpulayout/model.safetensors $((size - data)) "$data" >"$WORK/got.txt"
  read -r n secs <"$WORK/got.txt"
  t1=$(ticks)
  gcpu=$(awk '{printf "%.2f", $1 + $2}' "$WORK/get.txt")
  echo "round $round: ranged GET (4 MiB, 8 in flight): $n bytes in $secs s: $(python3 -c "print(f'{$n/$secs/2**20:.0f}')") MiB/s, CPU $gcpu s, server CPU $(python3 -c "print(f'{($t1-$t0)/$hz:.2f}')") s"
  rm -rf "$WORK/out"
  t0=$(ticks)
  /usr/bin/time -v "$WORK/tpulayout" convert s3://tpulayout/model.safetensors "$WORK/out" "${ARGS[@]}" >/dev/null 2>"$WORK/time.txt"
  t1=$(ticks)
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")
  secs=$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$WORK/time.txt")
  echo "round $round: convert from s3://: $data bytes in $secs s: $(python3 -c "print(f'{$data/$secs/2**20:.0f}')") MiB/s, peak RSS $((kib / 1024)) MiB, CPU $cpu s, server CPU $(python3 -c "print(f'{($t1-$t0)/$hz:.2f}')") s"
done
grep -m1 'model name' /proc/cpuinfo
echo "cores: $(nproc)"
