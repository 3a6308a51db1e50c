#!/usr/bin/env bash
# test-known-bugs.sh: two of contrib/known-bugs (ext4 bugs found by
# CrashMonkey and xfstests, fixed long before this machine's kernel) run
# with their runner on this kernel: each passes.  The O_SYNC direct write's
# data zeroed in its log (the bug's effect, made by hand): the check
# reports a broken promise and names the pwrite that made it.  And a
# fast_commit filesystem, whose journal only the kernel replays as a
# reboot would: no state is called corrupt or unmountable on e2fsck's
# replay; those states are not judged, and say why.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck xfs_io
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
kb=$top_srcdir/contrib/known-bugs
export POWERCUT

run "$kb/run.sh" "$tmp/kb" "$kb/dio-osync-size.sh" "$kb/fdatasync-extent-ops.sh"
assert_eq "$rc" 0 "known bugs on this kernel ($out $err)"
assert_match "$out" 'dio-osync-size +passes +[1-9]' "dio-osync-size passes"
assert_match "$out" 'fdatasync-extent-ops +passes +[1-9]' "fdatasync-extent-ops passes"

# the bug's effect by hand: the 1 MiB written O_DIRECT|O_SYNC (0x5a, "Z")
# gone from the log
log=$tmp/kb/dio-osync-size/powercut.log
n=$("$top_builddir/tests/log-edit" "$log" zero-data ZZZZZZZZZZZZZZZZ) || fail "the synced data is not in the log"
[ "$n" -gt 0 ] || fail "nothing zeroed"
run powercut check "$log" --json "$tmp/zeroed.json"
assert_eq "$rc" 1 "zeroed: problems found ($err)"
assert_eq "$(json "$tmp/zeroed.json" 'r["totals"]["promises"] > 0')" True "zeroed: a broken promise"
assert_eq "$(json "$tmp/zeroed.json" 'any((f["cause"].get("durable_by") or "").startswith("pwrite64(") for p in r["points"] for f in p["findings"] if f.get("promise"))')" True \
  "zeroed: the promise is the pwrite's"

# fast commits: not judged on e2fsck's replay
run "$kb/run.sh" "$tmp/fc" "$kb/fast-commit-zero-range.sh"
assert_eq "$rc" 2 "fast_commit: some states not judged ($out $err)"
r=$tmp/fc/fast-commit-zero-range/report.json
assert_eq "$(json "$r" 'r["totals"]["fs-corrupt"] + r["totals"]["unmountable"]')" 0 "fast_commit: nothing called corrupt"
assert_eq "$(json "$r" 'r["totals"]["not-checked"] > 0')" True "fast_commit: states not judged"
assert_match "$(cat "$tmp/fc/fast-commit-zero-range/report.txt")" 'only the kernel replays them' "fast_commit: why"
