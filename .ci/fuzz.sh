#!/usr/bin/env bash
# Brief, count-based runs of the module's fuzz targets: every parser and reader
# (layouts, HLO, .npy and safetensors headers, the converter's input, partition specs,
# rules files, manifests, device ids, HTTP ranges), layout composition and the relayout
# engine. Count-based: duration-based runs hit a coordinator bug (golang/go#75804).
#
# `go test -fuzz` passes, saying only "no fuzz tests to fuzz", when its package has no
# such target, so a target that moved would stop being fuzzed unseen; here that fails
# the run, and so does a Fuzz function anywhere in the module that the lists below lack.
# Idempotent; needs only Go.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"

# targets: package, target, count, extra go test flags. The counts keep the whole run
# under a minute on 2 cores.
targets=(
  "./layout FuzzLayout 20000x"
  "./layout FuzzParse 20000x"
  "./layout/algebra FuzzCompose 20000x"
  "./relayout FuzzRelayout 60x"
  "./store FuzzContentRange 20000x"
  "./hlo FuzzParse 20000x"
  "./hlo FuzzParseInstruction 20000x"
  "./buffer FuzzConverter 20000x"
  "./buffer/npy FuzzNPYHeader 20000x"
  "./buffer/safetensors FuzzSafetensorsHeader 20000x"
  "./sharding FuzzManifestGather 3000x -parallel 1"
  "./sharding FuzzMergeInput 300x -parallel 1"
  "./sharding/placement FuzzRules 20000x -parallel 1"
  "./sharding/placement FuzzParseSpec 20000x"
  "./sharding/manifest FuzzDeviceIDs 20000x -parallel 1"
  "./sharding/manifest FuzzDeviceRuns 20000x -parallel 1"
)

# seedOnly: Fuzz functions that run their seeds under plain go test and are not fuzzed
# here. simd's compare each kernel with the generic code, which simd's tests already do
# at every size, stride and alignment (TPULAYOUT_LONG=1 in the long phase); fuzz them by
# hand when changing a kernel (simd/fuzz_test.go). FuzzRandSources checks
# testenv.FuzzRand's own seeds by the first draw of each, which a fuzzer's repeated run
# of one input would read as two seeds drawing alike.
seedOnly=(
  "simd FuzzConvert" "simd FuzzCopy" "simd FuzzFill" "simd FuzzPack16" "simd FuzzPack8"
  "simd FuzzRows" "simd FuzzTranspose"
  "internal/testenv FuzzRandSources"
)

# Every Fuzz function in the module's tests must be listed in one or the other.
listed=$({
  for t in "${targets[@]}"; do set -- $t; echo "${1#./} $2"; done
  printf '%s\n' "${seedOnly[@]}"
} | sort)
found=$(git ls-files --cached --others --exclude-standard '*_test.go' | xargs grep -H '^func Fuzz' |
  sed -E 's#^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' | sort -u)
if missing=$(comm -13 <(echo "$listed") <(echo "$found")) && [ -n "$missing" ]; then
  echo "fuzz.sh: fuzz targets not in its list:" >&2
  echo "$missing" >&2
  exit 1
fi

for t in "${targets[@]}"; do
  set -- $t
  pkg=$1 target=$2 count=$3
  shift 3
  start=$SECONDS
  out=$(go test -run '^$' -fuzz "^$target\$" -fuzztime "$count" "$@" "$pkg" 2>&1) || {
    printf '%s\n' "$out"
    exit 1
  }
  printf '%s\n' "$out" | grep -v '^fuzz: elapsed: 0s'
  echo "-- $pkg $target $count: $((SECONDS - start)) s"
  if grep -q 'no fuzz tests to fuzz' <<<"$out"; then
    echo "fuzz.sh: $pkg has no fuzz target $target" >&2
    exit 1
  fi
done
