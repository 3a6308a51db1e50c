#!/usr/bin/env bash
# test-run-cleanup.sh: powercut run leaves no process, mount, loop device,
# FUSE mount or socket behind, whether it succeeds, the workload fails, the
# workload hangs past --timeout, or run is interrupted.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck

# run keeps its sockets and mount points under $TMPDIR: a private one, so
# that tests running at the same time do not show up here.
export TMPDIR=$tmp/rt
mkdir "$TMPDIR"
runtime_dirs () { ls -d "$TMPDIR"/powercut-run.* 2>/dev/null | sort || true; }
before=$(runtime_dirs)

loops () { losetup -n -O NAME 2>/dev/null | sort || true; }
loops_before=$(loops)

# what is left: mounts and loop devices of ours, loop devices new since
# the test began (one over an nbdfuse file that is gone names no folder),
# processes, runtime folders
leftovers ()
{
  local l
  l=$( (findmnt -rn -o TARGET,SOURCE | grep -F "$TMPDIR" || true
        losetup -a | grep -F "$TMPDIR" || true
        comm -13 <(echo "$loops_before") <(loops)
        ps -eo pid=,args= | grep -F -- "$tmp/" | grep -v -e grep -e "$0" || true
        comm -13 <(echo "$before") <(runtime_dirs) ) )
  echo "$l"
}

timeout "$T" "$POWERCUT" run --quiet --workload append --files 5 --out "$tmp/ok" \
  >"$tmp/ok.out" 2>&1 &
ok_pid=$!
wait_until 30 test -e "$tmp/ok/.lock"
run powercut run --quiet --workload append --files 5 --out "$tmp/ok"
# a second run into the same directory at the same time is refused, not mixed in
assert_eq "$rc" 2 "second run into the same --out"
assert_match "$err" 'another run is writing there' "second run's message"
run powercut run --quiet --workload append --files 5 --out "$tmp/ok2"
# one into another directory runs beside it
assert_eq "$rc" 0 "a run beside another ($err)"
rc=0; wait "$ok_pid" || rc=$?
# a run that succeeds
assert_eq "$rc" 0 "successful run ($(cat "$tmp/ok.out"))"
assert_eq "$(leftovers)" "" "left behind after success"

cat >"$tmp/fails.sh" <<'SH'
#!/bin/sh
echo data > "$POWERCUT_MNT/x"
powercut mark one --manifest "$POWERCUT_MNT" --sync
exit 3
SH
chmod +x "$tmp/fails.sh"
run powercut run --settle 0 --quiet --out "$tmp/fails" -- "$tmp/fails.sh"
# a workload that fails: exit 2, one line naming it
assert_eq "$rc" 2 "failing workload exit status"
assert_match "$err" 'the workload failed \(exit status 3\)' "failing workload message"
assert_eq "$(leftovers)" "" "left behind after a failing workload"

run powercut run --settle 0 --quiet --timeout 2 --out "$tmp/hangs" -- sleep 600
# a workload that hangs is killed at --timeout
assert_eq "$rc" 2 "hanging workload exit status"
assert_match "$err" 'did not finish within 2 s' "timeout message"
assert_eq "$(leftovers)" "" "left behind after a time-out"

# interrupted while the workload runs
timeout "$T" "$POWERCUT" run --settle 0 --quiet --out "$tmp/int" -- sleep 600 >"$tmp/int.out" 2>&1 &
pid=$!
wait_until 30 test -e "$tmp/int/workload.txt"
sleep 1
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
# SIGINT: exit 2 after tearing down
assert_eq "$rc" 2 "interrupted run exit status ($(cat "$tmp/int.out"))"
assert_eq "$(leftovers)" "" "left behind after SIGINT"

# Interrupted while mount(8) runs, once it has done its work (a slow one,
# under load): run, and explore (its base image through mount -o loop),
# undo what it left.  (The loop device over nbdfuse's file run attaches
# itself, in one call: no losetup(8) to be interrupted in.)  In front of
# the real one: a mount that does its work, then, while $tmp/slow-mount
# is there, says so and waits.
mkdir "$tmp/bin"
for cmd in mount; do
  cat >"$tmp/bin/$cmd" <<SH
#!/bin/sh
PATH=\${PATH#$tmp/bin:}
$cmd "\$@" || exit
[ ! -e "$tmp/slow-$cmd" ] || { touch "$tmp/done-$cmd"; exec sleep 600; }
SH
  chmod +x "$tmp/bin/$cmd"
done
for cmd in mount; do
  for what in run explore; do
    rm -f "$tmp/done-$cmd"
    touch "$tmp/slow-$cmd"
    if [ $what = run ]; then
      PATH=$tmp/bin:$PATH timeout "$T" "$POWERCUT" run --settle 0 --quiet --out "$tmp/int-$cmd" -- true \
        >"$tmp/int.out" 2>&1 &
    else
      PATH=$tmp/bin:$PATH timeout "$T" "$POWERCUT" explore --seq 1 --only 'write.append f0' \
        --config ext4 --out "$tmp/intx-$cmd" --quiet >"$tmp/int.out" 2>&1 &
    fi
    pid=$!
    wait_until 30 test -e "$tmp/done-$cmd"
    rm "$tmp/slow-$cmd"
    kill -INT "$pid"
    rc=0; wait "$pid" || rc=$?
    assert_eq "$rc" 2 "$what interrupted in $cmd: exit status ($(cat "$tmp/int.out"))"
    assert_match "$(cat "$tmp/int.out")" "interrupted" "$what interrupted in $cmd says so"
    assert_eq "$(leftovers)" "" "left behind by $what interrupted in $cmd"
    assert_eq "$(findmnt -rn -o TARGET | grep -F "$tmp/" || true)" "" "mounted after $what in $cmd"
  done
done

# A workload that leaves a daemon (setsid) running: traced or not, the run
# says so, kills it, detaches everything and reports no verdict.
cat >"$tmp/daemon.sh" <<SH
#!/bin/sh
echo data > "\$POWERCUT_MNT/x"
setsid sh -c 'while :; do echo more >> "\$POWERCUT_MNT/x"; sleep 1; done # $tmp/' \
  </dev/null >/dev/null 2>&1 &
echo started
SH
chmod +x "$tmp/daemon.sh"
for how in --no-trace --trace; do
  start=$(date +%s)
  run powercut run --settle 0 --quiet $how --timeout 120 --out "$tmp/daemon$how" -- "$tmp/daemon.sh"
  assert_eq "$rc" 2 "a daemon left running ($how): exit status ($out)"
  assert_match "$err" "left ([0-9]+ process(es)?|processes) running when it ended" "says so ($how)"
  assert_no_match "$out" "no problem found" "no verdict ($how)"
  [ $(( $(date +%s) - start )) -lt 100 ] || fail "waited for the timeout ($how)"
  [ ! -e "$tmp/daemon$how/report.txt" ] || fail "a report despite the daemon ($how)"
  assert_eq "$(leftovers)" "" "left behind after a daemon ($how)"
done
assert_match "$(cat "$tmp/daemon--trace/workload.txt")" "left processes running when it ended: [0-9]+ \([^)]+\)" \
  "the traced run names the process"

# A rerun into the --out of an earlier run that fails leaves no report of
# the earlier one, at the top or in a configuration's folder.
run powercut run --quiet --workload append --files 5 --fs ext4 --fs ext3 --out "$tmp/again"
assert_eq "$rc" 0 "a first run ($err)"
[ -e "$tmp/again/report.json" ] && [ -e "$tmp/again/1-ext4/report.json" ] || fail "no reports"
run powercut run --settle 0 --quiet --fs ext4 --fs ext3 --out "$tmp/again" -- "$tmp/fails.sh"
assert_eq "$rc" 2 "a rerun that fails"
assert_eq "$(ls "$tmp/again"/*/report.* 2>/dev/null)" "" "no earlier configuration's report left"
# the comparison at the top is this run's: it says what failed
assert_match "$(cat "$tmp/again/report.txt")" "error: the workload failed \(exit status 3\)" "the top report is this run's"
assert_no_match "$(cat "$tmp/again/report.txt")" "append" "nothing of the earlier run in it"
