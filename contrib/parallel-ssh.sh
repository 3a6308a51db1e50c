#!/usr/bin/env bash
# parallel-ssh.sh: check a log on several hosts with GNU parallel over ssh,
# one shard per host, and merge the shards' reports here.
# usage: parallel-ssh.sh LOG HOST... [-- CHECK-OPTION...]
# Every shard is checked with the CHECK-OPTIONs (--model, --seed, --base...:
# all the shards need the same; a file they name must be on every host).
# Each host needs powercut and e2fsprogs; the log is copied to it, into a
# scratch file of this run, removed afterwards.  SSH and SCP name the
# commands to use (default ssh and scp: give "ssh -F CONFIG" for another
# port or key), POWERCUT_REMOTE the program on the hosts (default powercut),
# JOBS how many hosts check at once (default all of them).
# Writes shard-I.json, report.json and report.html here; exits as merge
# does (0 no problem, 1 problems found, 2 error).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 LOG HOST... [-- CHECK-OPTION...]" >&2; exit 2; }
log=$1; shift
hosts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do hosts+=("$1"); shift; done
[ $# -eq 0 ] || shift
n=${#hosts[@]}
[ "$n" -ge 1 ] || { echo "usage: $0 LOG HOST... [-- CHECK-OPTION...]" >&2; exit 2; }
# the options, quoted for the remote shell
PC_OPTS=
[ $# -eq 0 ] || PC_OPTS=$(printf ' %q' "$@")
export PC_SSH=${SSH:-ssh} PC_SCP=${SCP:-scp} PC_REMOTE=${POWERCUT_REMOTE:-powercut}
export PC_LOG=$log PC_N=$n PC_OPTS PC_RUN=powercut-$$-$(date +%s)
rm -f shard-*.json
# One job per host: copy the log there, check shard i of n, fetch the
# report, remove what it left there.  A check that found problems exits 1.
printf '%s\n' "${hosts[@]}" | parallel --will-cite --jobs "${JOBS:-$n}" --line-buffer --halt now,fail=1 '
  i=$(( {#} - 1 )); f=/tmp/$PC_RUN-$i
  $PC_SCP -q "$PC_LOG" {}:$f.log &&
  { $PC_SSH {} "$PC_REMOTE" check $f.log --shard $i/$PC_N$PC_OPTS --quiet --json $f.json || [ $? -eq 1 ]; } &&
  $PC_SCP -q {}:$f.json shard-$i.json; st=$?
  $PC_SSH {} rm -f $f.log $f.json; exit $st' ||
  { echo "$0: a shard failed (see above): nothing merged" >&2; exit 2; }
"${POWERCUT:-powercut}" merge --json report.json --html report.html shard-*.json
