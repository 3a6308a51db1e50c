#!/usr/bin/env bash
# test-trace-reference.sh: the oracle on a traced program's calls against
# a small brute-force reference (tests/trace-ref.py), on random traced
# workloads on ext4: writes of whole blocks (plain, O_SYNC,
# O_DIRECT|O_SYNC, through a mapping with msync), truncates, renames,
# unlinks, fsync and fdatasync of files, fsync of directories, sync.  At
# every crash state, judged at its moment, every path is ok, exposure or a
# broken promise the same way by both.  Then again with the data of one
# block the workload wrote zeroed in the log, so that the states after its
# sync break a promise.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 4 ))
ref=$top_srcdir/tests/trace-ref.py
seeds=${POWERCUT_REF_SEEDS:-"1 2 3 4"}

compare ()      # LOG REPORT DUMPS
{
  powercut log --dump "$1" >"$tmp/dump.txt"
  powercut log "$1" >"$tmp/marks.txt"
  python3 "$ref" compare "$tmp/model.json" "$tmp/dump.txt" "$tmp/marks.txt" "$2" "$3"
}

total=0 promises=0
for seed in $seeds; do
  rm -rf "$tmp/d" "$tmp/out"
  mkdir "$tmp/d"
  run powercut run --settle 0 -q -O "$tmp/out" --verify "python3 $ref dump $tmp/d" -- \
    python3 "$ref" gen "$seed" "$tmp/model.json"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "seed $seed: run exit $rc ($err)"
  n=$(compare "$tmp/out/powercut.log" "$tmp/out/report.json" "$tmp/d") ||
    fail "seed $seed: powercut and the reference differ: $n"
  assert_ge "$n" 20 "seed $seed: (state, path) pairs compared"
  total=$((total + n))

  # one block a synchronous write or an msync made durable: zeroed in the log
  tag=$(python3 - "$tmp/model.json" "$seed" <<'PY'
import json, random, sys
ops = json.load(open(sys.argv[1]))
cands = []
for k, op in enumerate(ops, 1):
    if op["wrote"] and op["kind"] in ("write", "msync") and op["durable"]:
        ident, lo, hi = op["wrote"]
        cands.append("op%03d-blk%02d-" % (k, random.Random(k).randrange(lo, hi) % 100))
print(random.Random(int(sys.argv[2])).choice(cands) if cands else "")
PY
)
  [ -n "$tag" ] || continue
  cp "$tmp/out/powercut.log" "$tmp/zeroed.log"
  "$top_builddir/tests/log-edit" "$tmp/zeroed.log" zero-block "$tag" >/dev/null || continue
  rm -rf "$tmp/d"; mkdir "$tmp/d"
  run powercut check "$tmp/zeroed.log" --verify "python3 $ref dump $tmp/d" --json "$tmp/zeroed.json"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "seed $seed, zeroed: check exit $rc ($err)"
  n=$(compare "$tmp/zeroed.log" "$tmp/zeroed.json" "$tmp/d") ||
    fail "seed $seed, $tag zeroed: powercut and the reference differ: $n"
  total=$((total + n))
  promises=$((promises + $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["promises"])' "$tmp/zeroed.json")))
done
echo "$total (state, path) pairs agree; $promises states broke a promise in the zeroed logs"
assert_ge "$promises" 1 "broken promises compared"
