#!/bin/sh
# contrib/apps/matrix.sh: the crash-contract matrix.  Each application
# configuration (SQLite journal modes x synchronous levels, git with its
# default core.fsync and with core.fsync=all) runs
# under powercut run on ext4 with the default options, noauto_da_alloc and
# data=writeback, with its checker as --verify; the table says, per cell,
# what the application documents and what powercut observed at the crash
# points: consistent, acknowledged transactions lost (how many at most,
# at how many points), or corrupt.  Where the observation is worse than
# the documentation, the crash point and the command that rebuilds it are
# listed under the table.
#
# Usage (as root): contrib/apps/matrix.sh [OUTDIR] [-- powercut run options]
# Environment: POWERCUT (default: powercut in PATH), SQLITE_TRANSACTIONS,
# GIT_COMMITS, MATRIX_APPS (default: all; e.g. "sqlite:wal:full git").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-matrix-out}
[ $# -gt 0 ] && shift
[ "${1:-}" = -- ] && shift
powercut=${POWERCUT:-powercut}
apps=${MATRIX_APPS:-"sqlite:delete:off sqlite:delete:normal sqlite:delete:full sqlite:delete:extra
  sqlite:wal:off sqlite:wal:normal sqlite:wal:full git git:all"}
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
  *)
    echo "matrix: $app: not sqlite:MODE:SYNC, git or git:FSYNC" >&2
    exit 2 ;;
  esac
done
python3 "$here/matrix-table.py" "$out" $apps
