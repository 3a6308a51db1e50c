#!/usr/bin/env bash
# test-check-kernel-judge.sh: every crash state judged by this machine's
# kernel (check --judge kernel: a private copy on a loop device, mounted
# writable as a boot mounts it, its journal replayed, its files read, e2fsck -fn
# after) gives the verdicts and findings the libext2fs judge gives, point
# by point, on real recordings: the seed's replace-rename on
# noauto_da_alloc (zero-length files) and a traced program with extended
# attributes, ACLs, links and a rename.  Nothing stays mounted or attached,
# also when the check is interrupted while it mounts states.  Not root:
# --judge kernel is refused with one line.  --judge both: the seed's
# states agree both ways; on -O fast_commit, e2fsck's replay disagrees
# with the kernel's at some states: recovery-differs, the recovery's
# fault, failing under every --fail-on.  Without a journal the kernel
# judge runs the boot's e2fsck -p first, as libext2fs's does.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck setpriv
T=$(( T * 3 ))

# same_points A.json B.json: the points' ids, verdicts and findings
# (path, verdict, fault) agree; prints what differs
same_points ()
{
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda r: {p["id"]: (p["verdict"], sorted((f["path"], f["verdict"], f.get("fault"))
                                                 for f in p["findings"])) for p in r["points"]}
ka, kb = key(a), key(b)
diff = sorted(k for k in ka.keys() | kb.keys() if ka.get(k) != kb.get(k))
for k in diff[:5]:
    print(k, ka.get(k), kb.get(k))
sys.exit(1 if diff else 0)
PY
}
# loop devices over a file of this test's (the checks' scratch is in $tmp)
loops () { losetup -a | grep -c "$tmp" || true; }
loops0=0
# the loop devices over $tmp once they have let go (a device set to clear
# itself on its last close goes a moment after its last user: a probe may
# still hold it), waiting up to 5 s
loops_settled ()
{
  local i
  for (( i = 0; i < 50; i++ )); do
    [ "$(loops)" != "$loops0" ] || break
    sleep 0.1
  done
  loops
}
export TMPDIR=$tmp

# 1. the seed on noauto_da_alloc
run powercut run --quiet --workload replace-rename --mount-opts noauto_da_alloc --files 6 \
    --out "$tmp/seed"
assert_match "$rc" '^[01]$' "seed recorded ($err)"
log=$tmp/seed/powercut.log
run powercut check "$log" --judge ext2fs --json "$tmp/e2.json"
rc_e2=$rc
run powercut check "$log" --judge kernel --json "$tmp/k.json"
assert_eq "$rc" "$rc_e2" "seed: the kernel's exit status is libext2fs's ($err)"
run same_points "$tmp/e2.json" "$tmp/k.json"
assert_eq "$rc" 0 "seed: the kernel's points are libext2fs's ($out)"
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
assert_eq "$(json "$tmp/k.json" 'all(p["judge"] == "kernel" for p in r["points"]) and r["work"]["judged_by_kernel"] == r["totals"]["unique"]')" \
  True "seed: every state judged by the kernel"
assert_eq "$(json "$tmp/e2.json" 'any(p["judge"] == "kernel" for p in r["points"])')" False \
  "seed, --judge ext2fs: none by the kernel"
assert_match "$(powercut check "$log" --judge kernel)" 'the kernel judged [0-9]+ states' "seed: the report says who judged"
assert_eq "$(findmnt -rn -o TARGET | grep -c "^$tmp" || true)" 0 "seed: nothing left mounted"
assert_eq "$(loops_settled)" "$loops0" "seed: no loop device left attached"

# 2. a traced program: attributes, a POSIX ACL, a hard link, a symlink, a
# rename over a file, a sparse file, a directory
cat >"$tmp/w.py" <<'PY'
import os, struct
def acl(*e):
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in e)
os.mkdir("d")
with open("d/a", "wb") as f:
    f.write(b"a" * 5000)
os.setxattr("d/a", "user.k", b"v1")
os.setxattr("d/a", "system.posix_acl_access",
            acl((1, 6, 0xffffffff), (2, 4, 1234), (4, 4, 0xffffffff), (0x10, 4, 0xffffffff), (0x20, 4, 0xffffffff)))
os.link("d/a", "d/hard")
os.symlink("a", "d/sym")
os.sync()
with open("d/a.new", "wb") as f:
    f.write(b"b" * 9000)
os.replace("d/a.new", "d/a")
with open("sparse", "wb") as f:
    f.seek(1 << 20)
    f.write(b"end")
os.setxattr("sparse", "user.k", b"v2")
PY
run powercut run --quiet --config ext4 --settle 2 --out "$tmp/t" -- python3 "$tmp/w.py"
assert_match "$rc" '^[01]$' "traced recorded ($err)"
log=$tmp/t/powercut.log
run powercut check "$log" --judge ext2fs --json "$tmp/te2.json"
rc_e2=$rc
run powercut check "$log" --judge kernel --json "$tmp/tk.json" -j 2
assert_eq "$rc" "$rc_e2" "traced: the kernel's exit status is libext2fs's ($err)"
run same_points "$tmp/te2.json" "$tmp/tk.json"
assert_eq "$rc" 0 "traced: the kernel's points are libext2fs's ($out)"
assert_ge "$(json "$tmp/tk.json" 'r["work"]["judged_by_kernel"]')" 5 "traced: states the kernel judged"

# 3. interrupted while its workers mount states: nothing left behind
powercut check "$log" --judge kernel -j 2 -q --workdir "$tmp" >/dev/null 2>&1 &
pid=$!
sleep 0.3
kill -INT "$pid" 2>/dev/null || true
wait "$pid" || true
assert_eq "$(findmnt -rn -o TARGET | grep -c "^$tmp" || true)" 0 "interrupted: nothing left mounted"
assert_eq "$(loops_settled)" "$loops0" "interrupted: no loop device left attached"

# 4. not root: refused, one line (the program and the log copied where
# another user reaches them: the checkout may be in a private folder)
mkdir -m 0755 "$tmp/pub"
cp "$log" "$tmp/pub/log"
cp "$POWERCUT" "$tmp/pub/powercut"
chmod 0644 "$tmp/pub/log"
chmod 0755 "$tmp/pub/powercut"
chmod o+x "$tmp"
run setpriv --reuid 65534 --regid 65534 --clear-groups env TMPDIR="$tmp/pub" \
    $POWERCUT_WRAPPER "$tmp/pub/powercut" check "$tmp/pub/log" --judge kernel -q
assert_eq "$rc" 2 "not root, --judge kernel: refused ($out $err)"
assert_match "$err" 'kernel judge .* needs root' "not root: why"
assert_eq "$(wc -l <<<"$err")" 1 "not root: one line"

# 5. --judge both: the seed's states, recovered both ways, agree; on
# -O fast_commit (two fsync'd pwrites, the smallest workload that shows
# it), e2fsck's replay of fast commits is not the kernel's: the points
# where they disagree are recovery-differs, the recovery's fault, and fail
# the check under every --fail-on; each shows both recoveries side by
# side, with what the oracle finds in the files of each
run powercut check "$tmp/seed/powercut.log" --judge both --json "$tmp/both.json"
assert_eq "$(json "$tmp/both.json" 'r["totals"]["recovery-differs"]')" 0 "seed, both: nothing differs"
run same_points "$tmp/e2.json" "$tmp/both.json"
assert_eq "$rc" 0 "seed, both: the points libext2fs gives ($out)"
cat >"$tmp/fc.sh" <<'SH'
xfs_io -f -c "pwrite 0 4096" -c fsync a
xfs_io -c "pwrite 4096 4096" -c fsync a
SH
run powercut run --quiet --config ext4 --mkfs-opts '-b 4096 -O fast_commit' --settle 0 \
    --out "$tmp/fc" -- sh "$tmp/fc.sh"
assert_eq "$rc" 0 "fast_commit recorded, the kernel judging what needs it: nothing lost ($err)"
run powercut check "$tmp/fc/powercut.log" --judge both --fail-on promises --json "$tmp/fcb.json"
assert_eq "$rc" 1 "fast_commit, both, --fail-on promises: recovery-differs fails ($err)"
assert_eq "$(json "$tmp/fcb.json" 'r["totals"]["recovery_differs"] > 0 and r["totals"]["recovery_differs"] == r["totals"]["recovery-differs"]')" \
  True "fast_commit, both: points where the recoveries differ"
assert_eq "$(json "$tmp/fcb.json" 'all(p["fault"] == "recovery" and p["findings"][0]["path"] == "" and p["findings"][0]["found"].startswith("the kernel: ") and p["findings"][0]["allowed"].startswith("e2fsck: ") for p in r["points"] if p["verdict"] == "recovery-differs")')" \
  True "fast_commit, both: each says both results"
assert_match "$out" "^THE KERNEL'S AND E2FSCK'S RECOVERIES DISAGREE" "fast_commit, both: the headline"
# each side's files judged too (e2fsck's also where its check finds the
# state corrupt), and in the text report every such point's section shows
# the two side by side
assert_eq "$(json "$tmp/fcb.json" 'all("; its files: " in p["findings"][0]["found"] and ("; its files: " in p["findings"][0]["allowed"] or "unmountable" in p["findings"][0]["allowed"]) for p in r["points"] if p["verdict"] == "recovery-differs")')" \
  True "fast_commit, both: each side's files judged, where it could be read"
assert_eq "$(json "$tmp/fcb.json" 'any(p["findings"][0]["allowed"].startswith("e2fsck: fs-corrupt") and "; its files: a " in p["findings"][0]["allowed"] for p in r["points"] if p["verdict"] == "recovery-differs")')" \
  True "fast_commit, both: e2fsck's side, corrupt, compared file by file: the file it lost named"
sides=$(grep -c 'recovery-differs: the two recoveries of this state, side by side' <<<"$out" || true)
assert_ge "$sides" 1 "fast_commit, both: sections with both recoveries"
assert_eq "$(grep -c '^      the kernel: ' <<<"$out")" "$sides" "fast_commit, both: the kernel's side in each"
assert_eq "$(grep -c '^      e2fsck: ' <<<"$out")" "$sides" "fast_commit, both: e2fsck's side in each"

# 6. explore --judge both on fast_commit: the O_SYNC appends whose
# recoveries disagree fail the exploration (exit 1 under the default
# --fail-on promises), in a column of their own, as the recovery's fault;
# a failure's reproduce line keeps the judge and the configuration (its
# quotes) as one word of the shell
label="ext4 mkfs='-b 4096 -O fast_commit'"
run powercut explore --seq 1 --only 'swrite.append f0' --config "$label" --judge both --out "$tmp/xb" --quiet
assert_eq "$rc" 1 "explore, both: recovery-differs fails it ($err)"
assert_match "$(head -1 <<<"$out")" " recovery-differs$" "explore, both: the table's column"
assert_match "$out" "swrite.append +recovery-differs recovery +[1-9]" "explore, both: the recovery's fault"
repro=$(sed -n 's/^#   reproduce: *//p' "$tmp/xb/failures/1.sh")
eval "set -- $repro"
assert_eq "$1 $2 $3 $4 $5 $6" "powercut run --config $label --judge both" "explore, both: the reproduce line's words"

# 7. without a journal a boot runs e2fsck -p before it mounts: the kernel
# judge too, and where e2fsck -p stops (an rmdir cut in half), e2fsck -fy
# as a person does; so its points are libext2fs's, fsck-by-hand among
# them, and under --judge both nothing differs
cat >"$tmp/nj.sh" <<'SH'
mkdir -p a/b c
echo x > a/f
sync
rm -rf a
mkdir c/d
sync c
SH
run powercut run --quiet --config ext4 --mkfs-opts '-O ^has_journal' --settle 0 \
    --out "$tmp/nj" -- sh "$tmp/nj.sh"
assert_match "$rc" '^[01]$' "no journal: recorded ($err)"
run powercut check "$tmp/nj/powercut.log" --judge ext2fs --json "$tmp/nje2.json"
assert_ge "$(json "$tmp/nje2.json" 'r["totals"]["fsck-by-hand"]')" 1 "no journal: a state e2fsck -p stops at"
run powercut check "$tmp/nj/powercut.log" --judge kernel --json "$tmp/njk.json"
run same_points "$tmp/nje2.json" "$tmp/njk.json"
assert_eq "$rc" 0 "no journal: the kernel's points are libext2fs's ($out)"
assert_match "$(json "$tmp/njk.json" '[p["evidence"] for p in r["points"] if p["verdict"] == "fsck-by-hand"][0]')" \
  'e2fsck -fy' "no journal, the kernel: e2fsck -fy before the mount"
run powercut check "$tmp/nj/powercut.log" --judge both --json "$tmp/njb.json"
assert_eq "$(json "$tmp/njb.json" 'r["totals"]["recovery-differs"]')" 0 "no journal, both: nothing differs"
assert_eq "$(findmnt -rn -o TARGET | grep -c "^$tmp" || true)" 0 "no journal: nothing left mounted"
