#!/usr/bin/env bash
# test-acks.sh: what a program acknowledged, and a crash lost, named
# without a checker.  A small key-value store writes each record through a
# shared writable mapping (no msync, no fsync) and prints "ok N" after
# each: the tracer reads the mapped file at each acknowledgement, so the
# stores are versions the oracle knows, and every crash state whose file
# holds less than the program had by its last "ok" is an ack-lost finding,
# the program's fault, quoting the line, the file and the missing sync.
# With a checker that reads every acknowledged record (and an unsynced
# log beside the store, which it does not read): its app-invalid points
# name the store, whose acknowledged version makes it pass, as ack-lost
# (the program's fault), and the log as not needed.
# The same store with an msync(MS_SYNC) before each "ok": nothing lost.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 4 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

cat >"$tmp/kv.py" <<'PY'
import mmap, os, sys, time
sync = sys.argv[1:] == ["sync"]
log = sys.argv[1:] == ["log"]
fd = os.open("kv.db", os.O_CREAT | os.O_RDWR, 0o644)
os.ftruncate(fd, 8 * 4096)
os.fsync(fd)
m = mmap.mmap(fd, 8 * 4096)
for i in range(1, 6):
    m[i * 4096:(i + 1) * 4096] = (b"KEY%03d=" % i) * 585 + b"\n"
    if sync:
        m.flush()                       # msync(MS_SYNC) of the mapping
    if log:
        with open("kv.log", "a") as f:  # never synced, never read back
            f.write("stored %d\n" % i)
    print("ok %d" % i, flush=True)
    time.sleep(0.1)
m.close()
os.close(fd)
PY

run powercut run --settle 0 -q -O "$tmp/out" -- python3 "$tmp/kv.py"
assert_eq "$rc" 1 "stores acknowledged, never synced: problems found ($err)"
r=$tmp/out/report.json
assert_eq "$(json "$r" 'r["totals"]["promises"], r["totals"]["acknowledged_lost"] > 0, r["totals"]["ack-lost"] > 0')" \
  "(0, True, True)" "ack-lost points, no broken promise"
assert_eq "$(json "$r" 'sorted({(f["path"], f["fault"]) for p in r["points"] for f in p["findings"] if f["verdict"] == "ack-lost"})')" \
  "[('kv.db', 'program')]" "the file, the program's fault"
# each quotes the last line printed by its state's moment: "ok 5" at the
# states of the end (a loaded machine may commit earlier ones too)
acked=$(json "$r" 'sorted({f["cause"]["acknowledged"] for p in r["points"] for f in p["findings"] if f["verdict"] == "ack-lost"})')
assert_match "$acked" "'ok 5'\]$" "the last line it printed ($acked)"
assert_match "$acked" "^\[('ok [1-5]', )*'ok 5'\]$" "only lines it printed ($acked)"
assert_match "$(json "$r" '[f["cause"]["fix"] for p in r["points"] for f in p["findings"] if f["verdict"] == "ack-lost"][0]')" \
  "msync.MS_SYNC. of the mapping of kv.db" "the sync that would have kept it: the mapping's"
assert_match "$(cat "$tmp/out/report.txt")" 'acked: +"ok 5"' "the text report quotes the line"
assert_match "$(head -1 "$tmp/out/report.txt")" "program's fault: it acknowledged" "the headline says whose fault"
# the judgements kept from state to state give what judging each anew does
for m in flush write; do
  powercut check "$tmp/out/powercut.log" -m $m -q --json "$tmp/a.json" || true
  powercut check "$tmp/out/powercut.log" -m $m -q --plain --json "$tmp/b.json" || true
  same_findings "$tmp/a.json" "$tmp/b.json" || fail "$m: the kept judgements differ from the plain method"
done
run powercut check "$tmp/out/powercut.log" -q --fail-on promises
assert_eq "$rc" 0 "no promise of the filesystem broken ($err)"
run powercut check "$tmp/out/powercut.log" -q --fail-on program
assert_eq "$rc" 1 "the program's fault fails --fail-on program ($err)"
# The stores are seen at each acknowledgement: one snapshot per "ok".
assert_eq "$(powercut log --dump "$tmp/out/powercut.log" | grep -c 'event exit .*seen at an acknowledgement')" 5 \
  "the mapped file read at each acknowledgement"

cat >"$tmp/check.py" <<'PY'
import os, sys
acked = [int(l.split()[1]) for l in open(os.environ["POWERCUT_ACKS_FILE"]) if l.startswith("ok ")]
data = open("kv.db", "rb").read() if os.path.exists("kv.db") else b""
for i in acked:
    if data[i * 4096:i * 4096 + 7] != b"KEY%03d=" % i:
        sys.exit("lost: acknowledged record %d" % i)
PY
run powercut run --settle 0 -q -O "$tmp/verify" --verify "python3 $tmp/check.py" -- python3 "$tmp/kv.py" log
assert_eq "$rc" 1 "the checker fails where acknowledged records are lost ($err)"
r=$tmp/verify/report.json
assert_eq "$(json "$r" 'r["totals"]["app-invalid"] > 0, r["totals"]["promises"], r["totals"]["acknowledged_lost"] == r["totals"]["app-invalid"]')" \
  "(True, 0, True)" "app-invalid points, each losing what was acknowledged, no broken promise"
assert_eq "$(json "$r" 'sorted({(f["path"], f["verdict"], f["fault"]) for p in r["points"] if p["verdict"] == "app-invalid" for f in p["findings"] if f["verdict"] in ("ack-lost", "older-version")})')" \
  "[('kv.db', 'ack-lost', 'program'), ('kv.log', 'older-version', 'none')]" \
  "the store named by the restore test, the log not needed"
assert_match "$(json "$r" '[f["cause"]["rule"] for p in r["points"] for f in p["findings"] if f["path"] == "kv.log"][0]')" \
  "passes without this path" "why the log is not what it needed"
run powercut check "$tmp/verify/powercut.log" -q --verify "python3 $tmp/check.py" --fail-on program
assert_eq "$rc" 1 "--fail-on program fails ($err)"
run powercut check "$tmp/verify/powercut.log" -q --verify "python3 $tmp/check.py" --fail-on promises
assert_eq "$rc" 0 "--fail-on promises passes ($err)"

run powercut run --settle 0 -q -O "$tmp/sync" -- python3 "$tmp/kv.py" sync
assert_eq "$rc" 0 "each store msync'd before its ok: nothing lost ($out $err)"
assert_eq "$(json "$tmp/sync/report.json" 'r["totals"]["acknowledged_lost"], r["totals"]["not-checked"]')" "(0, 0)" \
  "nothing acknowledged lost"

# The fault follows the version lost, not its form.  A store created
# empty and fsync'd once, then appended to with an "ok" after each record,
# its writeback started (sync_file_range without a wait) and never synced:
# a crash state holding it empty, or older (fewer records), or at its size
# with a record's block still zeros (the log edited so that record's data
# reads as zeros where it reached the disk) lost what the program
# acknowledged: ack-lost, the program's fault, in all three forms.  A
# scratch file fsync'd and deleted between two lines, and an index never
# synced beside the store (as SQLite's -shm), lose nothing acknowledged.
cat >"$tmp/store.py" <<'PY'
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
s = os.open("scratch", os.O_CREAT | os.O_WRONLY, 0o644)
os.write(s, b"scratch\n")
os.fsync(s)
os.close(s)
os.unlink("scratch")
print("ready", flush=True)
fd = os.open("kv.db", os.O_CREAT | os.O_WRONLY, 0o644)
os.fsync(fd)
for i in range(1, 6):
    os.write(fd, (b"REC%03d " % i) * 585 + b"\n")
    # start writeback, wait for nothing (SYNC_FILE_RANGE_WRITE)
    libc.sync_file_range(fd, ctypes.c_int64(0), ctypes.c_int64(0), 2)
    with open("kv.idx", "w") as f:      # rebuilt from kv.db, never synced
        f.write("%d\n" % i)
    print("ok %d" % i, flush=True)
    time.sleep(0.7)                     # a journal commit (commit=1) or more
time.sleep(2)
os.close(fd)
PY
run powercut run --settle 0 -q -O "$tmp/forms" --config 'ext4 commit=1' -- python3 "$tmp/store.py"
assert_eq "$rc" 1 "appends acknowledged, never synced: problems found ($err)"
cp "$tmp/forms/powercut.log" "$tmp/zeroed.log"
"$top_builddir/tests/log-edit" "$tmp/zeroed.log" zero-block "REC003 " >/dev/null
powercut check "$tmp/zeroed.log" -q --json "$tmp/zeroed.json" || true
forms='sorted({("empty" if f["found"].startswith("empty") else "zeros" if "blocks all zeros" in f["found"] else "older", f["fault"]) for p in r["points"] for f in p["findings"] if f["path"] == "kv.db" and f["verdict"] == "ack-lost"})'
assert_eq "$(json "$tmp/zeroed.json" "$forms")" \
  "[('empty', 'program'), ('older', 'program'), ('zeros', 'program')]" \
  "ack-lost, the program's fault, found empty, older and with zeros"
assert_eq "$(json "$tmp/forms/report.json" 'sorted({(f["path"], f["verdict"]) for p in r["points"] for f in p["findings"] if f["path"] != "kv.db" or f["fault"] != "program"})')" \
  "[]" "nothing but kv.db's acknowledged loss (the scratch file and the index: no finding)"
# (in the edited log, states after powercut's own sync lost durable data:
# the filesystem's, as the edit made them)
assert_eq "$(json "$tmp/zeroed.json" 'sorted({(f["path"], f["verdict"]) for p in r["points"] for f in p["findings"] if f["path"] != "kv.db"})')" \
  "[]" "the scratch file and the index: no finding in the edited log"


# --acks: which lines acknowledge.  On the same log, none: nothing
# acknowledged, nothing lost; a regular expression: only the lines it
# matches are quoted.  A bad one is a one-line usage error.
run powercut check "$tmp/forms/powercut.log" -q --acks none --json "$tmp/none.json"
assert_eq "$rc" 0 "--acks none: nothing acknowledged, nothing lost ($err)"
assert_eq "$(json "$tmp/none.json" 'r["totals"]["acknowledged_lost"]')" 0 "--acks none: no ack-lost"
powercut check "$tmp/forms/powercut.log" -q --acks 'ok [12]$' --json "$tmp/two.json" || true
assert_match "$(json "$tmp/two.json" 'sorted({f["cause"]["acknowledged"] for p in r["points"] for f in p["findings"] if f["verdict"] == "ack-lost"})')" \
  "^\[('ok [12]'(, )?)+\]$" "--acks REGEX: only the lines it matches are acknowledgements"
run powercut check "$tmp/forms/powercut.log" -q --acks '('
assert_eq "$rc" 2 "--acks with a bad regular expression"
assert_match "$err" "^powercut check: --acks \(: not a regular expression" "one line says why"
# run --acks: only the matching lines are logged, and the checker's file
# holds only them
cat >"$tmp/progress.sh" <<'SH'
#!/bin/sh
echo "Unpacking thing"; echo data >f; echo "ok 1"; echo "Setting up thing"
SH
cat >"$tmp/okonly.sh" <<'SH'
#!/bin/sh
! grep -qv '^ok ' "$POWERCUT_ACKS_FILE"
SH
chmod +x "$tmp/progress.sh" "$tmp/okonly.sh"
run powercut run --settle 0 -q -O "$tmp/sel" --acks '^ok ' --verify "$tmp/okonly.sh" -- "$tmp/progress.sh"
assert_eq "$rc" 0 "run --acks: the checker sees only the ok lines ($err)"
assert_eq "$(powercut log --dump "$tmp/sel/powercut.log" | awk '$5 == "ack" { print $8, $9 }' | tr '\n' ' ')" \
  "ok 1 " "only the matching line is logged"
assert_match "$(cat "$tmp/sel/workload.txt")" "Setting up thing" "every line still reaches the output"
