#!/usr/bin/env bash
# test-run-traced.sh: powercut run traces a command by default: its calls
# about the recorded filesystem are in the log, their paths given from
# the filesystem's root whatever directory run mounted it on; --no-trace
# leaves them out, and --trace traces a built-in workload too.
. "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3

cat >"$tmp/w.sh" <<'SH'
#!/bin/sh
set -e
cd "$POWERCUT_MNT"
mkdir d
echo v1 >d/a
sync
powercut mark v1 --manifest "$POWERCUT_MNT" --sync
echo v2 >d/a.tmp
mv d/a.tmp d/a
SH
chmod +x "$tmp/w.sh"

run powercut run --settle 0 --quiet --out "$tmp/t" -- "$tmp/w.sh"
assert_eq "$rc" 0 "traced run ($out $err)"
dump_log "$tmp/t/powercut.log"
# the calls are there, named from the filesystem's root
assert_match "$dump" ' event entry pid=[0-9]+ tid=[0-9]+ mkdir(at)?\(.* path=/d$' "mkdir event"
assert_match "$dump" ' event exit .* rename(at2?)?\(.* = 0 path=/d/a\.tmp path2=/d/a$' "rename event"
assert_match "$dump" ' event entry .* sync\(\)' "sync event"
# nothing about files elsewhere (the script itself, the terminal)
assert_no_match "$dump" "path=$tmp" "events about files outside the filesystem"
# and the check reads the log as ever
assert_match "$(cat "$tmp/t/report.txt")" 'no problem found' "report of a traced run"

run powercut run --settle 0 --quiet --no-trace --out "$tmp/n" -- "$tmp/w.sh"
assert_eq "$rc" 0 "untraced run ($out $err)"
read_log "$tmp/n/powercut.log"
assert_eq "$(count event)" none "events with --no-trace"

# (--fail-on promises: the workload syncs its new files with syncfs and
# renames over them without fsync; on ext4's default dioread_nolock a
# file's size can be committed a transaction before its extents are
# converted, and a crash point between reads the file as zeros: an
# exposure of data not yet synced, found in some runs and not others, and
# no broken promise)
run powercut run --quiet --trace --fail-on promises --workload replace-rename --files 3 --out "$tmp/b"
assert_eq "$rc" 0 "traced built-in workload ($out $err)"
read_log "$tmp/b/powercut.log"
assert_ge "$(count event)" 20 "events of a traced built-in workload"
# the workload still places its marks and tells what it does
assert_match "$(field marks)" '^[4-9]' "marks of the traced built-in workload"
assert_match "$(cat "$tmp/b/workload.txt")" 'mark v2' "workload.txt"

# the traced workload shares the tracer's CPU, unless --all-cpus; the
# tracer's summary ends workload.txt
if [ "$(nproc)" -gt 1 ]; then
  run powercut run --settle 0 --quiet --out "$tmp/p" -- sh -c 'grep Cpus_allowed_list /proc/self/status'
  assert_eq "$rc" 0 "pinned run ($out $err)"
  assert_match "$(cat "$tmp/p/workload.txt")" 'Cpus_allowed_list:[[:space:]]+[0-9]+$' "one CPU"
  assert_match "$(cat "$tmp/p/workload.txt")" "traced: [0-9]+ events logged \([0-9]+ acknowledgements\), .*the tracer's peak memory [0-9]+ KiB" \
    "the tracer's summary"
  run powercut run --settle 0 --quiet --all-cpus --out "$tmp/a" -- sh -c 'grep Cpus_allowed_list /proc/self/status'
  assert_eq "$rc" 0 "--all-cpus run ($out $err)"
  assert_match "$(cat "$tmp/a/workload.txt")" 'Cpus_allowed_list:[[:space:]]+[0-9]+[-,]' "every CPU"
fi
