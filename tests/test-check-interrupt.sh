#!/usr/bin/env bash
# test-check-interrupt.sh: a check stopped by SIGTERM, or by SIGINT to its process group (Ctrl-C), exits without a verdict, leaves no worker running and nothing in its scratch directory.
. "$top_srcdir/tests/functions.sh"
requires mkfs.ext4 qemu-io

# A log with many torn states (a check of some seconds, even on a fast
# machine): 64 KiB writes to free space of an ext4 base.
truncate -s 128M "$tmp/base.img"
run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$tmp/base.img"
# mkfs.ext4 makes the base filesystem
assert_eq "$rc" 0 "mkfs.ext4: exit status (stderr: $err)"
start_recorder --base "$tmp/base.img"
run powercut mark --control "$ctl" start
# the first mark
assert_eq "$rc" 0 "powercut mark start: exit status (stderr: $err)"
cmds=()
for i in $(seq 0 63); do cmds+=(-c "write -P $(( i + 1 )) $(( 40 + i ))M 64k"); done
run qemu-io -t none -f raw "$uri" "${cmds[@]}" -c flush
# qemu-io's writes succeed
assert_eq "$rc" 0 "qemu-io: exit status (stdout: $out; stderr: $err)"
stop_recorder

check_pid=
# kill_check: cleanup hook; ends what is left of the check's process group
# (its id is the check's, saved when it started).
kill_check () { [ -z "$check_pid" ] || kill -KILL -- "-$check_pid" 2>/dev/null; return 0; }
cleanup_fn kill_check
# children PID: the ids of PID's child processes, from /proc.
children ()
{
  local f line
  for f in /proc/[0-9]*/stat; do
    line=$(cat "$f" 2>/dev/null) || continue
    line=${line##*) }             # after the command name: state, ppid, ...
    line=${line#* }
    if [ "${line%% *}" = "$1" ]; then f=${f#/proc/}; echo "${f%/stat}"; fi
  done
}
# cmdlines PID...: the command lines of the processes still there.
cmdlines () { local p; for p in "$@"; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null && echo "(pid $p);"; done; }
workers=
workers_gone () { local p; for p in $workers; do alive "$p" && return 1; done; return 0; }
kill_workers () { local p; for p in $workers; do kill -KILL "$p" 2>/dev/null; done; return 0; }
cleanup_fn kill_workers
# started: the check has begun checking (a worker's image is there)
started () { compgen -G "$scratch/powercut-check.*/state-*.img" >/dev/null; }
check_gone () { ! alive "$check_pid"; }

# interrupt HOW: starts a long check (torn:8, 2 jobs), lets it begin,
# interrupts it (HOW: "TERM" to the check alone, "INT-group" to its whole
# process group as Ctrl-C does), and checks that it stops cleanly.
interrupt ()
{
  local st=0 i
  scratch=$tmp/scratch-$1
  mkdir "$scratch"
  # Job control on: the check gets its own process group (its id is the
  # check's) and does not ignore SIGINT, as from an interactive shell.
  set -m
  TMPDIR=$scratch $POWERCUT_WRAPPER "$POWERCUT" check "$log" --base "$tmp/base.img" \
      -m torn:8 --jobs 2 -q >"$tmp/check-$1.out" 2>"$tmp/check-$1.err" &
  check_pid=$!
  set +m
  wait_until "$T" started
  workers=$(children "$check_pid" | tr '\n' ' ')
  # the check runs its workers
  assert_match "$workers" '[0-9]' "workers of the check"
  case $1 in
    TERM) kill -TERM "$check_pid" ;;
    INT-group) kill -INT -- "-$check_pid" ;;
  esac
  wait_until 30 check_gone
  wait "$check_pid" || st=$?
  check_pid=
  # an interrupted check gives no verdict: not 0 (all survived) nor 1 (problems found)
  assert_ge "$st" 2 "exit status of the check after SIG$1 (stderr: $(cat "$tmp/check-$1.err"))"
  for (( i = 0; i < 50; i++ )); do workers_gone && break; sleep 0.1; done
  # its workers are gone with it
  workers_gone || fail "after SIG$1, workers of the check still run 5 s later: $(cmdlines $workers)"
  # and nothing is left in its scratch directory
  assert_eq "$(cd "$scratch" && find . -mindepth 1 | sort | tr '\n' ' ')" "" "left in the scratch directory after SIG$1"
}
interrupt TERM
interrupt INT-group
