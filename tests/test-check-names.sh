#!/usr/bin/env bash
# test-check-names.sh: findings are data.  A real ext4 (noauto_da_alloc)
# holds files named with a tab, a newline, '"', <script>, bytes that are
# not UTF-8, a 255-byte name and a 100-deep path, replaced by rename
# without fsync, and 500 new files written without fsync before another
# file's fsync.  Where a crash leaves them empty they are zero-length (the
# 500 too, though absence was allowed), one crash point keeps all 507
# findings intact in the text, JSON, merged and HTML reports, and a check
# in 2 shards, merged, gives exactly the findings of one unsharded check.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"

# The names, NUL-separated (one has a newline, one bytes that are not UTF-8).
printf '%s\0' $'tab\tname' $'new\nline' 'quo"te' '<script>alert(1)</script>' \
    $'bad\xff\xfe' "$(printf 'L%.0s' $(seq 255))" \
    "$(printf 'deep/%.0s' $(seq 99))f" >"$tmp/names"
# ('/' cannot be in a name: the <script> file is named with '_' for it)
sed -i 's|</script>|<_script>|' "$tmp/names"

cat >"$tmp/work.sh" <<'EOF'
#!/bin/bash
set -eu
cd "$POWERCUT_MNT"
mapfile -d '' names <"$NAMES"
for n in "${names[@]}"; do
  mkdir -p "$(dirname "$n")"
  { printf 'version 1 of %s\n' "$n"; head -c 8000 /dev/zero; } >"$n"
done
"$POWERCUT" mark v1 --manifest . --sync
# replaced by rename, without fsync
i=0
for n in "${names[@]}"; do
  t=$(dirname "$n")/new$(( i++ ))
  { printf 'version 2 of %s\n' "$n"; head -c 8000 /dev/zero; } >"$t"
  mv -f "$t" "$n"
done
"$POWERCUT" mark v2 --manifest .
# 500 new files without fsync; another file's fsync commits their inodes
mkdir many
for i in $(seq 1 500); do printf 'many %d\n' "$i" >"many/f$i"; done
dd if=/dev/zero of=other bs=4k count=1 conv=fsync status=none
"$POWERCUT" mark v3 --manifest . --sync
EOF
chmod +x "$tmp/work.sh"
# (--no-trace: the findings of the marks, whose allowed versions are named)
NAMES=$tmp/names run powercut run --settle 0 --quiet --no-trace --mount-opts noauto_da_alloc --out "$tmp/out" \
    -- "$tmp/work.sh"
# the run finds data loss (exit 1)
assert_eq "$rc" 1 "powercut run: exit status (stderr: $err)"
log=$tmp/out/powercut.log

run powercut check "$log" --jobs 2 --json "$tmp/full.json" --html "$tmp/full.html"
assert_eq "$rc" 1 "check: exit status (stderr: $err)"
printf '%s\n' "$out" >"$tmp/full.txt"
for i in 0 1; do
  run powercut check "$log" --shard $i/2 --json "$tmp/s$i.json"
  # (1 if its half of the points has failures, else 0)
  assert_match "$rc" '^[01]$' "check --shard $i/2: exit status (stderr: $err)"
done
run powercut merge "$tmp/s0.json" "$tmp/s1.json" --json "$tmp/merged.json" \
    --html "$tmp/merged.html"
assert_eq "$rc" 1 "merge: exit status (stderr: $err)"
printf '%s\n' "$out" >"$tmp/merged.txt"

# Everything else is read by this Python program; each failed assertion
# prints one line and makes it exit 1.
run python3 - "$tmp" <<'EOF'
import json, re, sys
tmp = sys.argv[1]
names = open(tmp + "/names", "rb").read().split(b"\0")[:-1]
assert len(names) == 7
many = {b"many/f%d" % i for i in range(1, 501)}
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)

def exact(f, key):
    """a finding's field, its exact bytes"""
    if key + "_hex" in f:
        return bytes.fromhex(f[key + "_hex"])
    return f[key].encode()

full = json.load(open(tmp + "/full.json"))
merged = json.load(open(tmp + "/merged.json"))
key = lambda r: [(p["id"], p["verdict"], p["findings"]) for p in r["points"]]
check(key(full) == key(merged), "merged findings differ from the unsharded ones")
# ... and so do the durability windows, every name's versions included,
# the name that is not UTF-8 by its bytes
check(full["windows"] == merged["windows"], "merged windows differ from the unsharded ones")
wpaths = {exact(v, "path") for v in full["windows"]["list"]}
check(many | set(names) <= wpaths, "windows lack names: %r" % ((many | set(names)) - wpaths))
for s in ("s0", "s1"):
    r = json.load(open(tmp + "/%s.json" % s))
    check(r["points"], s + " has no points")

# the point with the most findings holds every name, exactly, as zero-length
big = max(full["points"], key=lambda p: len(p["findings"]))
zl = [f for f in big["findings"] if f["verdict"] == "zero-length"]
paths = {exact(f, "path") for f in zl}
check(len(zl) == 507, "point %s: %d zero-length findings, not 507" % (big["id"], len(zl)))
check(paths == many | set(names), "point %s: paths differ: %r" % (big["id"], (many | set(names)) ^ paths))
check(all(f["found"] == "empty file mode 0644" for f in zl), "a finding is not an empty file")
# the 500 were allowed to be absent: still zero-length, their data at v3
f1 = [f for f in zl if f["path"] == "many/f1"][0]
check(f1["allowed"].startswith("absent at v1, v2; file 7 B"), "many/f1 allowed: " + f1["allowed"])
# a name that is not UTF-8 is shown as such, its bytes kept in path_hex
b = [f for f in zl if "path_hex" in f]
check(len(b) == 1 and b[0]["path"] == '"bad\\xff\\xfe"', "path_hex: %r" % b)

# text reports, unsharded and merged: the point's 507 lines, names quoted
for t in ("full", "merged"):
    raw = open(tmp + "/%s.txt" % t, "rb").read()
    check(b"\t" not in raw and b"\xff" not in raw, t + ".txt holds a raw tab or 0xff")
    block = re.split(rb"\n%s: zero-length[^\n]*\n" % re.escape(big["id"].encode()), raw)[1].split(b"\n\n")[0]
    lines = [l for l in block.split(b"\n") if l.startswith(b"    zero-length ")]
    check(len(lines) == 507, "%s.txt: %d zero-length lines at %s" % (t, len(lines), big["id"]))
    for shown in (b'"tab\\tname"', b'"new\\nline"', b'"quo\\"te"', b'<script>alert(1)<_script>',
                  b'"bad\\xff\\xfe"', b"L" * 255, b"deep/" * 99 + b"f"):
        check(b"    zero-length " + shown + b": found empty file mode 0644" in lines,
              "%s.txt: %r not shown" % (t, shown[:40]))

# HTML pages: valid UTF-8, no markup from a name, the names shown escaped
for h in ("full", "merged"):
    raw = open(tmp + "/%s.html" % h, "rb").read()
    try:
        page = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        bad.append(h + ".html is not UTF-8: " + str(e))
        continue
    check("<script>alert" not in page, h + ".html holds a name's <script> as markup")
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>',
                                page, re.S).group(1))
    c = data["configs"][0]
    row = [f for f in c["failing"] if f["id"] == big["id"]][0]
    shown = [f["path"] for f in row["findings"]]
    check(len(shown) == 507, "%s.html: %d findings at %s" % (h, len(shown), big["id"]))
    for n in ('"tab\\tname"', '"new\\nline"', '"quo\\"te"', "<script>alert(1)<_script>",
              '"bad\\xff\\xfe"'):
        check(n in shown, "%s.html: %s not shown" % (h, n))
        check(any(p["path"] == n for p in c["paths"]), "%s.html: %s not among the paths" % (h, n))
    check(len(c["paths"]) == 507, "%s.html: %d failing paths" % (h, len(c["paths"])))

for b in bad:
    print(b)
print("%d findings at point %s; %d points" % (len(big["findings"]), big["id"], len(full["points"])))
sys.exit(1 if bad else 0)
EOF
echo "$out"
# every finding survived check, JSON, merge, text and HTML
assert_eq "$rc" 0 "reports (see above; stderr: $err)"
