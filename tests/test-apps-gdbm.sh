#!/usr/bin/env bash
# test-apps-gdbm.sh: contrib/apps/gdbm, GNU dbm in GDBM_SYNC mode, which
# acknowledges most stores with no sync at all (its _gdbm_end_update syncs
# only when the directory or the header changed).  Without a checker the
# report names the acknowledged stores lost, the program's fault, quoting
# the "ok N" lines; with the checker the same points fail it, still the
# program's fault: --fail-on promises passes, --fail-on program fails.
source "$top_srcdir/tests/functions.sh"
requires_root
requires e2fsck
/usr/bin/python3 -c 'import dbm.gnu' 2>/dev/null || { echo "python3-gdbm is not installed"; exit 77; }
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
apps=$top_srcdir/contrib/apps/gdbm

run powercut run --settle 0 -q -O "$tmp/plain" -- "$apps/workload.sh"
assert_eq "$rc" 1 "acknowledged stores lost: problems found ($err)"
r=$tmp/plain/report.json
assert_eq "$(json "$r" 'r["totals"]["promises"], r["totals"]["ack-lost"] > 0')" "(0, True)" "ack-lost, no broken promise"
assert_eq "$(json "$r" 'sorted({(f["path"], f["fault"]) for p in r["points"] for f in p["findings"] if f["verdict"] == "ack-lost"})')" \
  "[('kv.gdbm', 'program')]" "the database, the program's fault"
assert_eq "$(json "$r" 'all(f["cause"]["acknowledged"].startswith("ok ") and "msync(MS_SYNC) of the mapping of kv.gdbm" in f["cause"]["fix"] for p in r["points"] for f in p["findings"] if f["verdict"] == "ack-lost")')" \
  True "each quotes the line and names the sync: its mapping's msync"
plain=$(json "$r" 'sorted(p["id"] for p in r["points"] if p["verdict"] == "ack-lost")')

run powercut check "$tmp/plain/powercut.log" -q --verify "$apps/check.sh" --json "$tmp/verify.json" --fail-on promises
assert_eq "$rc" 0 "with the checker: no promise broken ($err)"
assert_eq "$(json "$tmp/verify.json" 'set(p["id"] for p in r["points"] if p["verdict"] == "app-invalid") <= set('"$plain"')')" True \
  "the checker fails only where the report without it said"
assert_eq "$(json "$tmp/verify.json" 'r["totals"]["program_promises"] == r["totals"]["app-invalid"] > 0')" True \
  "the program's fault"
assert_match "$(json "$tmp/verify.json" '[p["evidence"][1] for p in r["points"] if p["verdict"] == "app-invalid"][0]')" \
  "^lost: [0-9]+ of [0-9]+ acknowledged keys" "the checker says what it lost"
run powercut check "$tmp/plain/powercut.log" -q --verify "$apps/check.sh" --fail-on program
assert_eq "$rc" 1 "--fail-on program fails ($err)"
