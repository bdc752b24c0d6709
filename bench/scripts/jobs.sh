#!/usr/bin/env bash
# Times the jobs users run end to end beside copying the same bytes in the same run:
# a safetensors checkpoint of four f32[R,8192] tensors (default 2 GiB: R = 16384) is
# converted one tensor at a time (convert --tensor), whole (convert --all --to tpu:v5e),
# sharded for a mesh data=2,model=4 with P("data", "model") (native f32 and --dtype
# bf16), then the f32 shards are verified and gathered. Each job's throughput (bytes it
# writes / wall time) is set beside `cat IN > OUT` (page cache only) and
# `dd bs=1M conv=fsync` (durable, as the tool is: it fsyncs every file before its
# rename) of the whole checkpoint, timed in the same round. Peak RSS from /usr/bin/time.
# Each writing job runs twice: durable (the default; compare ×dd) and with
# --sync=false, which leaves the writing to the disk to the system as cat does
# (compare ×cat); a build without --sync runs the durable rows only.
#
#   bash bench/scripts/jobs.sh                        # 2 GiB, 2 rounds, in a new dir under /tmp
#   SIZE_MIB=512 ROUNDS=3 bash bench/scripts/jobs.sh  # a quicker run
#   BINS="old=/tmp/tl-old new=/tmp/tl-new" bash bench/scripts/jobs.sh   # alternate two builds
#   WORK=/dev/shm/jobs bash bench/scripts/jobs.sh     # on tmpfs: fsync is free, no disk at all
#   JOBS=convert bash bench/scripts/jobs.sh           # the convert rows only (--tensor, --all)
#
# The page cache is warmed (the checkpoint is read once) before the first round; every
# output is removed after it is timed. Needs python3 (for the header) and /usr/bin/time
# (Debian package time). WORK sets the directory; everything made there is removed.
set -euo pipefail
cd "$(dirname "$0")/../.."

SIZE_MIB=${SIZE_MIB:-2048}
ROUNDS=${ROUNDS:-2}
COLS=8192
ROWS=$((SIZE_MIB * (1 << 20) / (4 * 4 * COLS))) # per tensor
WORK=${WORK:-$(mktemp -d /tmp/jobs.XXXXXX)}
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT

if [ ! -x /usr/bin/time ]; then
	echo "installing time (for peak RSS)" >&2
	apt-get install -y time >/dev/null
fi

if [ -z "${BINS:-}" ]; then
	echo "building tpulayout" >&2
	go build -o "$WORK/tpulayout" ./cmd/tpulayout
	BINS="this=$WORK/tpulayout"
fi

CKPT="$WORK/model.safetensors"
echo "making a ${SIZE_MIB} MiB checkpoint: 4 × f32[$ROWS,$COLS] of random bits" >&2
python3 - "$CKPT" "$ROWS" "$COLS" <<'PY'
import json, os, sys
path, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = rows * cols * 4
hdr = {f"layers.{i}.w": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [i * n, (i + 1) * n]} for i in range(4)}
h = json.dumps(hdr).encode()
h += b" " * (-len(h) % 8)
with open(path, "wb") as f:
    f.write(len(h).to_bytes(8, "little") + h)
    for i in range(4):
        for _ in range(0, n, 64 << 20):
            f.write(os.urandom(min(64 << 20, n)))
    f.truncate(8 + len(h) + 4 * n)
PY
INBYTES=$(stat -c %s "$CKPT")
cat "$CKPT" >/dev/null # warm the page cache
sync

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ') model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | cut -d: -f2 | tr -d ' '), $(nproc) CPUs"
echo "# $(df -h "$WORK" | awk 'NR==2 {print $1 " (" $2 ", mounted on " $6 ")"}'), $(findmnt -no FSTYPE -T "$WORK" 2>/dev/null | head -1); ${SIZE_MIB} MiB checkpoint; $(date -u '+%F %H:%M UTC')"

# timed NAME BYTES CMD...: runs CMD under /usr/bin/time and prints one row; BYTES is a
# count or the path of what CMD wrote.
timed() {
	local name=$1 bytes=$2
	shift 2
	sync
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt" || {
		echo "FAILED: $name" >&2
		cat "$WORK/err.txt" >&2
		exit 1
	}
	read -r SECS user sys kib <"$WORK/time.txt"
	case "$bytes" in
	/*) bytes=$(du -sb "$bytes" | cut -f1) ;; # a path: the bytes it holds after the run
	esac
	local gbs
	gbs=$(awk -v b="$bytes" -v s="$SECS" 'BEGIN { printf "%.2f", b / (s > 0 ? s : 0.001) / 1e9 }')
	local rc rd
	rc=$(awk -v g="$gbs" -v c="${CAT_GBS:-0}" 'BEGIN { if (c > 0) printf "%.2f", g / c; else print "-" }')
	rd=$(awk -v g="$gbs" -v c="${DD_GBS:-0}" 'BEGIN { if (c > 0) printf "%.2f", g / c; else print "-" }')
	printf '%-5s %-34s %6.2fs user %5.2fs sys %5.2fs %6.2f GB/s of %5d MiB  ×cat %5s  ×dd %5s  RSS %4d MiB\n' \
		"$BIN_NAME" "$name" "$SECS" "$user" "$sys" "$gbs" $((bytes >> 20)) "$rc" "$rd" $((kib / 1024))
	LAST_GBS=$gbs
}

# digest NAME PATH: in round 1, records the sha256 of what a job wrote (a file, or every
# image of a directory: not the manifests, whose format may differ between builds), to
# check below that every build writes the same bytes.
digest() {
	[ "$r" = 1 ] || return 0
	local to=$WORK/digests.$BIN_NAME
	[ -z "$mode" ] || to=$WORK/nodurable.$BIN_NAME # checked against the durable ones
	if [ -d "$2" ]; then
		(cd "$2" && find . -type f ! -name 'manifest*.json' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
	else
		sha256sum <"$2" | cut -c1-16
	fi | sed "s/^/$1 /" >>"$to"
}

MESH=(--mesh data=2,model=4 --spec 'P("data", "model")' --to tpu:v5e)
for ((r = 1; r <= ROUNDS; r++)); do
	echo "# round $r, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	for pair in $BINS; do
		BIN_NAME=${pair%%=*}
		TL=${pair#*=}
		CAT_GBS= DD_GBS=
		timed "cat IN > OUT" "$INBYTES" sh -c 'cat "$1" >"$2"' sh "$CKPT" "$WORK/out"
		CAT_GBS=$LAST_GBS
		rm -f "$WORK/out"
		timed "dd bs=1M conv=fsync" "$INBYTES" dd if="$CKPT" of="$WORK/out" bs=1M conv=fsync status=none
		DD_GBS=$LAST_GBS
		rm -f "$WORK/out"
		MODES=("")
		help=$("$TL" convert --help 2>&1 || true) # not piped to grep -q: SIGPIPE and pipefail
		if [[ $help == *-sync* ]]; then
			MODES+=(--sync=false)
		fi
		for mode in "${MODES[@]}"; do
			# S: the row's suffix and the flag, none for the durable default.
			S=${mode:+ $mode}
			F=(${mode:+"$mode"})
			timed "convert --tensor$S" "$WORK/out" "$TL" convert "$CKPT" "$WORK/out" --tensor layers.0.w --to tpu:v5e "${F[@]}"
			digest tensor "$WORK/out"
			rm -f "$WORK/out"
			timed "convert --all$S" "$WORK/out" "$TL" convert "$CKPT" "$WORK/out" --all --to tpu:v5e "${F[@]}"
			digest all "$WORK/out"
			rm -rf "$WORK/out"
			[ "${JOBS:-all}" = convert ] && continue
			timed "sharded f32$S" "$WORK/out" "$TL" convert "$CKPT" "$WORK/out" --all "${MESH[@]}" "${F[@]}"
			digest sharded "$WORK/out"
			mv "$WORK/out" "$WORK/shards"
			if [ -z "$mode" ]; then
				timed "verify (reads)" "$(du -sb "$WORK/shards" | cut -f1)" "$TL" verify "$WORK/shards"
			fi
			timed "gather$S" "$WORK/out.safetensors" "$TL" gather "$WORK/shards" "$WORK/out.safetensors" "${F[@]}"
			digest gather "$WORK/out.safetensors"
			rm -rf "$WORK/shards" "$WORK/out.safetensors"
			timed "sharded bf16$S" "$WORK/out" "$TL" convert "$CKPT" "$WORK/out" --all "${MESH[@]}" --dtype bf16 "${F[@]}"
			digest bf16 "$WORK/out"
			rm -rf "$WORK/out"
		done
	done
done

for f in "$WORK"/nodurable.*; do
	[ -e "$f" ] || continue
	if ! grep -qxFf "$f" "$WORK/digests.${f##*nodurable.}" || [ "$(grep -cxFf "$f" "$WORK/digests.${f##*nodurable.}")" != "$(wc -l <"$f")" ]; then
		echo "--sync=false WROTE OTHER BYTES than the default with ${f##*nodurable.}" >&2
		paste "$WORK/digests.${f##*nodurable.}" "$f" >&2
		exit 1
	fi
	echo "# --sync=false wrote the same bytes as the default with ${f##*nodurable.}"
done
set -- "$WORK"/digests.*
if [ $# -gt 1 ]; then
	for f in "$@"; do
		if ! cmp -s "$1" "$f"; then
			echo "OUTPUTS DIFFER between builds: ${1##*digests.} and ${f##*digests.}" >&2
			paste "$1" "$f" >&2
			exit 1
		fi
	done
	echo "# every job wrote the same bytes with every build ($(cut -d' ' -f1 "$1" | tr '\n' ' '))"
fi
