#!/usr/bin/env bash
# test-trace-differential.sh: the oracle on a traced program's calls
# against the oracle on marks, on the same recordings.  Each built-in
# workload that marks its steps is recorded traced; its log is checked
# three ways: by the marks alone (check --ignore-events, as an untraced
# run is judged), by the calls alone (--ignore-marks: the marks removed,
# but the first, which is the tree before the program) and by both (the
# default).  At every crash point, every file the marks name gets the
# same verdict all three ways.  The seed's replace-rename runs on
# noauto_da_alloc, where its files come back empty, so that the verdicts
# compared are not all "ok".
#
# One difference is by design (powercut-check(1)): the history knows each
# file per 4 KiB block, the marks only whole versions, so a state holding
# a mix of two marked versions' blocks (an in-place overwrite or a
# truncate into a block, caught half written back) is fine by the calls
# and a mismatch by the marks.  Such a difference passes only as that:
# the marks' finding a mismatch that is no broken promise, found at the
# size of a version the marks allow, and the calls' no finding at all.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

compare() {
  python3 - "$@" <<'PY'
import json, re, sys
def verdicts(f):
    r = json.load(open(f))
    d = {}
    for p in r["points"]:
        for x in p["findings"]:
            # the files the marks name: not the temporaries they never name
            if x["verdict"] in ("unmentioned", "not-judged", "older-version") or \
               x["path"].endswith(".tmp"):
                continue
            d[(p["id"], x["path"])] = x
    return r, d
def block_mix(x):
    """A marks-only mismatch that a mix of allowed versions' blocks explains."""
    m = re.match(r"file (\d+) B ", x["found"])
    sizes = re.findall(r"(?:^|; )file (\d+) B ", x["allowed"])
    return x["verdict"] == "mismatch" and not x["promise"] and m is not None \
        and m.group(1) in sizes
ra, a = verdicts(sys.argv[1])
rb, b = verdicts(sys.argv[2])
assert [p["id"] for p in ra["points"]] == [p["id"] for p in rb["points"]]
diff, mixes = [], 0
for k in sorted(set(a) | set(b)):
    va, vb = a.get(k), b.get(k)
    if (va and va["verdict"]) == (vb and vb["verdict"]):
        continue
    if va is not None and vb is None and block_mix(va):
        mixes += 1
        continue
    diff.append((k, va and va["verdict"], vb and vb["verdict"]))
assert not diff, diff[:10]
print(len(a) - mixes)
PY
}

found=0
for w in replace-rename truncate-rewrite append random; do
  cfg=ext4
  [ "$w" = replace-rename ] && cfg='ext4 noauto_da_alloc'
  for try in 1 2 3; do
    run powercut run --quiet --trace --workload "$w" --seed "$try" --config "$cfg" \
        --out "$tmp/$w-$try"
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$w: run exit $rc ($err)"
    log=$tmp/$w-$try/powercut.log
    for how in ignore-events ignore-marks both; do
      opt=--$how
      [ "$how" = both ] && opt=
      run powercut check "$log" $opt --quiet --json "$tmp/$w-$try.$how.json"
      [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$w: check $opt exit $rc ($err)"
    done
    n=$(compare "$tmp/$w-$try.ignore-events.json" "$tmp/$w-$try.ignore-marks.json") \
      || fail "$w (seed $try): marks alone against calls alone"
    compare "$tmp/$w-$try.ignore-events.json" "$tmp/$w-$try.both.json" >/dev/null \
      || fail "$w (seed $try): marks alone against both"
    found=$((found + n))
    # the seed's workload: until a run shows its empty files
    [ "$w" != replace-rename ] || [ "$n" -gt 0 ] && break
  done
done
# the comparisons had findings to compare
assert_ge "$found" 1 "findings compared"
