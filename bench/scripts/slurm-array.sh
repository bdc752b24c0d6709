#!/usr/bin/env bash
# The Slurm array job of docs/sharding.md ("Many hosts"), run as written there on a one-node Slurm:
# installs slurm-wlm and munge (Debian's, as root) if missing, starts munged,
# slurmctld and slurmd for this host with a configuration in a temporary directory,
# submits the guide's convert.sh array job and its dependent merge, cancels one
# array task while it runs, resubmits it (with a new merge, since the first one's
# dependency can no longer be met), and checks that the merged directory equals a
# one-process conversion byte for byte and passes verify.
#
#   sudo bash bench/scripts/slurm-array.sh          # SIZE_MIB=1024 by default
#
# Not run by CI: the install and the daemons take minutes and need root. Everything
# it starts it stops, everything it makes it removes (the installed packages stay).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
[ "$(id -u)" = 0 ] || { echo "run as root (it installs packages and starts daemons)"; exit 2; }
SIZE_MIB=${SIZE_MIB:-1024}

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "== installing slurm-wlm and munge"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/slurm-array.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== building tpulayout into $work/bin"
mkdir -p "$work/bin"
go build -o "$work/bin/tpulayout" ./cmd/tpulayout
export PATH="$work/bin:$PATH"

echo "== munged"
mkdir -p "$work/munge" && chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" -f
pids+=("$(cat "$work/munge/munged.pid")")

echo "== slurmctld and slurmd for $(hostname -s)"
host=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<CONF
ClusterName=tpulayout
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$((17000 + RANDOM % 1000))
SlurmdPort=$((18000 + RANDOM % 1000))
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=$host CPUs=$(nproc) RealMemory=4096 State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o '%P %D %T %c %m' || { cat "$work/slurmctld.log" "$work/slurmd.log"; exit 1; }

echo "== a ${SIZE_MIB} MiB sharded checkpoint (index and two files) and rules.json"
cd "$work"
python3 - "$SIZE_MIB" <<'PY'
import json, os, struct, sys
mib = int(sys.argv[1])
cols = 4096
rows = mib * 2**20 // (4 * 4 * cols)
def write(path, tensors):
    hdr, off = {}, 0
    for name, shape in tensors:
        n = 4 * shape[0] * shape[1]
        hdr[name] = {"dtype": "F32", "shape": shape, "data_offsets": [off, off + n]}
        off += n
    h = json.dumps(hdr).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for _ in range(off // 2**20):
            f.write(os.urandom(2**20))
        f.write(os.urandom(off % 2**20))
names = [f"layers.{i}.attn.wq" if i % 2 == 0 else f"layers.{i}.mlp.w1" for i in range(4)]
files = {"model-00001-of-00002.safetensors": names[:2], "model-00002-of-00002.safetensors": names[2:]}
wm = {}
for fn, ns in files.items():
    write(fn, [(n, [rows, cols]) for n in ns])
    wm.update({n: fn for n in ns})
json.dump({"metadata": {}, "weight_map": wm}, open("model.safetensors.index.json", "w"))
PY
cat >rules.json <<'R'
{
  "rules": [
    {"match": "attn\\.w[qkv]$", "spec": "P(None, \"model\")"},
    {"match": "mlp\\.w1$",      "spec": "P(\"data\", \"model\")"}
  ],
  "default": "P()"
}
R

echo "== convert.sh: the array job of docs/sharding.md, as written"
awk '/^```bash$/ {b=1; s=""; next} b && /^```$/ {if (s ~ /SBATCH --array/) {printf "%s", s; exit} b=0; next} b {s = s $0 "\n"}' \
  "$repo/docs/sharding.md" >convert.sh
cat convert.sh
grep -q 'SBATCH --array=0-3' convert.sh || { echo "docs/sharding.md's array job not found"; exit 1; }

echo "== submitted, with the dependent merge"
jobid=$(sbatch --parsable convert.sh)
merge=$(sbatch --parsable --dependency=afterok:$jobid --wrap 'tpulayout manifest merge images')
echo "array job $jobid, merge job $merge"

# gone JOB: is JOB (a job or an array task) out of the queue?
gone() { ! squeue -h -r -j "$1" -o %i 2>/dev/null | grep -q .; }
# await JOB SECONDS: wait until JOB has left the queue.
await() {
  for _ in $(seq $((2 * $2))); do gone "$1" && return 0; sleep 0.5; done
  echo "job $1 still queued after $2 s:"; squeue -r; exit 1
}
victim=
for _ in $(seq 1200); do
  victim=$(squeue -h -r -j "$jobid" -t RUNNING -o %i | head -1)
  [ -n "$victim" ] && break
  sleep 0.05
done
[ -n "$victim" ] || { echo "no array task was seen running"; exit 1; }
echo "cancelling task $victim while it runs ($(squeue -h -r -j "$victim" -o %T))"
scancel "$victim"
await "$jobid" 300
task=${victim#*_}
# A process writes its partial manifest last: none means it was stopped mid-run.
if [ -e "images/manifest.process-$task-of-4.json" ]; then
  echo "task $victim finished before it was cancelled: try a larger SIZE_MIB"
  exit 1
fi
echo "array job done; the merge job is $(squeue -h -j "$merge" -o '%T (%r)')"
scancel "$merge" # its dependency can no longer be met
[ ! -e images/manifest.json ] || { echo "merged despite the cancelled task"; exit 1; }

echo "== task $task resubmitted alone, with a new merge"
again=$(sbatch --parsable --array="$task" convert.sh)
merge=$(sbatch --parsable --dependency=afterok:$again --wrap 'tpulayout manifest merge images')
await "$again" 300
for _ in $(seq 240); do
  gone "$merge" && break
  if squeue -h -j "$merge" -o %r | grep -q DependencyNeverSatisfied; then
    echo "the resubmitted task failed:"; cat slurm-"${again}"_"$task".out; scancel "$merge"; exit 1
  fi
  sleep 0.5
done
await "$merge" 10
cat slurm-"$merge".out
[ -e images/manifest.json ] || { echo "no merged manifest"; exit 1; }

echo "== compared with one process"
tpulayout convert model.safetensors.index.json one --all --mesh data=2,model=4 --rules rules.json --to tpu:v5e --dtype bf16 >/dev/null
diff -r one images && echo "same: the array job's directory equals the one-process conversion"
tpulayout verify images | tail -2
