#!/usr/bin/env bash
# test-report-html.sh: the HTML report in a real browser (headless Chromium):
# it loads without script errors, shows the counts report.json has, shows a
# file named like markup as text, and 100,000 crash points render.
source "$top_srcdir/tests/functions.sh"
requires chromium python3

# page FILE: the DOM after the page's scripts ran, into $dom
page ()
{
  dom=$(timeout "$T" chromium --headless --no-sandbox --disable-gpu --disable-quic \
          --no-first-run --disable-background-networking --disable-component-update \
          --disable-sync --user-data-dir="$tmp/profile" --window-size=1300,1400 \
          --dump-dom "file://$1" 2>/dev/null)
}

shot ()
{
  timeout "$T" chromium --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$tmp/profile" --window-size=1300,1400 \
    --screenshot="$2" "file://$1" >/dev/null 2>&1
}

# shown_counts: "verdict=count" of the chips the page shows, sorted
shown_counts () { grep -o 'data-verdict="[a-z-]*" data-count="[0-9]*"' <<<"$dom" | sed 's/data-verdict="\([a-z-]*\)" data-count="\([0-9]*\)"/\1=\2/' | sort | tr '\n' ' '; }
json_counts () { python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; print(" ".join(sorted("%s=%d" % (k, v) for k, v in t.items() if k not in ("points", "unique", "promises", "program_promises", "exposures") and (v or k == "ok"))) + " ")' "$1"; }

# 1. 100,000 crash points (a synthetic report, through merge --html)
python3 - "$tmp/big.json" <<'PY'
import json, sys, random
random.seed(1); n = 100000
V = ["ok", "fs-corrupt", "unmountable", "zero-length", "zero-filled", "missing", "mismatch", "durable-lost"]
tot = dict.fromkeys(V, 0); pts = []
for i in range(n):
    x = random.random()
    v = "ok" if x < 0.97 else "not-checked" if x < 0.972 else random.choice(V[1:])
    tot[v] = tot.get(v, 0) + 1
    p = {"id": str(i), "record": i, "verdict": v, "evidence": []}
    if v == "not-checked":
        p["evidence"] = ["e2fsck -fn did not finish within 1 s (give check a longer --timeout)"]
    if v in V[3:]:
        p["findings"] = [{"verdict": v, "path": "d/f%d" % (i % 50), "found": "empty file", "allowed": "file 5 B"}]
    pts.append(p)
tot["points"] = tot["unique"] = n
json.dump({"schema": 1, "log": "big.log", "model": "flush", "from": "mkfs", "records": n,
           "totals": tot, "points": pts}, open(sys.argv[1], "w"))
PY
run powercut merge -q --html "$tmp/big.html" "$tmp/big.json"
# merge writes the page (exit 2: some points were not checked)
assert_eq "$rc" 2 "merge --html ($err)"
page "$tmp/big.html"
# the page's script ran to its end
assert_match "$dom" 'data-ready="1"' "100k page ready"
# ... without an error
assert_no_match "$dom" 'data-errors=' "100k page script errors"
# the counts shown are the report's
assert_eq "$(shown_counts)" "$(json_counts "$tmp/big.json")" "100k page counts"
# every verdict's chip has a colour of its own (zero-filled too)
colours=$(python3 -c '
import re, sys
seen = {}
for m in re.finditer(r"<span[^>]*>", sys.stdin.read()):
    t = m.group(0)
    v, c = re.search(r"data-verdict=\"([a-z-]+)\"", t), re.search(r"background: ([^;\"]+)", t)
    if v and c:
        seen[v.group(1)] = c.group(1)
print(len(seen), len(set(seen.values())), "zero-filled" in seen)' <<<"$dom")
assert_eq "$colours" "9 9 True" "chips: verdicts shown, distinct colours, zero-filled among them"
# the points not checked are apart from the verdicts: no column of the
# verdicts' legend, a table of their own with why
assert_match "$dom" 'not a verdict: ' "not-checked chip apart"
assert_match "$dom" 'Crash points not checked \([0-9]+' "not-checked table heading"
assert_match "$dom" 'give check a longer --timeout' "not-checked evidence"

# 1b. A traced program's report: an application's checker failing with what
# the state lost (older-version notes and their causes), a finding with a
# cause, and a path the tracer could not follow.
python3 - "$tmp/traced.json" <<'PY'
import json, sys
cause = lambda call, fix: {"class": "what the application lost", "rule": "older than what the program had",
                          "call": call, "pid": 7, "time": 3.214, "durable_at": 8.402,
                          "durable_by": "fsync(3</refs>) = 0", "fix": fix}
pts = [{"id": "1", "record": 1, "verdict": "ok", "evidence": [], "findings": [
          {"verdict": "not-judged", "path": "mapped", "found": "file 8 B", "allowed": "-", "promise": False,
           "cause": {"class": "exposure", "rule": "written where the tracer cannot follow", "call": "mmap(0, 4096, ...)",
                     "pid": 7, "time": 1.0, "durable_at": None}}]},
       {"id": "2", "record": 2, "verdict": "app-invalid",
        "evidence": ["the --verify command exited with status 1:", "lost: 1 of 2 acknowledged commits"],
        "findings": [
          {"verdict": "older-version", "path": "repo/.git/refs/heads/master", "found": "file 41 B",
           "allowed": "what the program had", "promise": False,
           "cause": cause('rename("/repo/.git/refs/heads/master.lock", "/repo/.git/refs/heads/master") = 0',
                          "an fsync of the directory repo/.git/refs/heads after that call")},
          {"verdict": "zero-length", "path": "repo/file1", "found": "empty file", "allowed": "what the program had",
           "promise": False, "cause": {"class": "exposure", "rule": "empty where the program had written data",
                                       "call": "write(1</repo/file1>, \"change 1\\n\", 9) = 9", "pid": 9,
                                       "time": 0.1, "durable_at": None, "fix": "an fsync of repo/file1 after that call"}}]}]
tot = {"points": 2, "unique": 2, "ok": 1, "app-invalid": 1}
json.dump({"schema": 1, "log": "traced.log", "model": "flush", "from": "mkfs", "records": 3, "events": 40,
           "verify": "check.sh", "totals": tot, "points": pts}, open(sys.argv[1], "w"))
PY
run powercut merge -q --html "$tmp/traced.html" "$tmp/traced.json"
assert_eq "$rc" 1 "merge --html of a traced report ($err)"
page "$tmp/traced.html"
assert_match "$dom" 'data-ready="1"' "traced page ready"
assert_no_match "$dom" 'data-errors=' "traced page script errors"
assert_match "$dom" 'What the application lost \(1\)' "the table of what the application lost"
assert_match "$dom" 'fsync of the directory repo/.git/refs/heads after that call' "its fix"
assert_match "$dom" 'rename\(&quot;/repo/.git/refs/heads/master.lock&quot;|rename\("/repo/.git/refs/heads/master.lock"' "its call"
assert_match "$dom" 'Not judged: 1 path\(s\) written by calls the tracer cannot follow' "what the tracer cannot follow"
assert_match "$dom" 'exposure: empty where the program had written data' "a finding's cause"

# 2. A real run whose workload names a file like markup and loses it.
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3
cat >"$tmp/evil.sh" <<'SH'
#!/bin/sh
set -e
f="$POWERCUT_MNT/<img src=x onerror=alert(1)>"
head -c 8192 /dev/urandom > "$f"; sync
powercut mark v1 --manifest "$POWERCUT_MNT" --sync
head -c 8192 /dev/urandom > "$f.tmp"; mv "$f.tmp" "$f"
powercut mark v2 --manifest "$POWERCUT_MNT"
sleep 2
SH
chmod +x "$tmp/evil.sh"
run powercut run --settle 0 --quiet --no-trace --mount-opts noauto_da_alloc,commit=1 --out "$tmp/evil" -- "$tmp/evil.sh"
# the run found the loss (exit 1)
assert_eq "$rc" 1 "run with the markup-named file ($err)"
page "$tmp/evil/report.html"
assert_match "$dom" 'data-ready="1"' "run page ready"
assert_no_match "$dom" 'data-errors=' "run page script errors"
# the counts shown are report.json's
assert_eq "$(shown_counts)" "$(json_counts "$tmp/evil/report.json")" "run page counts"
# the file name is text on the page, not an element
assert_match "$dom" '&lt;img src=x onerror=alert\(1\)&gt;' "file name shown as text"
assert_no_match "$dom" '<img' "no img element"
# the durability windows: a bar for each of the file's two versions, both
# lost after their marks (v1 was synced: acknowledged data lost)
assert_match "$dom" 'Durability windows' "windows heading"
assert_match "$dom" '<canvas class="windows" [^>]*data-bars="2"' "windows bars"
windows=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["windows"]; print(w["versions"], w["exposed_versions"])' "$tmp/evil/report.json")
assert_eq "$windows" "2 2" "report.json windows: versions, exposed"
# red only where data made durable was lost (v1, synced), yellow where it
# was at risk but never promised (v2)
assert_match "$dom" '<canvas class="windows" [^>]*data-red="1"' "one window red: a broken promise"
assert_match "$dom" '<canvas class="windows" [^>]*data-amber="2"' "both at risk after their marks"
# drawn against seconds (#seconds), the page runs as well
page "$tmp/evil/report.html#seconds"
assert_match "$dom" 'data-ready="1"' "run page against seconds ready"
assert_no_match "$dom" 'data-errors=' "run page against seconds script errors"
assert_match "$dom" 'data-axis="seconds"' "timeline against seconds by #seconds"
shot "$tmp/evil/report.html" "$top_builddir/tests/report-html.png"

# 3. Data at risk, never promised: no red on the page.
cat >"$tmp/risk.sh" <<'SH'
#!/bin/sh
set -e
head -c 8192 /dev/urandom > "$POWERCUT_MNT/f"
powercut mark v1 --manifest "$POWERCUT_MNT"
sleep 2
SH
chmod +x "$tmp/risk.sh"
run powercut run --settle 0 --quiet --no-trace --mount-opts commit=1 --out "$tmp/risk" -- "$tmp/risk.sh"
assert_match "$rc" '^[01]$' "run with data never promised ($err)"
assert_eq "$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["windows"]; print(w["exposed_versions"] > 0, w["acknowledged_lost"])' "$tmp/risk/report.json")" \
  "True False" "report.json: lost after its mark, never acknowledged"
page "$tmp/risk/report.html"
assert_match "$dom" 'data-ready="1"' "risk page ready"
assert_match "$dom" '<canvas class="windows" [^>]*data-red="0"' "no red window where nothing was promised"
assert_match "$dom" '<canvas class="windows" [^>]*data-amber="[1-9]' "the window at risk in yellow"
# a screenshot is kept as an artifact
[ -s "$top_builddir/tests/report-html.png" ] || fail "no screenshot"
