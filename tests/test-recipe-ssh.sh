#!/usr/bin/env bash
# test-recipe-ssh.sh: contrib/parallel-ssh.sh with GNU parallel over ssh.
# The test starts an sshd of its own on a free loopback port with
# throwaway host and client keys; three host names reach it, and the
# recipe checks a recorded log in three shards on them and merges them:
# the same totals and findings as one unsharded check; and
# contrib/parallel-ssh-explore.sh explores in three shards on them: the
# outcomes of one unsharded exploration.  Nothing is left on
# the "hosts" or running afterwards.
source "$top_srcdir/tests/functions.sh"
requires_root
requires sshd ssh scp ssh-keygen parallel python3
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck xfs_io setfattr

source "$top_srcdir/tests/clusters.sh"

export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR" "$tmp/run"
start_sshd h0 h1 h2

cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/run/app.log"
cd "$tmp/run"
SSH="ssh -F $ssh_config" SCP="scp -F $ssh_config" POWERCUT_REMOTE=$POWERCUT \
  run "$top_srcdir/contrib/parallel-ssh.sh" "$tmp/run/app.log" h0 h1 h2 -- --model write
# the recipe merges the three shards, each checked with the options given
# after "--" (exit 1: the log has zero-length points)
assert_eq "$rc" 1 "parallel-ssh.sh: exit status (out: $out; stderr: $err)"
assert_eq "$(ls shard-*.json | tr '\n' ' ')" "shard-0.json shard-1.json shard-2.json " "shard reports"
[ -s report.json ] && [ -s report.html ] || fail "no merged report.json or report.html"

run powercut check "$tmp/run/app.log" --model write --json "$tmp/full.json" -q
assert_eq "$rc" 1 "unsharded check: exit status (stderr: $err)"
same_findings report.json "$tmp/full.json" || fail "the merged shards differ from the unsharded check"
# the recipe removed what it copied to the hosts
assert_eq "$(ls /tmp | grep -c '^powercut-[0-9]*-[0-9]*-[0-9]' || true)" 0 "files left on the hosts"

# The exploration recipe: the O_DIRECT appends to d0/f0 of --seq 1 on ext4, a shard
# on each host, merged: the workloads and outcomes of the whole.
SSH="ssh -F $ssh_config" SCP="scp -F $ssh_config" POWERCUT_REMOTE=$POWERCUT \
  run "$top_srcdir/contrib/parallel-ssh-explore.sh" "$tmp/run/x" h0 h1 h2 -- \
      --seq 1 --only "dwrite.append d0/f0" --config ext4 --jobs 1
assert_eq "$rc" 0 "parallel-ssh-explore.sh: exit status (out: $out; stderr: $err)"
assert_eq "$(ls -d x.shard-* | tr '\n' ' ')" "x.shard-0 x.shard-1 x.shard-2 " "exploration shards"
run powercut explore --seq 1 --only "dwrite.append d0/f0" --config ext4 --out "$tmp/whole" --quiet
assert_eq "$rc" 0 "unsharded explore: exit status (stderr: $err)"
assert_eq "$(outcomes x/explore.json)" "$(outcomes "$tmp/whole/explore.json")" "merged exploration"
assert_eq "$(outcomes "$tmp/whole/explore.json" | wc -l)" 6 "workloads explored"
assert_eq "$(ls /tmp | grep -c '^powercut-[0-9]*-[0-9]*-[0-9]' || true)" 0 "directories left on the hosts"

cd "$tmp"
stop_sshd
assert_eq "$(pgrep -f -- "$tmp" | wc -l)" 0 "processes left running with $tmp in their command line"
