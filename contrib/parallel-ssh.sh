#!/usr/bin/env bash
# parallel-ssh.sh: check a log on several hosts with GNU parallel over ssh,
# one shard per host, and merge the shards' reports here.
# usage: parallel-ssh.sh LOG HOST...
# Each host needs powercut and e2fsprogs; the log is copied to it, into a
# scratch file of this run, removed afterwards.  SSH and SCP name the
# commands to use (default ssh and scp: give "ssh -F CONFIG" for another
# port or key), POWERCUT_REMOTE the program on the hosts (default powercut),
# JOBS how many hosts check at once (default all of them).
# Writes shard-I.json, report.json and report.html here; exits as merge
# does (0 no problem, 1 problems found, 2 error).
set -euo pipefail
log=$1; shift
n=$#
[ "$n" -ge 1 ] || { echo "usage: $0 LOG HOST..." >&2; exit 2; }
export PC_SSH=${SSH:-ssh} PC_SCP=${SCP:-scp} PC_REMOTE=${POWERCUT_REMOTE:-powercut}
export PC_LOG=$log PC_N=$n PC_RUN=powercut-$$-$(date +%s)
rm -f shard-*.json
# One job per host: copy the log there, check shard i of n, fetch the
# report, remove what it left there.  A check that found problems exits 1.
printf '%s\n' "$@" | parallel --will-cite --jobs "${JOBS:-$n}" --line-buffer --halt now,fail=1 '
  i=$(( {#} - 1 )); f=/tmp/$PC_RUN-$i
  $PC_SCP -q "$PC_LOG" {}:$f.log &&
  { $PC_SSH {} "$PC_REMOTE" check $f.log --shard $i/$PC_N --quiet --json $f.json || [ $? -eq 1 ]; } &&
  $PC_SCP -q {}:$f.json shard-$i.json; st=$?
  $PC_SSH {} rm -f $f.log $f.json; exit $st'
"${POWERCUT:-powercut}" merge --json report.json --html report.html shard-*.json
