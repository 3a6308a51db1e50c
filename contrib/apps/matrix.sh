#!/bin/sh
# contrib/apps/matrix.sh: the crash-contract matrix.  Each application
# configuration (SQLite journal modes x synchronous levels, git with its
# default core.fsync and with core.fsync=all, GNU dbm in GDBM_SYNC mode) runs
# under powercut run on ext4 with the default options, noauto_da_alloc and
# data=writeback, with its checker as --verify (PostgreSQL, its data and
# its WAL on two disks: contrib/devices.sh and powercut check DIR; md
# RAID-1 over two disks in qemu guests: raid1/run.sh); the table says, per cell,
# what the application documents and what powercut observed at the crash
# points: consistent, acknowledged transactions lost (how many at most,
# at how many points), or corrupt.  Where the observation is worse than
# the documentation, the crash point and the command that rebuilds it are
# listed under the table.
#
# Usage (as root): contrib/apps/matrix.sh [OUTDIR] [-- powercut run options]
# (each application's run keeps powercut run's default settle after its
# workload, as a machine that runs on: "-- --settle 0" leaves it out)
# Environment: POWERCUT (default: powercut in PATH), SQLITE_TRANSACTIONS,
# GIT_COMMITS, MATRIX_APPS (default: all; e.g. "sqlite:wal:full git").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-matrix-out}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
powercut=${POWERCUT:-powercut}
apps=${MATRIX_APPS:-"sqlite:delete:off sqlite:delete:normal sqlite:delete:full sqlite:delete:extra
  sqlite:wal:off sqlite:wal:normal sqlite:wal:full git git:all gdbm lmdb postgres raid1"}
mkdir -p "$out"
for app in $apps; do
  dir=$out/$(echo "$app" | tr ':' '-')
  rm -rf "$dir"
  case $app in
  sqlite:*)
    mode=$(echo "$app" | cut -d: -f2) sync=$(echo "$app" | cut -d: -f3)
    echo "matrix: $app" >&2
    SQLITE_JOURNAL_MODE=$mode SQLITE_SYNCHRONOUS=$sync \
      "$powercut" run -q --out "$dir" -o '' -o noauto_da_alloc -o data=writeback \
        --verify "$here/sqlite/check.sh" "$@" -- "$here/sqlite/workload.sh" >/dev/null || true ;;
  git | git:*)
    echo "matrix: $app" >&2
    GIT_FSYNC=$(echo "$app" | cut -s -d: -f2) \
    "$powercut" run -q --out "$dir" -o '' -o noauto_da_alloc -o data=writeback \
      --verify "$here/git/check.sh" "$@" -- "$here/git/workload.sh" >/dev/null || true ;;
  gdbm | lmdb)
    echo "matrix: $app" >&2
    "$powercut" run -q --out "$dir" -o '' -o noauto_da_alloc -o data=writeback \
      --verify "$here/$app/check.sh" "$@" -- "$here/$app/workload.sh" >/dev/null || true ;;
  postgres)
    # two devices, one power cut: the data and pg_wal on disks of their own
    echo "matrix: $app" >&2
    i=0
    for opts in '' noauto_da_alloc data=writeback; do
      i=$((i + 1))
      d=$dir/$i-ext4${opts:+-$opts}
      mkdir -p "$d"
      DEVICES_MOUNT_OPTS=$opts POWERCUT=$(command -v "$powercut") \
        "$here/../devices.sh" "$d/set" data:256M wal:128M -- "$here/postgres/workload.sh" >/dev/null &&
      "$powercut" check "$d/set" --from created --verify "$here/postgres/check.sh" -q \
        --json "$d/report-set.json" || true
      rm -rf "$d/set/mnt"
    done ;;
  raid1)
    # two legs of an md mirror, built, assembled and checked in guests
    echo "matrix: $app" >&2
    i=0
    for opts in '' noauto_da_alloc data=writeback; do
      i=$((i + 1))
      RAID1_MOUNT_OPTS=$opts POWERCUT=$(command -v "$powercut") \
        "$here/raid1/run.sh" "$dir/$i-ext4${opts:+-$opts}" >/dev/null || true
    done ;;
  *)
    echo "matrix: $app: not sqlite:MODE:SYNC, git, git:FSYNC, gdbm, lmdb, postgres or raid1" >&2
    exit 2 ;;
  esac
done
python3 "$here/matrix-table.py" "$out" $apps
