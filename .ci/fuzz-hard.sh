#!/usr/bin/env bash
# Brief, count-based runs of the sharding package's fuzz targets (issue 25): the rules
# file, and manifests as gather and merge read them. Idempotent; needs only Go.
# (Count-based: duration-based runs hit a coordinator bug, as .ci/run notes.)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
go test -run '^$' -fuzz '^FuzzRules$' -fuzztime 20000x -parallel 1 ./sharding
go test -run '^$' -fuzz '^FuzzManifestGather$' -fuzztime 3000x -parallel 1 ./sharding
go test -run '^$' -fuzz '^FuzzMergeInput$' -fuzztime 300x -parallel 1 ./sharding
go test -run '^$' -fuzz '^FuzzDeviceIDs$' -fuzztime 20000x -parallel 1 ./sharding
go test -run '^$' -fuzz '^FuzzDeviceRuns$' -fuzztime 20000x -parallel 1 ./sharding
