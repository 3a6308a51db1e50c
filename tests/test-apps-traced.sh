#!/usr/bin/env bash
# test-apps-traced.sh: real applications judged by their traced calls.
#  - SQLite with every mark removed (SQLITE_MARKS=no), run with --verify
#    (DELETE journal with synchronous=FULL and OFF, WAL with NORMAL):
#    no finding on the database or its journal at any crash point where
#    the application's checker passes, and every point where it fails
#    names a cause (a finding or an older-version note with the call).
#    With synchronous=off, SQLite's documented loss on a power cut, the
#    checker fails somewhere.
#  - git with core.fsync=all: where the checker finds an acknowledged
#    commit lost, the report names refs/heads/master as what it needed
#    (ack-lost: given back as git had it, the checker passes), the rename
#    of refs/heads/master.lock and the fsync of the directory refs/heads
#    that would have kept it.
source "$top_srcdir/tests/functions.sh"
requires_root
requires sqlite3 git nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"
apps=$top_srcdir/contrib/apps

judge_sqlite() {
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
must_fail = sys.argv[2] == "yes"
failing = 0
for p in r["points"]:
    # findings (not notes: what the tracer cannot follow, such as the WAL
    # index SQLite maps, is listed, not judged)
    mine = [f for f in p["findings"] if f["path"].startswith("app.db") and
            f["verdict"] not in ("not-judged", "unmentioned")]
    if p["verdict"] == "app-invalid":
        failing += 1
        named = [f for f in mine if f.get("cause", {}).get("call")]
        assert named, ("no cause named", p["id"], p["evidence"], p["findings"])
    else:
        assert p["verdict"] != "not-checked", (p["id"], p["evidence"])
        assert not mine, ("a finding where the checker passes", p["id"], mine)
assert failing or not must_fail, ("the checker never failed", r["totals"])
print(failing)
PY
}

for cfg in delete:full wal:normal delete:off; do
  mode=${cfg%:*} sync=${cfg#*:}
  must_fail=no
  [ "$sync" = off ] && must_fail=yes
  for try in 1 2 3; do
    out_dir=$tmp/sqlite-$mode-$sync-$try
    SQLITE_MARKS=no SQLITE_JOURNAL_MODE=$mode SQLITE_SYNCHRONOUS=$sync SQLITE_TRANSACTIONS=10 \
      run powercut run --settle 0 --quiet --config ext4 --verify "$apps/sqlite/check.sh" \
        --out "$out_dir" -- "$apps/sqlite/workload.sh"
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "sqlite $cfg: run exit $rc ($err)"
    read_log "$out_dir/powercut.log"
    # mkfs, powercut.command-end, powercut.settle-end and end
    assert_eq "$(field marks)" 4 "sqlite $cfg: only powercut's own marks"
    n=$(judge_sqlite "$out_dir/report.json" no) || fail "sqlite $cfg: the findings"
    # synchronous=off loses data on a power cut, but not at every run's
    # crash points: until a run shows it
    [ "$must_fail" = no ] || [ "$n" -gt 0 ] && break
  done
  judge_sqlite "$out_dir/report.json" "$must_fail" >/dev/null || fail "sqlite $cfg: a failing point"
done

for try in 1 2 3; do
  out_dir=$tmp/git-$try
  GIT_FSYNC=all GIT_COMMITS=4 run powercut run --settle 0 --quiet --config ext4 \
    --verify "$apps/git/check.sh" --out "$out_dir" -- "$apps/git/workload.sh"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "git: run exit $rc ($err)"
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["totals"]["app-invalid"] else 1)' \
    "$out_dir/report.json" && break
done
python3 - "$out_dir/report.json" <<'PY' || fail "git: the lost commit's cause"
import json, sys
r = json.load(open(sys.argv[1]))
lost = [p for p in r["points"] if p["verdict"] == "app-invalid" and "lost:" in " ".join(p["evidence"])]
assert lost, r["totals"]
for p in lost:
    # the ref git's checker needed: given back as the program had it, the
    # checker passes
    ref = [f for f in p["findings"]
           if f["path"] == "repo/.git/refs/heads/master" and f["verdict"] == "ack-lost"]
    assert ref, (p["id"], [(f["verdict"], f["path"]) for f in p["findings"]])
    c = ref[0]["cause"]
    assert "rename(" in c["call"] and "refs/heads/master.lock" in c["call"], c
    assert c["fix"] == "an fsync of the directory repo/.git/refs/heads after that call", c
PY
text=$(cat "$out_dir/report.txt")
assert_match "$text" 'what the application lost: ' "git: the text report's list"
assert_match "$text" 'fix: +an fsync of the directory repo/\.git/refs/heads after that call' "git: the fix in text"
