#!/usr/bin/env bash
# test-check-recovery-crashes.sh: check --recovery-crashes cuts the power a
# second time, during the kernel's recovery of a state.  On the seed
# (replace-rename on noauto_da_alloc, recorded by a real ext4 mount), each
# distinct state whose journal needs replaying is mounted through the
# recorder (nbdfuse, a loop device), its replay's writes land in
# LOG.recovery/ID.pclog, and each flush point K of that log is a point
# ID/recovery:K, judged by the kernel and the oracle.  jbd2's replay is
# idempotent: every such point, recovered again, holds what its state
# held (the same verdict and findings).  replay --at ID/recovery:K builds
# it: the state's bytes with that prefix of the replay on top.  Nothing
# is left mounted, attached or running; --judge ext2fs is refused.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck nbdfuse
T=$(( T * 3 ))
export TMPDIR=$tmp
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

run powercut run --quiet --workload replace-rename --mount-opts noauto_da_alloc --files 4 \
    --out "$tmp/seed"
assert_match "$rc" '^[01]$' "seed recorded ($err)"
log=$tmp/seed/powercut.log

run powercut check "$log" --recovery-crashes --json "$tmp/r.json"
assert_match "$rc" '^[01]$' "checked ($err)"
assert_match "$out" '[0-9]+ of them a second power cut during the kernel.s recovery of [0-9]+ states' \
  "the report counts the recovery's points"
nrec=$(json "$tmp/r.json" 'sum(p["recovery_record"] is not None for p in r["points"])')
assert_match "$nrec" '^[1-9][0-9]*$' "points during recoveries ($nrec)"
# every recovery point: named after a point before it, its log beside the
# log, judged by the kernel, and as its state judged (replay is idempotent)
run python3 - "$tmp/r.json" "$log" <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
key = lambda p: (p["verdict"], sorted((f["path"], f["verdict"]) for f in p["findings"]))
parent = None
bad = []
for p in r["points"]:
    if p["recovery_record"] is None:
        parent = p
        continue
    pid, k = p["id"].rsplit("/recovery:", 1)
    if parent is None or parent["id"] != pid or int(k) != p["recovery_record"]:
        bad.append(("not after its state", p["id"]))
    elif not os.path.exists(sys.argv[2] + ".recovery/" + pid.replace("/", "+") + ".pclog"):
        bad.append(("no log", p["id"]))
    elif p["judge"] != "kernel" or p["verdict"] == "not-checked":
        bad.append(("not judged by the kernel", p["id"], p["evidence"]))
    elif key(p) != key(parent):
        bad.append(("not as its state", p["id"], key(p), key(parent)))
print(bad[:3])
sys.exit(1 if bad else 0)
PY
assert_eq "$rc" 0 "recovery points: after their state, logged, judged as it ($out)"
# each repeats its state: counted once, with it, in every total and the
# headline, which are those of the check without them
assert_eq "$(json "$tmp/r.json" 'r["totals"]["recovery_points"], r["totals"]["recovery_repeats"]')" \
  "($nrec, $nrec)" "recovery points that repeat their state"
run powercut check "$log" --json "$tmp/plain.json"
assert_match "$rc" '^[01]$' "checked without them ($err)"
plain_head=$(head -1 <<<"$out")
totals='{k: v for k, v in r["totals"].items() if k not in ("points", "unique", "recovery_points", "recovery_repeats", "not-checked")}'
assert_eq "$(json "$tmp/r.json" "$totals")" "$(json "$tmp/plain.json" "$totals")" "the totals, with and without"
run powercut check "$log" --recovery-crashes
assert_eq "$(head -1 <<<"$out")" "$plain_head" "the headline, with and without"
assert_match "$out" "$nrec hold what the state each recovers held" "the report says so"
assert_eq "$(json "$tmp/r.json" 'any(p["verdict"] == "corrupt" for p in r["points"])')" False \
  "no recovery point corrupt"

# replay: the state, then the recovery's writes to K on top
id=$(json "$tmp/r.json" '[p["id"] for p in r["points"] if p["recovery_record"] is not None][-1]')
parent=${id%/recovery:*}
run powercut replay "$log" --at "$parent" -o "$tmp/p.img"
assert_eq "$rc" 0 "replay of the state ($err)"
run powercut replay "$log" --at "$id" -o "$tmp/k.img"
assert_eq "$rc" 0 "replay --at $id ($err)"
run cmp -s "$tmp/p.img" "$tmp/k.img"
assert_eq "$rc" 1 "the recovery's writes are on top of the state"
run powercut replay "$log" --at "$id" -o "$tmp/kr.img" --recovered
assert_eq "$rc" 0 "replay --at $id --recovered ($err)"
run e2fsck -fn "$tmp/kr.img"
assert_eq "$rc" 0 "recovered again, it is clean ($out)"
run powercut replay "$log" --at "$parent/recovery:99999" -o "$tmp/x.img"
assert_eq "$rc" 2 "a record beyond the recovery's log: refused"
assert_match "$err" 'recovery' "and says which log"

# the recorders and nbdfuse ended, nothing mounted or attached
assert_eq "$(pgrep -f "$tmp/powercut-" | wc -l)" 0 "nothing of the check still runs"
assert_eq "$(findmnt -rn -o TARGET | grep -c "^$tmp" || true)" 0 "nothing left mounted"

run powercut check "$log" --recovery-crashes --judge ext2fs
assert_eq "$rc" 2 "--judge ext2fs: refused"
assert_match "$err" 'not with --judge ext2fs' "and why"
