#!/usr/bin/env bash
# The Python install block of the docs, run as written: the ```sh block that starts with
# python/install.sh (in README.md or the first guide in docs/ that has one, docs/python.md),
# in a scratch copy of the checkout's root (symlinks) after the Go
# quick start's first steps (tpulayout example, the v5e conversion), checking that it
# prints what the README says it prints ("which prints `…`" after the block). The block
# installs with python/install.sh and runs the package's tests, so this can stand in
# for the venv, pip and pytest lines of CI's Python step. Idempotent; needs Go and gcc;
# installs Debian's Python packages when /usr/bin/python3 lacks them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if ! /usr/bin/python3 -c 'import numpy, pytest, ensurepip, setuptools, wheel' 2>/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    python3-numpy python3-pytest python3-venv python3-setuptools python3-wheel >/dev/null
fi

# The block, and the output the page promises after it.
block= want= doc=
for doc in README.md docs/*.md; do
  block=$(awk '/^```sh$/ {inb=1; b=""; next} inb && /^```$/ {inb=0; if (b ~ /^python\/install\.sh/) {print b; exit}; next} inb {b = b $0 "\n"}' "$doc")
  want=$(awk -v b=0 '/^python\/install\.sh/ {b=1} b && /^which prints `/ {sub(/^which prints `/, ""); sub(/`.*$/, ""); print; exit}' "$doc")
  [ -n "$block" ] && break
done
if [ -z "$block" ] || [ -z "$want" ]; then
  echo "readme-python: neither README.md nor docs/*.md has a \`\`\`sh block starting with python/install.sh followed by 'which prints \`…\`'" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for f in "$root"/* "$root"/.[!.]*; do
  case $(basename "$f") in .git|.venv|example) continue ;; esac
  ln -s "$f" "$work/$(basename "$f")"
done
go build -o "$work/.bin/" ./cmd/tpulayout
export PATH="$work/.bin:$PATH"
cd "$work"
tpulayout example example >/dev/null
(cd example && tpulayout convert weights.npy weights.bf16.bin --to tpu:v5e --dtype bf16 >/dev/null)

echo "$block" > "$work/block.sh"
out=$(PYTHON=/usr/bin/python3 bash -e "$work/block.sh" 2>"$work/stderr") || {
  cat "$work/stderr" >&2; echo "$out"; echo "readme-python: the Python install block of $doc failed" >&2; exit 1; }
if ! grep -qxF "$want" <<<"$out"; then
  echo "$out"
  echo "readme-python: the Python install block of $doc did not print '$want'" >&2
  exit 1
fi
echo "readme-python: the Python install block of $doc printed '$want'"
grep -E 'passed|failed' <<<"$out" | tail -1 # pytest's closing line, last
