#!/usr/bin/env bash
# Fuzzes the HLO module reader briefly, seeded from hlo/testdata and the corpus of real
# modules in testdata/hlo (issue #26). Count-based, as .ci/run's other fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 20000x ./hlo
go test -run '^$' -fuzz '^FuzzParseInstruction$' -fuzztime 20000x ./hlo
