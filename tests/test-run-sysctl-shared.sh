#!/usr/bin/env bash
# test-run-sysctl-shared.sh: two powercut runs at once that set writeback
# knobs of this machine leave every vm.dirty_* knob as it was before
# either started.  Both set vm.dirty_expire_centisecs, to different values,
# and each sets one knob the other does not: the second waits, taking
# none of its knobs, for the first to finish, and says so; each knob gets
# the machine's own value back when its last holder is done with it.
# Then the first is killed (SIGKILL) while it holds its knobs: the second,
# waiting, finds it gone, puts back what it held, and takes its own.
# (With a save file per run, the second would save the first one's value
# as the original, and put that back last.)
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck findmnt

vm=/proc/sys/vm
record=$POWERCUT_RUN_DIR/sysctl/record

# Every vm.dirty_* knob, "PATH:VALUE" a line.
knobs () { grep . "$vm"/dirty_*; }
before=$(knobs)
knob () { cat "$vm/$1"; }
expire=$(knob dirty_expire_centisecs)
ratio=$(knob dirty_background_ratio)
wb=$(knob dirty_writeback_centisecs)
# Whatever happens, the machine's values are back at the end (those that
# differ: a *_bytes knob cannot be written 0, its *_ratio puts it back).
put_back ()
{
  local l
  while IFS= read -r l; do
    [ "$(cat "${l%%:*}")" = "${l#*:}" ] || echo "${l#*:}" >"${l%%:*}" 2>/dev/null || true
  done <<<"$before"
}
cleanup_fn put_back

# Each run has its own $TMPDIR (private directory, sockets, mount points),
# its own --out, and a command that writes a file, then waits for the file
# $GO (at most 60 s) to end.
declare -A pids=()
start_run ()
{
  local name=$1 cfg=$2
  mkdir -p "$tmp/rt-$name"
  TMPDIR=$tmp/rt-$name GO=$tmp/go-$name \
    "$POWERCUT" run --settle 0 --quiet --size 32M --timeout 120 --config "$cfg" --out "$tmp/$name" \
      -- sh -c 'echo data >f; i=0; while [ ! -e "$GO" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done' \
      >"$tmp/$name.out" 2>"$tmp/$name.err" &
  pids[$name]=$!
}

# finish_run NAME: lets its command end; the run must succeed (0, or 1 for
# problems found in the recording).
finish_run ()
{
  local rc=0
  touch "$tmp/go-$1"
  wait_until 120 run_gone "$1"
  wait "${pids[$1]}" || rc=$?
  pids[$1]=
  # run $1 ends well
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "run $1: exit status $rc ($(cat "$tmp/$1.err"))"
}
run_gone () { ! alive "${pids[$1]}"; }

# Cleanup: the runs still going, by their saved PIDs, then what a killed
# run left (its recording is not torn down): the command (told to end),
# the mount, the loop device or nbd client, the FUSE mount, the recorder.
stop_runs ()
{
  local n p i
  touch "$tmp"/go-A "$tmp"/go-B
  for n in "${!pids[@]}"; do
    p=${pids[$n]}
    [ -n "$p" ] && alive "$p" || continue
    kill -TERM "$p" 2>/dev/null
    for (( i = 0; i < 300; i++ )); do alive "$p" || break; sleep 0.1; done
    alive "$p" && kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  return 0
}
sweep ()
{
  local d src p i
  for d in "$tmp"/rt-*/powercut-run.*; do
    [ -d "$d" ] || continue
    touch "$tmp"/go-A "$tmp"/go-B
    if is_mounted "$d/mnt"; then
      src=$(findmnt -rn -o SOURCE --mountpoint "$d/mnt")
      for (( i = 0; i < 50; i++ )); do
        timeout "$T" umount "$d/mnt" 2>/dev/null && break
        sleep 0.1
      done
      ! is_mounted "$d/mnt" || umount -l "$d/mnt"
      case $src in
        # (gone already if it detached itself once unmounted)
        /dev/loop*) timeout "$T" losetup -d "$src" 2>/dev/null || true ;;
        /dev/nbd*) timeout "$T" nbd-client -d "$src" >/dev/null 2>&1 ;;
      esac
    fi
    for src in $(losetup -n -O NAME,BACK-FILE | awk -v f="$d/fuse/nbd" '$2 == f { print $1 }'); do
      timeout "$T" losetup -d "$src" 2>/dev/null || true
    done
    for (( i = 0; i < 50; i++ )); do
      is_mounted "$d/fuse" || break
      fusermount3 -u "$d/fuse" 2>/dev/null || sleep 0.1
    done
    [ -S "$d/control.sock" ] && timeout "$T" "$POWERCUT" stop --control "$d/control.sock" >/dev/null 2>&1
    p=$(cat "$d/record.pid" 2>/dev/null) || continue
    for (( i = 0; i < 50; i++ )); do alive "$p" || break; sleep 0.1; done
    alive "$p" && kill -KILL "$p"
  done
  return 0
}
cleanup_fn sweep
cleanup_fn stop_runs

leftovers ()
{
  (findmnt -rn -o TARGET | grep -F "$tmp/" || true
   losetup -a | grep -F "$tmp/" || true
   ps -eo pid=,args= | grep -F -- "$tmp/" | grep -v -e grep -e "$0" || true)
}
# holds VALUE NAME: expire is at VALUE (run NAME has it), NAME still runs.
holds ()
{
  [ "$(knob dirty_expire_centisecs)" = "$1" ] && return 0
  alive "${pids[$2]}" || fail "run $2 ended before expire was $1 ($(cat "$tmp/$2.err"))"
  false
}
# waits PID NAME: run NAME said it waits for the run PID.
waits ()
{
  grep -q "is held by another run (pid $1) with another value: waiting" "$tmp/$2.err" && return 0
  alive "${pids[$2]}" || fail "run $2 ended without waiting for pid $1 ($(cat "$tmp/$2.err"))"
  false
}

# A: expire and background_ratio; B: expire (another value) and writeback.
eA=$(( expire + 7 )) eB=$(( expire + 11 ))
rA=$(( ratio < 50 ? ratio + 1 : ratio - 1 )) wB=$(( wb + 13 ))
cfgA="ext4 vm.dirty_expire_centisecs=$eA vm.dirty_background_ratio=$rA"
cfgB="ext4 vm.dirty_expire_centisecs=$eB vm.dirty_writeback_centisecs=$wB"

# --- 1. both finish ---------------------------------------------------------
start_run A "$cfgA"
wait_until 60 holds "$eA" A
start_run B "$cfgB"
wait_until 60 waits "${pids[A]}" B
# B waits holding nothing: writeback is still the machine's
assert_eq "$(knob dirty_writeback_centisecs)" "$wb" "writeback while B waits"
assert_eq "$(knob dirty_background_ratio)" "$rA" "background_ratio while A runs"
assert_eq "$(knob dirty_expire_centisecs)" "$eA" "expire while B waits"
finish_run A
# A is done: B has expire at its value, A's background_ratio is back
wait_until 60 holds "$eB" B
assert_eq "$(knob dirty_background_ratio)" "$ratio" "background_ratio after A"
assert_eq "$(knob dirty_writeback_centisecs)" "$wB" "writeback while B runs"
# B said it waited once
assert_eq "$(grep -c 'waiting$' "$tmp/B.err")" 1 "B's waiting lines"
finish_run B
# every vm.dirty_* knob is back
assert_eq "$(knobs)" "$before" "the knobs after both runs"
[ ! -e "$record" ] || fail "the record is left behind: $(cat "$record")"
assert_eq "$(leftovers)" "" "left behind after both runs"

# --- 2. the holder is killed ------------------------------------------------
rm -rf "$tmp/A" "$tmp/B" "$tmp"/go-* "$tmp"/rt-*
start_run A "$cfgA"
wait_until 60 holds "$eA" A
start_run B "$cfgB"
wait_until 60 waits "${pids[A]}" B
kill -KILL "${pids[A]}"
# B finds A gone (a zombie until reaped here), puts back what A held, and
# takes its own
wait_until 60 holds "$eB" B
wait "${pids[A]}" 2>/dev/null || true
pids[A]=
assert_eq "$(knob dirty_background_ratio)" "$ratio" "background_ratio after A was killed"
assert_eq "$(knob dirty_writeback_centisecs)" "$wB" "writeback while B runs"
finish_run B
# every vm.dirty_* knob is back, with no third run
assert_eq "$(knobs)" "$before" "the knobs after the killed run and the other"
[ ! -e "$record" ] || fail "the record is left behind: $(cat "$record")"
# what the killed run left is only its own: swept, nothing else stays
sweep
assert_eq "$(leftovers)" "" "left behind after the killed run, swept"
