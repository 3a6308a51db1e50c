#!/usr/bin/env bash
# test-run-random.sh: the random workload is reproducible: the same seed
# gives the same operations and the same verdict counts; another seed gives
# other operations.  Each run's exit status says why: 1 with failing
# verdicts in the report it printed, 0 with none, and never anything else.
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

# The verdict counts, "ok=N mismatch=N ..." (ok, and the others that are not
# 0, sorted): printed_verdicts TEXT, of the lines "  VERDICT  N" of the
# report a run printed; json_verdicts FILE, of a report.json's totals.
printed_verdicts () {
  awk '/^  [a-z][a-z-]* +[0-9]+$/ && ($1 == "ok" || $2 > 0) { print $1 "=" $2 }' <<<"$1" |
    sort | paste -sd ' '
}
json_verdicts () { python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["totals"]
print(" ".join(sorted("%s=%d" % (k, n) for k, n in t.items()
                      if k not in ("points", "unique", "promises", "exposures")
                      and (k == "ok" or n))))' "$1"; }

# check_exit WHAT DIR: the run just made ($rc, $out, $err) into DIR was
# checked to the end, and its exit status says why: 1 with failing
# verdicts in the report it printed (the counts of its report.json), 0
# with none; any other status fails.
check_exit () {
  local printed failing
  case $rc in
    0|1) ;;
    *) fail "$1: exit status $rc ($err)" ;;
  esac
  printed=$(printed_verdicts "$out")
  # $1: the report printed has the verdict counts of report.json
  assert_match "$printed" '(^| )ok=[0-9]+' "$1: verdict counts in the report printed (exit $rc,
stdout: $out
stderr: $err)"
  assert_eq "$printed" "$(json_verdicts "$2/report.json")" "$1: verdicts printed vs report.json"
  failing=$(tr ' ' '\n' <<<"$printed" | grep -vc '^ok=' || true)
  if [ "$rc" = 1 ]; then
    # $1: exit 1, so some crash point failed
    assert_ge "$failing" 1 "$1: exit 1 with failing verdicts ($printed)"
  else
    # $1: exit 0, so every crash point is ok
    assert_eq "$failing" 0 "$1: exit 0 with no failing verdict ($printed)"
  fi
  echo "$1: exit $rc, $printed"
}

# (nodioread_nolock: with ext4's default dioread_nolock, whether a sync's
# first commit carries a new file's size before its extent is converted,
# a zero-filled file, is a race of the kernel's own, not the workload's)
for i in 1 2; do
  run powercut run --quiet --workload random --seed 7 --mount-opts nodioread_nolock \
      --out "$tmp/a$i"
  # the random workload runs and is checked; exit 0 or 1 as its verdicts say
  check_exit "random seed 7 run $i" "$tmp/a$i"
done
ops1=$(grep -v '^wait' "$tmp/a1/workload.txt")
ops2=$(grep -v '^wait' "$tmp/a2/workload.txt")
# the same seed gives the same operations
assert_eq "$ops2" "$ops1" "operations of seed 7"
# ... and the same verdict counts
assert_eq "$(totals "$tmp/a2/report.json")" "$(totals "$tmp/a1/report.json")" "totals of seed 7"
# it did something: renames, links, unlinks and syncs among 60 operations
assert_ge "$(grep -cE '^(rename|link|unlink|sync|fsync|fdatasync|mkdir)' "$tmp/a1/workload.txt")" 10 "varied operations"

run powercut run --quiet --workload random --seed 8 --mount-opts nodioread_nolock --out "$tmp/b"
check_exit "random seed 8" "$tmp/b"
# another seed, other operations
assert_ne "$(grep -v '^wait' "$tmp/b/workload.txt")" "$ops1" "operations of seed 8"
