#!/usr/bin/env bash
# test-check-unchecked.sh: a failure of powercut itself is never a verdict.
# With an e2fsck that hangs (first in PATH) and --timeout 1, every state is
# "not-checked", none fs-corrupt or unmountable, and check exits 2; a
# checker killed once on a state is replaced and the state checked again
# (the same report as an undisturbed check); killed on every try, the
# state is not checked, and says why.
source "$top_srcdir/tests/functions.sh"
requires e2fsck python3 flock

real_e2fsck=$(command -v e2fsck)
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/log"
export TMPDIR=$tmp/scratch
mkdir "$TMPDIR" "$tmp/bin"

# json FILE EXPR: prints the Python expression EXPR of report r.
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# the verdicts and findings of every point, for comparing reports
points () { json "$1" '"\n".join("%s %s %s" % (p["id"], p["verdict"], json.dumps(p["findings"])) for p in r["points"])'; }

run powercut check "$tmp/log" --jobs 2 --json "$tmp/ref.json"
# an undisturbed check finds the golden log's zero-length files (exit 1)
assert_eq "$rc" 1 "reference check: exit status (stderr: $err)"
npoints=$(json "$tmp/ref.json" 'r["totals"]["points"]')

# --- e2fsck hangs ------------------------------------------------------
hang=powercut-test-hang-$$
cat >"$tmp/bin/e2fsck" <<EOF
#!/bin/bash
exec -a $hang sleep 600
EOF
chmod +x "$tmp/bin/e2fsck"
start=$(date +%s)
run env PATH="$tmp/bin:$PATH" "$POWERCUT" check "$tmp/log" --jobs 2 --timeout 1 \
    --json "$tmp/hang.json"
# check gives up on every state, and says the check could not finish
assert_eq "$rc" 2 "hanging e2fsck: exit status (stderr: $err)"
assert_match "$err" "crash points could not be checked" "hanging e2fsck: stderr"
# no state is called corrupt or unmountable for it, every one is not checked
assert_eq "$(json "$tmp/hang.json" '" ".join(str(r["totals"][k]) for k in ("fs-corrupt", "unmountable", "not-checked"))')" \
          "0 0 $npoints" "hanging e2fsck: totals fs-corrupt, unmountable, not-checked"
assert_eq "$(json "$tmp/hang.json" 'sum(len(p["findings"]) for p in r["points"])')" 0 "hanging e2fsck: findings"
# the evidence says why, and what to do
assert_match "$(json "$tmp/hang.json" 'r["points"][0]["evidence"][0]')" \
             'e2fsck -fn did not finish within 1 s \(give check a longer --timeout\)' "evidence"
# the text report keeps them apart from the verdicts
assert_match "$out" "not checked: $npoints crash points" "text report: not checked"
assert_no_match "$out" "fs-corrupt|unmountable|failing crash points" "text report: no verdict"
# and nothing is left running: the hung programs were killed
assert_eq "$(pgrep -f "^$hang" | wc -l)" 0 "hung e2fsck processes left"
echo "hanging e2fsck: $npoints points not checked in $(( $(date +%s) - start )) s"

# --- a checker killed on its state --------------------------------------
# This e2fsck kills the worker that started it (its parent, whose own
# parent is the checking process) while $tmp/kills holds a number above 0,
# once per call; started by the checking process itself, it only checks.
cat >"$tmp/bin/e2fsck" <<EOF
#!/bin/bash
gp=\$(awk '/^PPid:/ { print \$2 }' /proc/\$PPID/status)
if [ "\$(cat /proc/\$gp/comm)" = powercut ]; then
  exec 9>>"$tmp/kills.lock"
  flock 9
  n=\$(cat "$tmp/kills")
  if [ "\$n" != 0 ]; then
    [ "\$n" = forever ] || echo \$(( n - 1 )) >"$tmp/kills"
    kill -KILL \$PPID
    exit 99
  fi
fi
exec "$real_e2fsck" "\$@"
EOF
echo 1 >"$tmp/kills"
run env PATH="$tmp/bin:$PATH" "$POWERCUT" check "$tmp/log" --jobs 2 --json "$tmp/kill.json"
# a worker was killed ...
assert_eq "$(cat "$tmp/kills")" 0 "kills left"
# ... and its state tried again: the report is the undisturbed one
assert_eq "$rc" 1 "killed once: exit status (stderr: $err)"
diff <(points "$tmp/ref.json") <(points "$tmp/kill.json") >&2 ||
  fail "killed once: the points differ from the undisturbed check"

echo forever >"$tmp/kills"
run env PATH="$tmp/bin:$PATH" "$POWERCUT" check "$tmp/log" --jobs 2 --json "$tmp/dead.json"
# killed at every try, no state is judged, and the check says so
assert_eq "$rc" 2 "killed always: exit status (stderr: $err)"
assert_eq "$(json "$tmp/dead.json" '" ".join(str(r["totals"][k]) for k in ("ok", "fs-corrupt", "unmountable", "not-checked"))')" \
          "0 0 0 $npoints" "killed always: totals ok, fs-corrupt, unmountable, not-checked"
assert_match "$(json "$tmp/dead.json" 'r["points"][0]["evidence"][0]')" \
             "checker died on this state 2 times \\(killed by signal 9" "killed always: evidence"

# merge keeps them apart too, and exits 2
run powercut merge "$tmp/dead.json" --json "$tmp/merged.json"
assert_eq "$rc" 2 "merge of a report with unchecked points: exit status"
assert_eq "$(json "$tmp/merged.json" 'r["totals"]["not-checked"]')" "$npoints" "merged not-checked"
