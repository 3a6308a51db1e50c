#!/usr/bin/env bash
# test-apps-nochecker.sh: whose fault, on real programs run without their
# checkers, as a user without one runs them (powercut run -- CMD, every
# line the program prints an acknowledgement), on ext4 and ext4
# noauto_da_alloc: SQLite in WAL and in rollback-journal mode, LMDB and
# GDBM (contrib/apps, no marks, the programs' own "ok"/"txn-N" lines), git
# (GIT_MARKS=no) and dpkg installing a small package twice, its progress
# lines shown.  Then each log is checked again with the program's own
# checker (--verify) where it has one.  It asserts:
#  - no finding is the filesystem's fault (these kernels keep their
#    promises here);
#  - no finding is the program's where the program's checker passes at
#    that point (SQLite's -shm index, LMDB's lock file, a WAL deleted but
#    still there, dpkg's scratch files: not acknowledged data);
#  - SQLite, LMDB, git (which syncs none of its files by default) and
#    dpkg: no finding is the program's at all; with git's checker, every
#    point where it fails is the program's;
#  - GDBM, which acknowledges stores it has not synced: ack-lost named.
source "$top_srcdir/tests/functions.sh"
requires_root
requires sqlite3 git dpkg dpkg-deb nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3
/usr/bin/python3 -c 'import dbm.gnu, lmdb' 2>/dev/null ||
  { echo "python3-gdbm or python3-lmdb is not installed"; exit 77; }
T=$(( T * 4 ))
apps=$top_srcdir/contrib/apps
export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"

cat >"$tmp/dpkg.sh" <<'SH'
#!/bin/sh
# dpkg -i of a small package, then of its next version, each line dpkg
# prints shown (its progress: "Unpacking ...", "Setting up ...")
set -eu
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cd "$POWERCUT_MNT"
mkpkg () {
  d=$build/hello-$1
  mkdir -p "$d/DEBIAN" "$d/etc/hello" "$d/usr/share/hello"
  printf 'Package: hello-nochecker\nVersion: %s\nArchitecture: all\nMaintainer: powercut <powercut@example.org>\nDescription: a package of the tests\n' \
    "$1" > "$d/DEBIAN/control"
  echo /etc/hello/hello.conf > "$d/DEBIAN/conffiles"
  printf 'greeting = hello %s\n' "$1" > "$d/etc/hello/hello.conf"
  printf 'data of version %s\n' "$1" > "$d/usr/share/hello/data"
  dpkg-deb --build --root-owner-group "$d" "$build/hello_$1.deb" >/dev/null
}
mkpkg 1.0
mkpkg 1.1
mkdir -p root/var/lib/dpkg/info root/var/lib/dpkg/updates
: > root/var/lib/dpkg/status
dpkg --root="$PWD/root" --force-not-root --force-bad-path -i "$build/hello_1.0.deb"
dpkg --root="$PWD/root" --force-not-root --force-bad-path -i "$build/hello_1.1.deb"
SH
chmod +x "$tmp/dpkg.sh"

# faults OUT [CHECKED]: "filesystem program" counts of OUT's findings; with
# CHECKED (the same log checked with --verify), the program's findings at
# points where the checker passed, counted as the third number
faults () {
  python3 - "$@" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
passed = set()
if len(sys.argv) > 2:
    v = json.load(open(sys.argv[2]))
    passed = {p["id"] for p in v["points"] if p["verdict"] not in ("app-invalid", "not-checked")}
fs = prog = prog_passed = 0
for p in r["points"]:
    for f in p["findings"]:
        fs += f["fault"] == "filesystem"
        prog += f["fault"] == "program"
        prog_passed += f["fault"] == "program" and p["id"] in passed
print(fs, prog, prog_passed)
PY
}

configs=(--config ext4 --config 'ext4 noauto_da_alloc')
declare -A checker=([sqlite-wal]=$apps/sqlite/check.sh [sqlite-delete]=$apps/sqlite/check.sh
                    [lmdb]=$apps/lmdb/check.sh [gdbm]=$apps/gdbm/check.sh [git]=$apps/git/check.sh)
gdbm_acked=0
for app in sqlite-wal sqlite-delete lmdb gdbm git dpkg; do
  case $app in
  sqlite-*) cmd=("$apps/sqlite/workload.sh")
            export SQLITE_MARKS=no SQLITE_TRANSACTIONS=5 SQLITE_JOURNAL_MODE=${app#sqlite-} ;;
  lmdb) cmd=("$apps/lmdb/workload.sh"); export LMDB_KEYS=5 ;;
  gdbm) cmd=("$apps/gdbm/workload.sh"); export GDBM_KEYS=9 ;;
  git) cmd=("$apps/git/workload.sh"); export GIT_MARKS=no GIT_COMMITS=3 ;;
  dpkg) cmd=("$tmp/dpkg.sh") ;;
  esac
  run powercut run --settle 0 -q "${configs[@]}" -O "$tmp/$app" -- "${cmd[@]}"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$app: run exit $rc ($err)"
  for dir in "$tmp/$app"/*/; do
    cfg=$(basename "$dir")
    [ -s "$dir/report.json" ] || fail "$app $cfg: no report"
    verified=()
    if [ -n "${checker[$app]:-}" ]; then
      powercut check "$dir/powercut.log" -q --verify "${checker[$app]}" --json "$dir/verified.json" || true
      verified=("$dir/verified.json")
    fi
    read -r fs prog prog_passed < <(faults "$dir/report.json" "${verified[@]}")
    echo "$app $cfg: filesystem $fs, program $prog, the program's where its checker passes $prog_passed${verified:+, the checker fails at $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["app-invalid"])' "$dir/verified.json")}"
    assert_eq "$fs" 0 "$app $cfg: findings that are the filesystem's"
    assert_eq "$prog_passed" 0 "$app $cfg: the program's findings where its checker passes"
    case $app in
    gdbm) gdbm_acked=$(( gdbm_acked + $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["acknowledged_lost"])' "$dir/report.json") )) ;;
    *) assert_eq "$prog" 0 "$app $cfg: findings that are the program's" ;;
    esac
    # git, with its checker: every point where it finds an acknowledged
    # commit lost or the repository damaged is the program's, its objects
    # found absent or empty alike (git syncs none of them by default)
    [ "$app" != git ] ||
      assert_eq "$(python3 -c 'import json,sys; print(sorted({p["fault"] for p in json.load(open(sys.argv[1]))["points"] if p["verdict"] == "app-invalid"} - {"program"}))' "$dir/verified.json")" \
        "[]" "git $cfg: app-invalid points that are not the program's"
  done
done
# dpkg printed its progress, and every line was an acknowledgement
assert_match "$(cat "$tmp"/dpkg/*/workload.txt)" "Setting up hello-nochecker \(1\.1\)" "dpkg's lines"
assert_ge "$gdbm_acked" 1 "GDBM's acknowledged stores lost, named ack-lost"
