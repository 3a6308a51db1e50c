#!/usr/bin/env bash
# test-apps.sh: the application scenarios of contrib/apps run from a clean
# checkout with the real sqlite3 and git: the crash-contract matrix (a
# small one: SQLite in DELETE mode with synchronous=FULL, and git) records
# each on three ext4 configurations, runs each application's checker at
# every crash state, and prints its table; every checker answer is one of
# consistent, lost or corrupt, and none fails to run.
source "$top_srcdir/tests/functions.sh"
requires_root
requires sqlite3 git nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"
export POWERCUT SQLITE_TRANSACTIONS=6 GIT_COMMITS=6
MATRIX_APPS="sqlite:delete:full git" run "$top_srcdir/contrib/apps/matrix.sh" "$tmp/m" -- --settle 0
echo "$out"
# the matrix runs (stderr: what it ran)
assert_eq "$rc" 0 "matrix.sh: exit status (stderr: $err)"
# its table: a header, and a row per application with a cell per configuration
assert_match "$out" '^\| application \| documented \| ext4 \| ext4 noauto_da_alloc \| ext4 data=writeback \|' "table header"
for app in 'sqlite:delete:full' git; do
  row=$(grep "^| $app |" <<<"$out" || true)
  assert_match "$row" '^\|( [^|]+ \|){5}$' "row of $app"
  assert_no_match "$row" 'no report|not checked' "row of $app"
done
# every report: the checker ran at every state whose filesystem passed and
# said consistent, lost or corrupt
python3 - "$tmp/m" <<'PY' || fail "the checkers' answers"
import glob, json, sys
n = 0
for f in glob.glob(sys.argv[1] + "/*/*/report.json"):
    r = json.load(open(f))
    assert r["verify"], f
    assert r["totals"]["not-checked"] == 0, f
    for p in r["points"]:
        if p["verdict"] == "app-invalid":
            assert p["evidence"][1].split(":")[0] in ("lost", "corrupt"), (f, p["evidence"])
    n += 1
assert n == 6, n
PY
