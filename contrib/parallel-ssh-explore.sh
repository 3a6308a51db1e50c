#!/usr/bin/env bash
# parallel-ssh-explore.sh: an exploration on several hosts with GNU
# parallel over ssh, one shard of the workloads per host, merged here.
# usage: parallel-ssh-explore.sh OUT HOST... [-- EXPLORE-OPTION...]
# Every shard runs `powercut explore --shard I/N` with the EXPLORE-OPTIONs
# (--seq or --random, --config, --model...: all the shards need the same),
# as root on its host, which needs powercut and what `powercut run` needs
# (nbdfuse, e2fsprogs, xfs_io, setfattr).  Each shard's directory is
# fetched back as OUT.shard-I and removed from its host; the merge goes to
# OUT.  SSH and SCP name the commands to use (default ssh and scp),
# POWERCUT_REMOTE the program on the hosts (default powercut), JOBS how
# many hosts explore at once (default all of them).  Exits as the merge
# does (0 no failure, 1 failures found, 2 error).
set -euo pipefail
usage() { echo "usage: $0 OUT HOST... [-- EXPLORE-OPTION...]" >&2; exit 2; }
[ $# -ge 2 ] || usage
out=$1; shift
hosts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do hosts+=("$1"); shift; done
[ $# -eq 0 ] || shift
n=${#hosts[@]}
[ "$n" -ge 1 ] || usage
# the options, quoted for the remote shell
PC_OPTS=
[ $# -eq 0 ] || PC_OPTS=$(printf ' %q' "$@")
export PC_SSH=${SSH:-ssh} PC_SCP=${SCP:-scp} PC_REMOTE=${POWERCUT_REMOTE:-powercut}
export PC_OUT=$out PC_N=$n PC_OPTS PC_RUN=powercut-$$-$(date +%s)
rm -rf "$out".shard-*
# One job per host: explore shard i of n into a scratch directory there,
# fetch it, remove it.  An exploration that found failures exits 1.
printf '%s\n' "${hosts[@]}" | parallel --will-cite --jobs "${JOBS:-$n}" --line-buffer --halt now,fail=1 '
  i=$(( {#} - 1 )); d=/tmp/$PC_RUN-$i
  { $PC_SSH {} "$PC_REMOTE" explore --shard $i/$PC_N$PC_OPTS --quiet --out $d || [ $? -eq 1 ]; } &&
  $PC_SCP -q -r {}:$d "$PC_OUT.shard-$i"; st=$?
  $PC_SSH {} rm -rf $d; exit $st' ||
  { echo "$0: a shard failed (see above): nothing merged" >&2; exit 2; }
"${POWERCUT:-powercut}" explore --merge --out "$out" "$out".shard-*
