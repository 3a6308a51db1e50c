# functions.sh: helpers shared by the shell tests (sourced by tests/test-*.sh).
#
# make check exports top_srcdir, top_builddir and POWERCUT (the built
# program); $POWERCUT_WRAPPER (e.g. "valgrind --error-exitcode=99") prefixes
# every run of it.  A test sources this file, declares what it needs with
# requires, works in its own temporary directory $tmp, bounds every command
# with a timeout ($T), and registers what must be undone with
# cleanup_fn: the hooks run in reverse order on any exit, failure included.
# Exit status 77 means skipped (a tool that cannot be installed here).

# The tests use bash (arrays); make check runs them with $(SHELL).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi

set -e
set -u
set -o pipefail
# A command that stops a test through set -e says which it was.
trap 'echo "$0: line $LINENO: exit status $? of: $BASH_COMMAND" >&2' ERR

: "${top_srcdir:=$(dirname "${BASH_SOURCE[0]}")/..}"
: "${top_builddir:=$top_srcdir}"
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
: "${POWERCUT:=$top_builddir/powercut}"
: "${POWERCUT_WRAPPER:=}"
export top_srcdir top_builddir POWERCUT
export LC_ALL=C
unset POWERCUT_CONTROL

test_name=$(basename "$0" .sh)

# $T: the timeout of one command, in seconds ($POWERCUT_TEST_TIMEOUT), 10
# times longer under a wrapper: valgrind makes the program ~30x slower.
T=${POWERCUT_TEST_TIMEOUT:-60}
[ -z "$POWERCUT_WRAPPER" ] || T=$(( T * 10 ))

# -------------------------------------------------------------------------
# Cleanup

_cleanup_hooks=()

# cleanup_fn CMD [ARG]...: run CMD ARG... when the test exits, however it
# exits; hooks run last registered first, so register in setup order.
cleanup_fn ()
{
  _cleanup_hooks+=("$(printf '%q ' "$@")")
}

_run_cleanup_hooks ()
{
  local status=$? i
  set +e
  trap '' INT TERM QUIT
  for (( i = ${#_cleanup_hooks[@]} - 1; i >= 0; i-- )); do
    eval "${_cleanup_hooks[i]}"
  done
  exit "$status"
}
trap _run_cleanup_hooks EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 131' QUIT

# -------------------------------------------------------------------------
# Skipping and failing

# requires CMD...: skip the test (exit 77) unless every CMD is installed.
requires ()
{
  local c
  for c in "$@"; do
    if ! command -v "$c" >/dev/null 2>&1; then
      echo "$0: test skipped: '$c' is not installed"
      exit 77
    fi
  done
}

# requires_root: skip the test unless it runs as root (mounts, loop devices).
#
# Tests run side by side (make check -jN).  One that needs root holds the
# suite's lock alone: besides the host's loop devices and writeback knobs,
# a sync(2) of one (a bare `sync` in a scenario, os.sync()) writes back
# what another leaves dirty on purpose, and the loss it looks for is gone.
# One whose work is all in qemu guests (no loop device, mount, knob or
# sync of this machine) sets test_parallel=yes before sourcing this file
# and takes no lock, as tests without root take none, but for one that
# takes both CPUs a while (runs_alone).
requires_root ()
{
  if [ "$(id -u)" != 0 ]; then
    echo "$0: test skipped: needs root"
    exit 77
  fi
  [ "${test_parallel:-}" = yes ] || runs_alone
}
runs_alone () { _suite_lock -x; _alone=yes; }
_alone=no
# host_done: the test is done with what the lock guards (this machine's
# mounts, loop devices, writeback knobs, sync): what it left there fails
# it now, and the lock goes to the next test while this one goes on with
# work of its own (checking and comparing what it recorded, by libext2fs
# or in its own processes, never a mount or a sync of this machine).
host_done ()
{
  local i left
  [ "$_alone" = yes ] || return 0
  for (( i = 0; i < 50; i++ )); do
    left=$(_left_here)
    [ -n "$left" ] || break
    sleep 0.1
  done
  [ -z "$left" ] || fail "left behind before the lock went:
$left"
  exec 8>&-
  _alone=no
}
_suite_lock ()
{
  local t0=$SECONDS
  exec 8>>"$top_builddir/tests/.lock"
  flock "$1" 8
  # the time spent waiting, which tests/timed.sh takes from the test's time
  [ -z "${PC_LOCK_WAITED:-}" ] || echo "$((SECONDS - t0))" >"$PC_LOCK_WAITED"
  # what the test found on the host is what it may leave: taken once it
  # holds the lock
  _loops_before=$(_loops)
}

# fail MESSAGE...: report a failed check and end the test.
fail ()
{
  echo "FAIL: $test_name: $*" >&2
  exit 1
}

# Assertions: each names what it checks and prints the value it saw.
# assert_eq ACTUAL EXPECTED WHAT
assert_eq ()
{
  [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

# assert_ne ACTUAL UNEXPECTED WHAT
assert_ne ()
{
  [ "$1" != "$2" ] || fail "$3: got '$1'"
}

# assert_ge ACTUAL MIN WHAT (integers)
assert_ge ()
{
  [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] || fail "$3: expected >= $2, got '$1'"
}

# assert_match TEXT ERE WHAT: TEXT (a line or several) has a line matching ERE.
assert_match ()
{
  grep -qE -- "$2" <<<"$1" || fail "$3: nothing matches /$2/ in:
$1"
}

# assert_no_match TEXT ERE WHAT
assert_no_match ()
{
  ! grep -qE -- "$2" <<<"$1" || fail "$3: /$2/ matches in:
$1"
}

# -------------------------------------------------------------------------
# Running things

# The program under test, behind $POWERCUT_WRAPPER, bounded in time.
powercut ()
{
  timeout "$T" $POWERCUT_WRAPPER "$POWERCUT" "$@"
}

# run CMD [ARG]...: runs CMD (a command or a function), bounded in time;
# leaves its stdout in $out, its stderr in $err and its exit status in $rc.
# Never fails itself.
run ()
{
  rc=0
  if [ "$(type -t "$1")" = function ]; then
    "$@" >"$tmp/.run.out" 2>"$tmp/.run.err" || rc=$?
  else
    timeout "$T" "$@" >"$tmp/.run.out" 2>"$tmp/.run.err" || rc=$?
  fi
  out=$(cat "$tmp/.run.out")
  err=$(cat "$tmp/.run.err")
}

# alive PID: the process exists and is not a zombie.
alive ()
{
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# is_mounted DIR: something is mounted on DIR (also a dead FUSE mount,
# on which mountpoint(1) fails: stat gives ENOTCONN).
is_mounted ()
{
  awk -v d="$1" '$2 == d { found = 1 } END { exit !found }' /proc/self/mounts
}

# wait_until SECONDS CMD [ARG]...: polls CMD until it succeeds; fails the
# test after SECONDS.
wait_until ()
{
  local limit=$(( $1 * 10 )) i=0
  shift
  until "$@"; do
    i=$(( i + 1 ))
    [ "$i" -lt "$limit" ] || fail "still not true after $(( limit / 10 )) s: $*"
    sleep 0.1
  done
}

# Every test has its own temporary directory (short: Unix socket paths are
# limited to 107 bytes).  --one-file-system: a mount left inside it by a
# failed cleanup is never emptied.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pc-$test_name.XXXXXX")
cleanup_fn rm -rf --one-file-system "$tmp"
# The host is left as found: a filesystem still mounted in $tmp, or a
# loop device over a file in it or (in a test that runs alone) over a file
# that is gone (an nbdfuse's, once it exited) attached since the test
# began, once the test's own hooks have run, fails the test (and is undone,
# so that the next test starts clean).  A loop device may let go of its
# file a moment after its last user.
_loops () { losetup -n -O NAME,BACK-FILE 2>/dev/null | sort || true; }
_left_loops ()
{
  local dev back
  comm -13 <(echo "$_loops_before") <(_loops) | while read -r dev back; do
    case $back in
      "$tmp"/*) echo "$dev" ;;
      # one whose file is gone is ours only if no other root test runs
      *) [ "$_alone" = no ] || [ -e "${back% (deleted)}" ] || echo "$dev" ;;
    esac
  done
}
_left_here ()
{
  findmnt -rn -o TARGET | grep -F "$tmp/" | sed 's/^/mounted: /' || true
  _left_loops | sed 's/^/loop device: /'
}
_check_left ()
{
  local left i m l
  for (( i = 0; i < 50; i++ )); do
    left=$(_left_here)
    [ -n "$left" ] || return 0
    sleep 0.1
  done
  echo "FAIL: $test_name: left behind:" >&2
  echo "$left" >&2
  status=1        # _run_cleanup_hooks's exit status
  findmnt -rn -o TARGET | grep -F "$tmp/" | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  _left_loops | while read -r l; do losetup -d "$l" 2>/dev/null || true; done
}
if [ "$(id -u)" = 0 ]; then
  _loops_before=$(_loops)
  cleanup_fn _check_left
fi
# powercut run keeps the record of the writeback knobs runs set (and
# whose values it puts back) under $POWERCUT_RUN_DIR, else /run/powercut:
# the test's own, so that no test leaves anything in /run.
export POWERCUT_RUN_DIR=$tmp/run
# Sanitizer reports (a build with --enable-asan/--enable-ubsan) go to files
# there: the recorder's stderr is closed once it runs in the background.
# Any report fails the test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$tmp/sanitizer"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:log_path=$tmp/sanitizer"
_check_sanitizers ()
{
  local f
  for f in "$tmp"/sanitizer.*; do
    [ -e "$f" ] || continue
    echo "FAIL: $test_name: sanitizer report $f:" >&2
    cat "$f" >&2
    status=1        # _run_cleanup_hooks's exit status
  done
}
cleanup_fn _check_sanitizers
# Work there, so that no tool leaves files in the build tree.
case $POWERCUT in /*) ;; *) POWERCUT=$PWD/$POWERCUT ;; esac
cd "$tmp"
out= err= rc=0

# -------------------------------------------------------------------------
# The recorder

recorder_pid=
recorder_job=

# start_recorder ARG...: starts "powercut record" with the NBD socket $sock,
# the control socket $ctl and the log $log (set log= first to choose it),
# plus ARG... (--size or --base at least), and returns once it listens.
# $uri is the NBD URI, $recorder_pid its process id (from --pidfile).  On
# exit cleanup stops it (SIGTERM, then SIGKILL) by that saved id.
start_recorder ()
{
  sock=$tmp/nbd.sock
  ctl=$tmp/ctl.sock
  pidfile=$tmp/recorder.pid
  log=${log:-$tmp/log}
  uri="nbd+unix:///?socket=$sock"
  rm -f "$pidfile"
  cleanup_fn kill_recorder
  if [ -z "$POWERCUT_WRAPPER" ]; then
    # Background mode: the command returns once the server listens.
    powercut record --log "$log" --socket "$sock" --control "$ctl" \
             --pidfile "$pidfile" "$@" ||
      fail "powercut record $*: exit status $?"
  else
    # Under a wrapper (valgrind) the server stays our child, so that its
    # report reaches stderr and its exit status is checked on stop.
    $POWERCUT_WRAPPER "$POWERCUT" record --log "$log" --socket "$sock" \
        --control "$ctl" --pidfile "$pidfile" --foreground "$@" &
    recorder_job=$!
    wait_until "$T" _recorder_ready
  fi
  recorder_pid=$(cat "$pidfile")
  [[ "$recorder_pid" =~ ^[0-9]+$ ]] || fail "pidfile $pidfile: '$recorder_pid'"
}

_recorder_ready ()
{
  [ -s "$pidfile" ] && [ -S "$sock" ] && return 0
  [ -n "$recorder_job" ] && ! alive "$recorder_job" &&
    fail "powercut record exited before listening"
  return 1
}

_recorder_gone ()
{
  ! alive "$recorder_pid"
}

# wait_recorder_exit: waits (bounded) until the recorder has exited; under
# a wrapper, fails if the wrapper reports an error (exit status 99).
wait_recorder_exit ()
{
  local st=0
  wait_until "$T" _recorder_gone
  if [ -n "$recorder_job" ]; then
    wait "$recorder_job" || st=$?
    recorder_job=
    [ "$st" -ne 99 ] || fail "$POWERCUT_WRAPPER reported errors in the recorder"
  fi
}

# stop_recorder: "powercut stop" must succeed and the recorder exit.
stop_recorder ()
{
  run powercut stop --control "$ctl"
  # powercut stop ends the recording
  assert_eq "$rc" 0 "powercut stop: exit status (stderr: $err)"
  wait_recorder_exit
}

# kill_recorder: cleanup hook; stops a recorder that is still running.
kill_recorder ()
{
  local i
  [ -n "$recorder_pid" ] && alive "$recorder_pid" || return 0
  kill -TERM "$recorder_pid" 2>/dev/null
  for (( i = 0; i < 50; i++ )); do
    alive "$recorder_pid" || break
    sleep 0.1
  done
  alive "$recorder_pid" && kill -KILL "$recorder_pid" 2>/dev/null
  [ -z "$recorder_job" ] || wait "$recorder_job" 2>/dev/null
  return 0
}

# -------------------------------------------------------------------------
# Reading logs

# read_log [FILE]: "powercut log FILE" (default $log) into $summary, with
# its exit status in $log_rc and its stderr in $log_err.
read_log ()
{
  run powercut log "${1:-$log}"
  summary=$out log_rc=$rc log_err=$err
}

# dump_log [FILE]: "powercut log --dump FILE" into $dump, exit status $dump_rc.
dump_log ()
{
  run powercut log --dump "${1:-$log}"
  dump=$out dump_rc=$rc
}

# count TYPE: the number of TYPE records in $summary (write, trim, ...).
count ()
{
  awk -v t="$1" '/^  [a-z]/ && $1 == t { print $2; n = 1 } END { if (!n) print "none" }' <<<"$summary"
}

# field NAME: the value of the "NAME:" line of $summary (connections, end...).
field ()
{
  sed -n "s/^$1: *//p" <<<"$summary"
}

# dump_types: the record types of $dump, one line, in order.
dump_types ()
{
  awk '!/^#/ { printf "%s%s", sep, $4; sep = " " } END { print "" }' <<<"$dump"
}

# same_findings A B: do JSON reports A and B have the same totals (but the
# distinct images each shard counts), the same durability windows and,
# point by point, the same id, verdict and findings?
same_findings ()
{
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
strip = lambda t: {k: v for k, v in t.items() if k != "unique"}
sys.exit(0 if strip(a["totals"]) == strip(b["totals"]) and
         a.get("windows") == b.get("windows") and
         [(p["id"], p["verdict"], p["findings"]) for p in a["points"]] ==
         [(p["id"], p["verdict"], p["findings"]) for p in b["points"]] else 1)
PY
}

# -------------------------------------------------------------------------
# ext4 through the kernel: nbdfuse, a loop device, mkfs, mount

mnt= loop= nbdfuse_pid=

_stop_nbdfuse ()
{
  local i
  for (( i = 0; i < 50; i++ )); do
    mountpoint -q "$tmp/fuse" || break
    fusermount3 -u "$tmp/fuse" 2>/dev/null && break
    sleep 0.1
  done
  # Unmounted, nbdfuse exits by itself; it is killed only if it does not.
  for (( i = 0; i < 50; i++ )); do
    [ -n "$nbdfuse_pid" ] && alive "$nbdfuse_pid" || return 0
    sleep 0.1
  done
  kill "$nbdfuse_pid" 2>/dev/null || true
}
_detach_loop () { [ -z "$loop" ] || losetup -d "$loop"; loop=; }
_umount_mnt () { [ -z "$mnt" ] || ! mountpoint -q "$mnt" || timeout "$T" umount "$mnt" || umount -l "$mnt"; }
_nbdfuse_ready () { [ -s "$tmp/nbdfuse.pid" ] || { alive "$nbdfuse_pid" || fail "nbdfuse exited"; false; }; }

# mount_ext4 SIZE: starts a recorder of SIZE, attaches it as a loop device
# over nbdfuse (the kernel path of real-kernel-nbd.md), makes ext4 (4 KiB
# blocks, inode tables written now) and mounts it on $mnt, then places the
# durable mark "mkfs".  Exit cleanup undoes all of it.
mount_ext4 ()
{
  requires nbdfuse losetup mkfs.ext4 mount umount mountpoint fusermount3
  mnt=$tmp/mnt
  mkdir -p "$tmp/fuse" "$mnt"
  start_recorder --size "$1"
  cleanup_fn _stop_nbdfuse
  rm -f "$tmp/nbdfuse.pid"        # (left by an earlier mount_ext4)
  timeout "$T" nbdfuse -P "$tmp/nbdfuse.pid" "$tmp/fuse" --unix "$sock" &
  nbdfuse_pid=$!
  wait_until "$T" _nbdfuse_ready
  cleanup_fn _detach_loop
  loop=$(timeout "$T" losetup -f --show "$tmp/fuse/nbd")
  # losetup attached a loop device
  assert_match "$loop" '^/dev/loop[0-9]+$' "losetup -f --show"
  cleanup_fn _umount_mnt
  run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$loop"
  # mkfs.ext4 makes the filesystem
  assert_eq "$rc" 0 "mkfs.ext4: exit status (stderr: $err)"
  timeout "$T" mount "$loop" "$mnt"
  mountpoint -q "$mnt" || fail "$mnt is not mounted"
  run powercut mark --control "$ctl" mkfs --manifest "$mnt" --sync
  # the first mark goes in right after mkfs
  assert_eq "$rc" 0 "powercut mark mkfs: exit status (stderr: $err)"
}

# unmount_ext4: unmounts $mnt (if still mounted), detaches the loop device
# and stops nbdfuse, which must exit cleanly; the recorder keeps running.
unmount_ext4 ()
{
  local st=0
  ! mountpoint -q "$mnt" || timeout "$T" umount "$mnt"
  _detach_loop
  _stop_nbdfuse
  wait "$nbdfuse_pid" || st=$?
  nbdfuse_pid=
  # nbdfuse exits cleanly once unmounted
  assert_eq "$st" 0 "nbdfuse exit status"
}

# make_base_image: an ext4 image $tmp/base.img (64 MiB, 4 KiB blocks) to
# record from with --base; $blk is the block holding the root inode, whose
# contents are also saved in $tmp/root.blk.
make_base_image ()
{
  requires mkfs.ext4 debugfs
  truncate -s 64M "$tmp/base.img"
  run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$tmp/base.img"
  # mkfs.ext4 makes the base filesystem
  assert_eq "$rc" 0 "mkfs.ext4: exit status (stderr: $err)"
  run debugfs -R 'imap <2>' "$tmp/base.img"
  blk=$(sed -n 's/.*located at block \([0-9]*\),.*/\1/p' <<<"$out")
  # debugfs finds the root inode's block
  assert_match "$blk" '^[0-9]+$' "root inode block (debugfs: $out $err)"
  dd if="$tmp/base.img" of="$tmp/root.blk" bs=4096 skip="$blk" count=1 status=none
}

# outcomes FILE: "INDEX CONFIG OUTCOME" lines of an explore.json, sorted
outcomes () {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for w in r["workloads"]:
    for k, x in sorted(w["results"].items()):
        print(w["index"], k, x["outcome"])' "$1" | sort
}

# explore_errors DIR: why each workload of the exploration in DIR ended
# in error (its results.jsonl), for a failure's message
explore_errors () {
  python3 -c '
import json, sys
for line in open(sys.argv[1]):
    x = json.loads(line)
    if x.get("outcome") == "error":
        print("workload %s on %s: %s" % (x["index"], x["config"], x.get("why")))' "$1/results.jsonl" 2>&1 || true
}

# writes_over LOG BLOCK: "SEQ OFFSET" for each WRITE record of LOG that
# covers 4 KiB block BLOCK of the device (OFFSET: where it starts in the
# record's data), from the log file itself (powercut-log(5)).
writes_over ()
{
  python3 - "$1" "$2" <<'PY'
import struct, sys
data, at = open(sys.argv[1], "rb").read(), int(sys.argv[2]) * 4096
off = 256
while off + 56 <= len(data):
    typ, = struct.unpack_from("<H", data, off + 4)
    seq, offset, length, datalen = struct.unpack_from("<QQII", data, off + 8)
    if typ == 1 and offset <= at < offset + length:
        print(seq, at - offset)
    off += 56 + datalen
PY
}
