#!/usr/bin/env bash
# test-recipe-ssh.sh: contrib/parallel-ssh.sh with GNU parallel over ssh.
# The test starts an sshd of its own on a free loopback port with
# throwaway host and client keys; three host names reach it, and the
# recipe checks a recorded log in three shards on them and merges them:
# the same totals and findings as one unsharded check.  Nothing is left on
# the "hosts" or running afterwards.
source "$top_srcdir/tests/functions.sh"
requires_root
requires sshd ssh scp ssh-keygen parallel python3

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

cd "$tmp"
stop_sshd
assert_eq "$(pgrep -f -- "$tmp" | wc -l)" 0 "processes left running with $tmp in their command line"
