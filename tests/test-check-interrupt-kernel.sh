#!/usr/bin/env bash
# test-check-interrupt-kernel.sh: a check whose states the kernel judges
# (--judge kernel), and one that also records the kernel's recovery of
# each state (--recovery-crashes), stopped by SIGINT to its process group
# (Ctrl-C) or by SIGTERM: it exits without a verdict, and leaves nothing
# in its scratch directory (no state copy, mount point or recovery
# recording of a worker it killed), no mount and no loop device.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck nbdfuse losetup fusermount3

# a log with states that need recovery: files written and synced one by
# one, with 1 KiB blocks (a journal commit per sync)
run powercut run --settle 0 -q --mkfs-opts '-b 1024' -O "$tmp/out" -- \
  sh -c 'for i in $(seq 1 60); do echo "file $i" >f$i; sync f$i; done'
assert_eq "$rc" 0 "the recording ($err)"
log=$tmp/out/powercut.log

check_pid=
kill_check () { [ -z "$check_pid" ] || kill -KILL -- "-$check_pid" 2>/dev/null; return 0; }
cleanup_fn kill_check
check_gone () { ! alive "$check_pid"; }
mounts () { grep -c " $tmp/" /proc/mounts || true; }

# interrupt SIGNAL STARTED-GLOB OPTION...: a check with OPTIONs begins
# (a file of STARTED-GLOB is in its scratch), is sent SIGNAL (INT to its
# process group, or TERM to it), and stops cleanly
interrupt ()
{
  local sig=$1 glob=$2 st=0 i
  shift 2
  scratch=$tmp/scratch-$sig-$#
  rm -rf "$scratch" "$log.recovery"
  mkdir "$scratch"
  set -m
  TMPDIR=$scratch $POWERCUT_WRAPPER "$POWERCUT" check "$log" -m torn:4 --jobs 2 -q \
    --workdir "$scratch" "$@" >"$tmp/check.out" 2>"$tmp/check.err" &
  check_pid=$!
  set +m
  started () { compgen -G "$scratch/powercut-check.*/$glob" >/dev/null; }
  wait_until "$T" started
  case $sig in
    INT) kill -INT -- "-$check_pid" ;;
    TERM) kill -TERM "$check_pid" ;;
  esac
  wait_until 30 check_gone
  wait "$check_pid" || st=$?
  check_pid=
  assert_ge "$st" 2 "$* after SIG$sig: no verdict ($(cat "$tmp/check.err"))"
  for (( i = 0; i < 50; i++ )); do scratch_empty && break; sleep 0.2; done
  assert_eq "$(cd "$scratch" && find . -mindepth 1 | sort | tr '\n' ' ')" "" \
    "$* after SIG$sig: left in the scratch directory"
  assert_eq "$(mounts)" 0 "$* after SIG$sig: mounts left"
}
scratch_empty () { [ -z "$(ls -A "$scratch")" ]; }

interrupt INT 'state-*.img.kernel' --judge kernel
interrupt TERM 'state-*.img.kernel' --judge kernel
interrupt INT 'rbase-*.img' --recovery-crashes
interrupt TERM 'rdir-*' --recovery-crashes
