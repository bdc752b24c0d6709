#!/usr/bin/env bash
# Object-store tests on real servers: an S3 server (versitygw, posix backend) and a
# GCS emulator (fake-gcs-server), each on a free local port with its data in a
# temporary directory, then the tests that need them (they skip without the
# TPULAYOUT_TEST_* variables set here), then both stopped.
#
# The servers are built once with go install into $(go env GOPATH)/bin and rebuilt
# only when missing or of another version: cold, versitygw took 2m48s of CPU and
# fake-gcs-server 1m24s on the 2-vCPU Cascade Lake VM (12m15s and 4m46s of wall time
# there, with other builds sharing the cores).
#
# Usage: .ci/store.sh [go test flags…], e.g. .ci/store.sh -run Faulty -v
#        .ci/store.sh --exec CMD [ARGS…]: run CMD with the servers up instead (a shell,
#        a benchmark), with TPULAYOUT_TEST_S3, AWS_ENDPOINT_URL_S3, TPULAYOUT_TEST_GCS
#        and STORAGE_EMULATOR_HOST set, and the bucket "tpulayout" on each.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin:$(go env GOPATH)/bin"
bin=$(go env GOPATH)/bin

VGW=github.com/versity/versitygw/cmd/versitygw@v1.8.0
FGCS=github.com/fsouza/fake-gcs-server@v1.56.1

# cached BIN MODULE@VERSION: is BIN built from that version?
cached() {
  [ -x "$bin/$1" ] && go version -m "$bin/$1" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]]*${2%@*}[[:space:]]*${2#*@}"
}
cached versitygw "github.com/versity/versitygw@${VGW#*@}" || { echo "== building versitygw (cold: minutes)"; go install "$VGW"; }
cached fake-gcs-server "$FGCS" || { echo "== building fake-gcs-server (cold: minutes)"; go install "$FGCS"; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Test-only credentials of the local S3 server, not secrets.
export AWS_ACCESS_KEY_ID=tpulayout-test AWS_SECRET_ACCESS_KEY=tpulayout-test-secret
export AWS_EC2_METADATA_DISABLED=true AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 STORAGE_EMULATOR_HOST

s3port=$(free_port)
mkdir -p "$work/s3"
versitygw --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port "127.0.0.1:$s3port" \
  posix "$work/s3" >"$work/versitygw.log" 2>&1 &
pids+=($!)
gcsport=$(free_port)
fake-gcs-server -scheme http -host 127.0.0.1 -port "$gcsport" -backend filesystem \
  -filesystem-root "$work/gcs" -log-level warn >"$work/fake-gcs-server.log" 2>&1 &
pids+=($!)

# wait_up NAME URL LOG: until the server answers HTTP at all.
wait_up() {
  for _ in $(seq 100); do
    if curl -s -o /dev/null "$2" 2>/dev/null || (exec 3<>"/dev/tcp/127.0.0.1/${2##*:}") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$1 did not start; its log:"; cat "$3"; exit 1
}
wait_up versitygw "http://127.0.0.1:$s3port" "$work/versitygw.log"
wait_up fake-gcs-server "http://127.0.0.1:$gcsport" "$work/fake-gcs-server.log"

export TPULAYOUT_TEST_S3="http://127.0.0.1:$s3port" TPULAYOUT_TEST_GCS="http://127.0.0.1:$gcsport"
if [ "${1:-}" = --exec ]; then
  shift
  export AWS_ENDPOINT_URL_S3=$TPULAYOUT_TEST_S3 STORAGE_EMULATOR_HOST=$TPULAYOUT_TEST_GCS
  curl -sf -X PUT "$TPULAYOUT_TEST_S3/tpulayout" --aws-sigv4 "aws:amz:us-east-1:s3" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" >/dev/null
  curl -sf -X POST "$TPULAYOUT_TEST_GCS/storage/v1/b?project=test" -H 'Content-Type: application/json' \
    -d '{"name":"tpulayout"}' >/dev/null
  "$@"
  exit
fi
echo "== object-store tests (S3: versitygw at $TPULAYOUT_TEST_S3, GCS: fake-gcs-server at $TPULAYOUT_TEST_GCS)"
if ! go test -count=1 -run 'Server|Faulty|Store' "$@" ./store/... ./sharding/... ./cmd/tpulayout/...; then
  echo "== versitygw log (tail)"; tail -20 "$work/versitygw.log"
  echo "== fake-gcs-server log (tail)"; tail -20 "$work/fake-gcs-server.log"
  exit 1
fi
