#!/usr/bin/env bash
# Python's sharded conversion on object stores: python/tests/test_sharded.py's bucket
# tests (tpulayout.shard, merge, verify, gather and Sharded on s3:// and gs:// prefixes,
# each against the CLI on the same URLs) with .ci/store.sh's S3 and GCS servers up.
# They skip without the servers, so this fails unless both ran and passed. Idempotent;
# installs Debian's python3-numpy and python3-pytest when /usr/bin/python3 lacks them.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
if ! /usr/bin/python3 -c 'import numpy, pytest' 2>/dev/null; then
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-numpy python3-pytest >/dev/null
fi
/usr/bin/python3 python/build_lib.py >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
.ci/store.sh --exec /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests/test_sharded.py -k bucket 2>&1 | tee "$log"
grep -q '^2 passed' "$log" || { echo "pyshard: the two bucket tests did not both run and pass" >&2; exit 1; }
