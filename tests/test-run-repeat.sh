#!/usr/bin/env bash
# test-run-repeat.sh: one run is one sample of the kernel's timing.
#  - A single run of a command that loses a file it never synced (renamed
#    to a new name, the journal committing the name before writeback): the
#    report's second line says that one run is one sample, and the layout
#    is a single run's (no run-K).
#  - --repeat 3 of that command, its second run failing: each run in
#    OUT/run-K with its own reports (their second line "run K of 3"), and
#    OUT/report.txt (printed too) says "repeated 3 times", lists each run
#    (the second's error), and says "seen in K of 3 runs" on each finding;
#    report.json says the same in fields; the exit status is 2.
#  - The built-in workload (none named) with --repeat 2 on two
#    configurations: the comparison has a runs column (K/2), each
#    configuration its runs in DIR/run-K and its report over them; the
#    page shows one run of each, its log's marks with it; exit 1.
#  - --repeat 0 and 101 are refused.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# a new file by rename to a new name, never synced: a crash after the
# journal commits the name (commit=1) and before writeback finds it empty;
# with $tmp/fail-at N, the Nth run fails after writing
cat >"$tmp/newfile.sh" <<SH
#!/bin/sh
n=\$(( \$(cat "$tmp/count" 2>/dev/null || echo 0) + 1 ))
echo \$n >"$tmp/count"
printf 'new data\n' > t
mv t f
sleep 3
[ "\$n" != "\$(cat "$tmp/fail-at" 2>/dev/null)" ] || exit 3
SH
chmod +x "$tmp/newfile.sh"

# one run, until it loses the file (the kernel's timing decides; three tries)
for try in 1 2 3; do
  rm -rf "$tmp/one"
  run powercut run --quiet --settle 0 --config 'ext4 commit=1' --out "$tmp/one" -- "$tmp/newfile.sh"
  assert_match "$rc" '^[01]$' "one run ($err)"
  [ "$(json "$tmp/one/report.json" 'r["totals"]["exposures"]')" = 0 ] || break
done
assert_ge "$(json "$tmp/one/report.json" 'r["totals"]["exposures"]')" 1 "a run that lost the unsynced file"
assert_eq "$(json "$tmp/one/report.json" 'r["totals"]["promises"] + r["totals"]["program_promises"]')" 0 \
  "only data never made durable lost"
# its second line: one sample
assert_eq "$(sed -n 2p <<<"$out")" \
  "one run is one sample of the kernel's timing: powercut run --repeat N records it N times" \
  "the second line of a single run's report"
assert_match "$(sed -n 1p <<<"$out")" '^LOST at [0-9]+ of [0-9]+ crash points, only data never made durable' \
  "the first line"
assert_match "$(sed -n 3p <<<"$out")" '^lost: f ' "the third line"
assert_eq "$(cat "$tmp/one/report.txt")" "$out" "report.txt is what it printed"
[ -f "$tmp/one/powercut.log" ] && [ ! -e "$tmp/one/run-1" ] || fail "one run: not the single run's layout"

# --repeat 3, the second run failing
echo 0 >"$tmp/count"
echo 2 >"$tmp/fail-at"
run powercut run --quiet --settle 0 --repeat 3 --config 'ext4 commit=1' --out "$tmp/three" -- "$tmp/newfile.sh"
assert_eq "$rc" 2 "--repeat 3 with a run failing: exit status ($err)"
assert_match "$err" 'ext4 commit=1, run 2 of 3: .*exit status 3' "the failing run said"
r=$tmp/three/report.txt
assert_eq "$(cat "$r")" "$out" "report.txt is what it printed"
assert_match "$(head -n 2 "$r")" 'repeated 3 times' "repeated 3 times near the top"
assert_match "$(cat "$r")" '^  run-2: error: .*exit status 3' "run 2's error listed"
for k in 1 3; do
  d=$tmp/three/run-$k
  [ -f "$d/powercut.log" ] && [ -f "$d/report.json" ] || fail "run $k: no log or report in $d"
  assert_eq "$(sed -n 2p "$d/report.txt")" \
    "run $k of 3 (powercut run --repeat 3): one sample of the kernel's timing; the 3 together in ../report.txt" \
    "run $k's second line"
  assert_match "$(cat "$r")" "^  run-$k: (LOST|nothing lost)" "run $k listed"
done
# each finding across the runs says in how many it was seen
findings=$(sed -n '/^lost, by path/,/^$/p' "$r" | grep '^  [^ ]')
assert_ge "$(grep -c . <<<"$findings")" 1 "findings across the runs (in: $(cat "$r"))"
assert_eq "$(grep -vcE ': seen in [12] of 3 runs \(run-[13] at ' <<<"$findings")" 0 \
  "a finding without 'seen in K of 3 runs': $findings"
assert_eq "$(json "$tmp/three/report.json" '(r["repeated"], len(r["runs"]), "error" in r["runs"][1])')" \
  "(3, 3, True)" "report.json: repeated, runs"
assert_eq "$(json "$tmp/three/report.json" 'all(f["runs_seen"] == len(f["runs"]) == sum(1 for p in f["points_per_run"] if p) and 2 not in f["runs"] for f in r["findings"]) and len(r["findings"]) > 0')" \
  True "report.json: runs_seen, runs, points_per_run"
assert_eq "$(json "$tmp/three/report.json" 'r["runs_failed"] == sum(1 for x in r["runs"] if x.get("failed"))')" \
  True "report.json: runs_failed"

# the built-in workload, none named, on two configurations, twice each
run powercut run --quiet --repeat 2 --files 3 --config ext4 --config 'ext4 noauto_da_alloc' \
  --out "$tmp/two"
assert_eq "$rc" 1 "the default workload, --repeat 2: exit status ($err)"
assert_match "$(head -n 3 <<<"$out")" '  files     runs$' "the table's runs column"
assert_match "$out" '^ext4 noauto_da_alloc .* 2/2$' "noauto_da_alloc failed in both runs"
assert_match "$out" '^ext4 .* [012]/2$' "ext4's runs"
for c in 1-ext4 2-ext4-noauto_da_alloc; do
  for k in 1 2; do
    [ -f "$tmp/two/$c/run-$k/powercut.log" ] || fail "$c: no run-$k"
  done
  assert_match "$(head -n 2 "$tmp/two/$c/report.txt")" 'replace-rename on .*, repeated 2 times' "$c: its report"
done
assert_eq "$(json "$tmp/two/report.json" '[(c["repeated"], c["runs_failed"]) for c in r["configurations"]][1]')" \
  "(2, 2)" "the comparison's JSON"
# the comparison's page shows a run of each, with its log's marks
grep -q '"ext4 noauto_da_alloc (run [12] of 2)"' "$tmp/two/report.html" ||
  fail "the comparison's page does not name the run it shows"
grep -q '"name":"v2"' "$tmp/two/report.html" || fail "the comparison's page: no mark v2"

# --repeat 0 and 101: refused
for n in 0 101; do
  run powercut run --repeat "$n" --out "$tmp/bad" -- true
  assert_eq "$rc" 2 "--repeat $n"
  [ ! -e "$tmp/bad" ] || fail "--repeat $n: it ran"
done
