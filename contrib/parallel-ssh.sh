#!/usr/bin/env bash
# parallel-ssh.sh: check a log on several hosts with GNU parallel over ssh,
# one shard per host, and merge the shards' reports here.
# usage: parallel-ssh.sh LOG HOST...
# Each host needs powercut and e2fsprogs; the log is copied to it.
set -euo pipefail
log=$1; shift
n=$#
[ "$n" -ge 1 ] || { echo "usage: $0 LOG HOST..." >&2; exit 2; }
printf '%s\n' "$@" | parallel --jobs "$n" --line-buffer '
  i=$(( {#} - 1 ))
  scp -q '"$log"' {}:/tmp/powercut-shard.log &&
  ssh {} powercut check /tmp/powercut-shard.log --shard $i/'"$n"' --quiet \
         --json /tmp/powercut-shard-$i.json;
  scp -q {}:/tmp/powercut-shard-$i.json shard-$i.json'
powercut merge --json report.json --html report.html shard-*.json
