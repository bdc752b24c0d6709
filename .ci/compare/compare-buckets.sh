#!/bin/bash
# compare-buckets.sh OLD NEW: compare.sh over commands-buckets.txt with the test
# object stores up (.ci/store.sh --exec, from this checkout).
here=$(dirname "$(readlink -f "$0")")
repo=$(cd "$here/../.." && pwd)
cd "$repo" && bash .ci/store.sh --exec bash "${COMPARE:-$here/compare.sh}" "$1" "$2" "$here/commands-buckets.txt"
