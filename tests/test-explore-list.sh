#!/usr/bin/env bash
# test-explore-list.sh: explore --list --seq N counts the generated
# workloads without running any (no root): all of them, those of no
# argument class, those of each class; for one operation, as many as an
# exploration of --seq 1 plans, and the classes' counts add up to it
# (one operation has one class or none); two operations have more, and a
# workload of two classes counts in both.
source "$top_srcdir/tests/functions.sh"
requires python3

classes='size unaligned dsync append dirxattr large deep'
run powercut explore --list --seq 1
assert_eq "$rc" 0 "--list --seq 1 ($err)"
assert_eq "$(sed -n 1p <<<"$out")" "workloads: 1207" "seq 1's workloads, first"
assert_eq "$(sed -n 2p <<<"$out")" "without argument classes: 900" "those of no class, second"
for c in $classes; do
  assert_match "$out" "^class $c: [1-9][0-9]*$" "class $c counted"
done
assert_eq "$(awk -F': ' '/^without|^class/ { s += $2 } END { print s }' <<<"$out")" 1207 \
  "one operation: one class or none"
one=$out

# every place of seq 2 enumerated: 8 s here, 26 s in a build with
# sanitizers, more beside other tests
T=$(( T * 6 ))
run powercut explore --list --seq 2
assert_eq "$rc" 0 "--list --seq 2 ($err)"
python3 - "$out" $classes <<'PY' || fail "seq 2's counts ($out)"
import sys
lines = sys.argv[1].splitlines()
kv = dict(l.split(": ", 1) for l in lines)
assert lines[0].startswith("workloads: ") and lines[1].startswith("without argument classes: "), lines
n, plain = int(kv["workloads"]), int(kv["without argument classes"])
assert n > plain > 1000000, (n, plain)
per = [int(kv["class " + c]) for c in sys.argv[2:]]
assert all(k > 0 for k in per), per
# a workload of two classes counts in both: more than the rest
assert plain + sum(per) > n, (plain, sum(per), n)
assert int(kv["places in the order"]) > n
PY

# misuse: a count of what cannot be counted, or of what is not --seq
run powercut explore --list --seq 3
assert_eq "$rc" 2 "--list --seq 3"
assert_match "$err" "^powercut explore: --list counts the workloads of --seq 1 or 2" "why not"
run powercut explore --list --random
assert_eq "$rc" 2 "--list --random"
