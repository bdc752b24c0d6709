#!/usr/bin/env bash
# Conversion throughput from an S3 server (versitygw on this machine, started by
# .ci/store.sh) beside plain ranged GETs of the same bytes from the same server in
# the same run, and the conversion's peak RSS. The checkpoint: SIZE_GIB GiB of four
# f32[R,4096] tensors of random data, converted with P("data", "model") on
# data=2,model=4 to the v5e bf16 layout (each source byte is read once).
#
#   bash bench/store-throughput.sh            # 1 GiB
#   SIZE_GIB=4 bash bench/store-throughput.sh # the issue's size (needs ~16 GiB of /tmp)
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
go build -o "$WORK/tpulayout" ./cmd/tpulayout
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
rm -rf "$CKPT" "$WORK/out" # from here on, the bucket holds the only copy

for round in 1 2; do
  read -r n secs < <("$WORK/storebench" get s3://tpulayout/model.safetensors $((size - data)) "$data")
  echo "round $round: ranged GET (4 MiB, 8 in flight): $n bytes in $secs s: $(python3 -c "print(f'{$n/$secs/2**20:.0f}')") MiB/s"
  rm -rf "$WORK/out"
  /usr/bin/time -v "$WORK/tpulayout" convert s3://tpulayout/model.safetensors "$WORK/out" "${ARGS[@]}" >/dev/null 2>"$WORK/time.txt"
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")
  secs=$(python3 -c "p='$wall'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))")
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  echo "round $round: convert from s3://: $data bytes in $secs s: $(python3 -c "print(f'{$data/$secs/2**20:.0f}')") MiB/s, peak RSS $((kib / 1024)) MiB"
done
grep -m1 'model name' /proc/cpuinfo
echo "cores: $(nproc)"
