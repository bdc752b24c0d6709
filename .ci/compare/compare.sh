#!/bin/bash
# compare.sh OLD NEW [COMMANDS]: runs every line of COMMANDS (default: commands.txt
# beside this script) as one bash session, first with OLD as `tpulayout` on PATH, then
# with NEW, each from the same fresh working directory (/tmp/cmpwork.PID, holding
# `tpulayout example` data and the repository's testdata as ./td), and compares per
# command: stdout, stderr, exit status; at the end every file left in the directory.
# Exit 0 when all is identical. The other lists here: commands-errors.txt,
# commands-sharding-errors.txt; commands-buckets.txt through compare-buckets.sh. Use it
# to check that a refactoring changes no output (build the old binary from main first).
# Results stay in /tmp/cmp.PID/{old,new}.
set -u
old=$(readlink -f "$1"); new=$(readlink -f "$2")
cmds=${3:-$(dirname "$(readlink -f "$0")")/commands.txt}
export CMPDIR=$(dirname "$(readlink -f "$0")")
repo=${REPO:-$(cd "$CMPDIR/../.." && pwd)}
res=/tmp/cmp.$$; mkdir -p $res
run() { # name binary
  local name=$1 bin=$2 w=/tmp/cmpwork.$$
  rm -rf $w; mkdir -p $w/bin $w/tmp $res/$name
  ln -s "$bin" $w/bin/tpulayout
  "$bin" example $w >/dev/null 2>&1
  cp -r "$repo/testdata" $w/td
  local i=0
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue;; esac
    i=$((i+1))
    ( cd $w && PATH=$w/bin:$PATH TMPDIR=$w/tmp COLUMNS=80 timeout 120 bash -c "$line" \
        >$res/$name/$i.out 2>$res/$name/$i.err </dev/null; echo $? >$res/$name/$i.rc )
    printf '%s\n' "$line" >$res/$name/$i.cmd
  done <"$cmds"
  rm -rf $w/bin $w/tmp
  (cd $w && find . -type f | sort | xargs -d '\n' sha256sum) >$res/$name/files.sha
  (cd $w && find . | sort) >$res/$name/tree.txt
  echo $i >$res/$name/count
}

run old "$old"; run new "$new"
n=$(cat $res/old/count); bad=0
for i in $(seq 1 $n); do
  for k in out err rc; do
    if ! cmp -s $res/old/$i.$k $res/new/$i.$k; then
      bad=$((bad+1)); echo "DIFF #$i ($k): $(cat $res/old/$i.cmd)"
      diff $res/old/$i.$k $res/new/$i.$k | head -10
    fi
  done
done
for f in files.sha tree.txt; do
  if ! cmp -s $res/old/$f $res/new/$f; then bad=$((bad+1)); echo "DIFF files ($f):"; diff $res/old/$f $res/new/$f | head -20; fi
done
nz=$(cat $res/old/*.rc | grep -vc '^0$')
echo "compared $n commands ($nz with non-zero exit), $bad differences; results in $res"
[ $bad = 0 ]
