#!/usr/bin/env bash
# test-run-random.sh: the random workload is reproducible: the same seed
# gives the same operations and the same verdict counts; another seed gives
# other operations.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

# totals: the verdict counts over distinct crash states (points whose image
# no earlier point had).  The kernel may send an extra flush with nothing
# written since the last one, a duplicate point, depending on timing alone.
totals () { python3 -c 'import json,sys
r = json.load(open(sys.argv[1])); c = {}
for p in r["points"]:
    if p["same_as"] is None: c[p["verdict"]] = c.get(p["verdict"], 0) + 1
print(" ".join("%s=%d" % kv for kv in sorted(c.items())), "distinct=%d" % r["totals"]["unique"])' "$1"; }

for i in 1 2; do
  run powercut run --quiet --workload random --seed 7 --out "$tmp/a$i"
  # the random workload runs and is checked (0: nothing found, 1: findings)
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "random seed 7 run $i exit status $rc ($err)"
done
ops1=$(grep -v '^wait' "$tmp/a1/workload.txt")
ops2=$(grep -v '^wait' "$tmp/a2/workload.txt")
# the same seed gives the same operations
assert_eq "$ops2" "$ops1" "operations of seed 7"
# ... and the same verdict counts
assert_eq "$(totals "$tmp/a2/report.json")" "$(totals "$tmp/a1/report.json")" "totals of seed 7"
# it did something: renames, links, unlinks and syncs among 60 operations
assert_ge "$(grep -cE '^(rename|link|unlink|sync|fsync|fdatasync|mkdir)' "$tmp/a1/workload.txt")" 10 "varied operations"

run powercut run --quiet --workload random --seed 8 --out "$tmp/b"
# another seed, other operations
assert_ne "$(grep -v '^wait' "$tmp/b/workload.txt")" "$ops1" "operations of seed 8"
