#!/usr/bin/env bash
# Conversion throughput from an S3 server (versitygw on this machine, started by
# .ci/store.sh) beside plain ranged GETs of the same bytes from the same server in
# the same run, and the conversion's peak RSS. The checkpoint: SIZE_GIB GiB of four
# f32[R,4096] tensors of random data, converted with P("data", "model") on
# data=2,model=4 to the v5e bf16 layout (each source byte is read once).
#
#   bash bench/scripts/store-throughput.sh                     # 1 GiB, 2 rounds
#   SIZE_GIB=4 bash bench/scripts/store-throughput.sh          # the issue's size (needs ~16 GiB of /tmp)
#   OLD=/path/to/old/tpulayout ROUNDS=3 bash bench/scripts/store-throughput.sh
#   TPULAYOUT=/tmp/tl-new bash bench/scripts/store-throughput.sh    # time that build, not this tree's
#
# The GETs: 4 MiB ranges 8 in flight (the conversion's reads until 2026-11-27) and
# 16 MiB ranges 4 in flight (its reads ahead since), both into reused buffers. With
# OLD set, that binary's conversion runs beside this tree's in every round, in
# alternating order, and so does gather from a conversion in the bucket, each build
# from one it wrote (GATHER=0 leaves gather out). Each line gives the client's CPU time (user+system)
# and the server's in that phase, how many requests the server answered (its log
# lines), and how busy the machine's CPUs were (all processes, from /proc/stat): on
# one machine the server competes with the client for the same cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" != --inside ]; then
  exec .ci/store.sh --exec bash "$0" --inside
fi

SIZE_GIB=${SIZE_GIB:-1}
ROUNDS=${ROUNDS:-2}
GATHER=${GATHER:-1}
COLS=4096
ROWS=$((SIZE_GIB * (1 << 30) / (4 * 4 * COLS)))
WORK=$(mktemp -d /tmp/store-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
if [ -n "${TPULAYOUT:-}" ]; then
  cp "$TPULAYOUT" "$WORK/tpulayout"
else
  go build -o "$WORK/tpulayout" ./cmd/tpulayout
fi
go build -o "$WORK/storebench" ./bench/scripts/storebench
BINS=(new)
declare -A BIN=([new]="$WORK/tpulayout")
if [ -n "${OLD:-}" ]; then
  BINS=(old new)
  BIN[old]=$OLD
fi

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), cpuid family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) vCPUs"
"$WORK/storebench" copy
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

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
if [ "$GATHER" = 1 ]; then
  # Each build gathers a conversion it wrote itself: an older one may not read a newer
  # one's manifest (one before CRC-32C cannot read a crc32c manifest).
  for b in "${BINS[@]}"; do
    "${BIN[$b]}" convert s3://tpulayout/model.safetensors "s3://tpulayout/conv-$b" "${ARGS[@]}" >/dev/null
  done
fi

# The server shares the cores: its CPU time (clock ticks of user+system) in each phase,
# and its requests (one log line each).
port=${AWS_ENDPOINT_URL_S3##*:}
vgw=$(pgrep -f -- "--port 127.0.0.1:$port" | head -1)
vlog=$(tr '\0' ' ' <"/proc/$vgw/cmdline" | grep -o '/tmp/[^ ]*/s3' | sed 's|/s3$|/versitygw.log|')
ticks() { awk '{print $14 + $15}' "/proc/$vgw/stat"; }
cpus() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6}' /proc/stat; } # busy, idle
lines() { if [ -r "$vlog" ]; then wc -l <"$vlog"; else echo 0; fi; }
hz=$(getconf CLK_TCK)
secs() { python3 -c "p='$1'.split(':'); print(sum(float(x)*60**i for i,x in enumerate(reversed(p))))"; }

# phase NAME CMD…: runs CMD under /usr/bin/time -v; prints its line (MiB/s of
# $pbytes, else of the source's bytes), sets $wall.
phase() {
  local name=$1 t0 t1 l0 l1 kib cpu b0 i0 b1 i1
  shift
  t0=$(ticks) l0=$(lines)
  read -r b0 i0 < <(cpus)
  /usr/bin/time -v "$@" >"$WORK/out.txt" 2>"$WORK/time.txt"
  read -r b1 i1 < <(cpus)
  t1=$(ticks) l1=$(lines)
  wall=$(secs "$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$WORK/time.txt")")
  kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$WORK/time.txt")
  if [ -s "$WORK/out.txt" ] && read -r _ s <"$WORK/out.txt" && [[ $s =~ ^[0-9.]+$ ]]; then
    wall=$s # storebench get times its reads alone
  fi
  printf '%-34s %6.3f s %6.0f MiB/s  peak RSS %4d MiB  CPU %5.2f s  server CPU %5.2f s  requests %d  CPUs busy %d%%\n' \
    "$name" "$wall" "$(python3 -c "print(${pbytes:-$data}/$wall/2**20)")" $((kib / 1024)) "$cpu" \
    "$(python3 -c "print(($t1-$t0)/$hz)")" $((l1 - l0)) $((100 * (b1 - b0) / (b1 - b0 + i1 - i0 + 1)))
}

for round in $(seq "$ROUNDS"); do
  echo "round $round (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  phase "ranged GET 4 MiB x8" "$WORK/storebench" get s3://tpulayout/model.safetensors $((size - data)) "$data"
  g4=$wall
  phase "ranged GET 16 MiB x4" "$WORK/storebench" get -span $((16 << 20)) -inflight 4 s3://tpulayout/model.safetensors $((size - data)) "$data"
  g16=$wall
  order=("${BINS[@]}")
  if [ $((round % 2)) = 0 ]; then order=($(printf '%s\n' "${BINS[@]}" | tac)); fi
  for b in "${order[@]}"; do
    rm -rf "$WORK/out"
    phase "convert from s3:// ($b)" "${BIN[$b]}" convert s3://tpulayout/model.safetensors "$WORK/out" "${ARGS[@]}"
    echo "  $b: $(python3 -c "print(f'{$g4/$wall:.2f}x of the 4 MiB GET, {$g16/$wall:.2f}x of the 16 MiB GET')")"
  done
  if [ "$GATHER" = 1 ]; then
    for b in "${order[@]}"; do
      rm -f "$WORK/gathered.safetensors"
      pbytes=$((data / 2)) phase "gather from s3:// ($b)" "${BIN[$b]}" gather "s3://tpulayout/conv-$b" "$WORK/gathered.safetensors"
    done
  fi
done
rm -rf "$WORK/out" "$WORK/gathered.safetensors"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
