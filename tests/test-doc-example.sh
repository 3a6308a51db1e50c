#!/usr/bin/env bash
# test-doc-example.sh: powercut-check(1)'s example report has today's
# layout.  powercut check on a real recording (tests/golden/rename-noauto:
# replace-rename on noauto_da_alloc, the kind of recording the example
# checks) gives a text report and a JSON report; the example's lines have
# the same shapes in the same order (the headline and its second line,
# the counts, whose fault, files affected and each line of a file's
# block, the durability windows, the failing points and each line of a
# point), and its JSON point has the same keys in the same order, in
# the point, a finding and its cause.
source "$top_srcdir/tests/functions.sh"
requires e2fsck python3

page=$top_srcdir/man/powercut-check.1
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/powercut.log"
run powercut check "$tmp/powercut.log" --json "$tmp/report.json"
assert_eq "$rc" 1 "check of the recording ($err)"
printf '%s\n' "$out" >"$tmp/report.txt"

problems=$(python3 - "$page" "$tmp/report.txt" "$tmp/report.json" <<'PY'
import json, re, sys
page, text, js = sys.argv[1:]
man = open(page).read()

def unroff(s):
    return (s.replace("\\-", "-").replace("\\(aq", "'").replace("\\(dq", '"')
             .replace("\\e", "\\"))

# the example: the lines between the check command and "$ echo $?"
m = re.search(r"^\$ powercut check powercut\.log \\-\\-json report\.json\n(.*?)^\$ echo \$\?\n",
              man, re.S | re.M)
if not m:
    sys.exit("powercut-check(1): no example of powercut check powercut.log --json report.json")
example = unroff(m.group(1)).split("\n")

SHAPES = [
    ("headline", r"^(LOST at|THE FILESYSTEM BROKE|THE KERNEL'S|nothing lost)"),
    ("one sample", r"^one run is one sample of the kernel's timing"),
    ("lost:", r"^lost: "),
    ("powercut check:", r"^powercut check: "),
    ("model", r"^model [a-z]+"),
    ("crash points", r"^\d+ crash points?, \d+ distinct images? checked in "),
    ("ok count", r"^  ok +\d+$"),
    ("whose fault:", r"^whose fault: "),
    ("files affected:", r"^files affected: \d+$"),
    ("a file's block", r"^  \S.*: \d+ points? \(\S+ \.\. \S+\): "),
    ("its point", r"^      (the first, \S+, )?at \S+: [a-z-]+, found "),
    ("allowed:", r"^      allowed: "),
    ("rule:", r"^      rule:    "),
    ("durable:", r"^      durable: "),
    ("fix:", r"^      fix:     "),
    ("durability windows", r"^durability windows \("),
    ("versions", r"^  \d+ versions?: "),
    ("failing crash points", r"^failing crash points, the most telling first:$"),
    ("first failing", r"^first failing crash point: \S+ \([a-z-]+\)$"),
    ("a point", r"^\S+: [a-z-]+ \((the|nobody's) "),
    ("on the disk", r"^    on the disk from "),
    ("a finding", r"^    [a-z-]+ \S+: found "),
    ("why:", r"^    why: "),
    ("rebuild:", r"^    rebuild: powercut replay "),
]

def shapes(lines):
    seen = []
    for l in lines:
        for name, rx in SHAPES:
            if re.search(rx, l) and name not in seen:
                seen.append(name)
    return seen

got, want = shapes(example), shapes(open(text).read().split("\n"))
out = []
if got != want:
    out.append("the example's text report: its lines' shapes\n  %s\nbut a real report's\n  %s"
               % (", ".join(got), ", ".join(want)))

# the JSON point: keys in order, at each level (by indentation)
m = re.search(r"^One point of the JSON report:\n\.PP\n\.EX\n(\{\n.*?^\})\n\.EE", man, re.S | re.M)
if not m:
    out.append("powercut-check(1): no JSON point after 'One point of the JSON report:'")
else:
    def keys(lines):
        by = {}
        for l in lines:
            k = re.match(r'^( *)"([a-z_]+)":', l)
            if k:
                by.setdefault(len(k.group(1)), []).append(k.group(2))
        return by
    ex = keys(unroff(m.group(1)).split("\n"))
    r = json.load(open(js))
    p = next(p for p in r["points"] if p["findings"] and "cause" in p["findings"][0])
    p = dict(p, findings=p["findings"][:1])
    real = keys(json.dumps(p, indent=2, separators=(",", ":")).split("\n"))
    for depth, what in ((2, "point"), (6, "finding"), (8, "cause")):
        if ex.get(depth) != real.get(depth):
            out.append("the example's JSON %s has the keys %s, a real one %s"
                       % (what, ex.get(depth), real.get(depth)))
print("\n".join(out))
PY
)
assert_eq "$problems" "" "powercut-check(1)'s example"
