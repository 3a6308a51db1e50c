#!/usr/bin/env bash
# test-run-other-fs.sh: XFS and btrfs, which libext2fs does not read,
# recorded and judged by the kernel (fs.h, kjudge.h): powercut run --fs xfs
# and --fs btrfs on a traced command that syncs a file and writes another
# finds no broken promise, every state judged by the kernel and checked by
# the filesystem's own check; an application's checker (--verify) runs on
# the kernel's recovery of every state and fails exactly where the tree
# holds what it fails on; the synced data zeroed in the log (the
# filesystem's bug, made by hand) is a broken promise; explore runs on
# both; a log of them checked with --judge ext2fs is refused.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 mkfs.xfs xfs_repair mkfs.btrfs btrfs
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
export TMPDIR=$tmp

cat >"$tmp/w.sh" <<'SH'
head -c 20000 /dev/zero | tr '\0' 'Q' > data
sync data
echo more > other
sleep 1
SH
for fs in xfs btrfs; do
  run powercut run --quiet --fs "$fs" --settle 0 --out "$tmp/$fs" -- sh "$tmp/w.sh"
  assert_eq "$rc" 0 "$fs: nothing lost ($out $err)"
  r=$tmp/$fs/report.json
  assert_eq "$(json "$r" 'r["fs"]')" "$fs" "$fs: the report names it"
  assert_eq "$(json "$r" 'r["totals"]["points"] > 3 and all(p["judge"] == "kernel" for p in r["points"]) and r["work"]["judged_by_kernel"] == r["totals"]["unique"]')" \
    True "$fs: every state judged by the kernel"
  assert_match "$(cat "$tmp/$fs/report.txt")" "the kernel judged [0-9]+ states: .* then $(json "$r" '{"xfs": "xfs_repair -n", "btrfs": "btrfs check --readonly"}[r["fs"]]')" \
    "$fs: by its own check"
  # its log said as a log; what xfs_repair says of an image file, not of
  # the filesystem, left out of the evidence
  assert_match "$(cat "$tmp/$fs/report.txt")" "$(json "$r" '{"xfs": "its log replayed", "btrfs": "its log tree replayed"}[r["fs"]]') by the mount" \
    "$fs: its log, as a log"
  assert_no_match "$(json "$r" '"\n".join(l for p in r["points"] for l in p["evidence"])')" \
    "host filesystem geometry|journal replayed" "$fs: the evidence"
  # the synced data gone from the log: the filesystem broke its promise
  cp "$tmp/$fs/powercut.log" "$tmp/$fs.edited.log"
  run "$top_builddir/tests/log-edit" "$tmp/$fs.edited.log" zero-data QQQQQQQQQQQQQQQQ
  assert_eq "$rc" 0 "$fs: the synced data in the log ($err)"
  run powercut check "$tmp/$fs.edited.log" --fail-on promises --json "$tmp/$fs.edited.json"
  assert_eq "$rc" 1 "$fs, its synced data zeroed: a broken promise ($err)"
  assert_ge "$(json "$tmp/$fs.edited.json" 'r["totals"]["promises"]')" 1 "$fs, zeroed: points that broke a promise"
  # a second power cut during the kernel's recovery of each XFS state: the
  # points that hold what their state held count once, with it
  [ "$fs" = xfs ] && run powercut check "$tmp/$fs.edited.log" --recovery-crashes --json "$tmp/$fs.rc.json"
  if [ "$fs" = xfs ]; then
    assert_eq "$rc" 1 "$fs, zeroed, --recovery-crashes ($err)"
    assert_eq "$(json "$tmp/$fs.rc.json" 'r["totals"]["promises"], r["totals"]["recovery_points"] > 0')" \
      "($(json "$tmp/$fs.edited.json" 'r["totals"]["promises"]'), True)" \
      "$fs, --recovery-crashes: the broken promises counted once"
    assert_match "$(json "$tmp/$fs.rc.json" 'r["totals"]["recovery_repeats"]')" '^[1-9]' \
      "$fs: recovery points that repeat"
    rm -rf "$tmp/$fs.edited.log.recovery"
  fi
  # the application's checker runs on the kernel's recovery of every
  # state: one that fails where "other" holds its line is app-invalid
  # there and only there, and sees the synced data whole everywhere
  cat >"$tmp/checker.sh" <<SH
#!/bin/sh
echo "\$POWERCUT_POINT \$(cat other 2>/dev/null)" >>"$tmp/$fs.seen"
[ ! -e data ] || [ "\$(tr -d Q <data | wc -c) \$(wc -c <data)" = "0 20000" ] || exit 3
! grep -q more other 2>/dev/null
SH
  chmod +x "$tmp/checker.sh"
  : >"$tmp/$fs.seen"
  run powercut check "$tmp/$fs/powercut.log" -q --verify "$tmp/checker.sh" --json "$tmp/$fs.verify.json"
  assert_eq "$rc" 1 "$fs, --verify: the checker fails somewhere ($err)"
  assert_eq "$(json "$tmp/$fs.verify.json" 'r["totals"]["not-checked"], r["totals"]["app-invalid"] > 0, r["totals"]["ok"] > 0')" \
    "(0, True, True)" "$fs, --verify: every point checked, app-invalid and ok ones"
  assert_eq "$(json "$tmp/$fs.verify.json" 'sorted(p["id"] for p in r["points"] if p["verdict"] == "app-invalid" and not p["same_as"])')" \
    "$(python3 -c 'import sys; print(sorted(l.split()[0] for l in open(sys.argv[1]) if l.split()[1:] == ["more"]))' "$tmp/$fs.seen")" \
    "$fs, --verify: app-invalid exactly where other holds its line"
  # libext2fs does not read it
  run powercut check "$tmp/$fs/powercut.log" --judge ext2fs
  assert_eq "$rc" 2 "$fs, --judge ext2fs: refused ($out)"
  assert_match "$err" "a $fs filesystem: libext2fs does not read it" "$fs, --judge ext2fs: why"
done

# explore: a few of the one-operation workloads on each
run powercut explore --seq 1 --limit 2 --config xfs --config btrfs --out "$tmp/x" --quiet
assert_eq "$rc" 0 "explore on xfs and btrfs ($out $err)"
# each row: both workloads judged, ok or data never made durable lost
# (an exposure: which two the sample takes follows the generator), no
# broken promise, none unchecked, no error
assert_match "$out" '^xfs +2 +[0-2] +0 +[0-2] +0 +0 +0$' "explore: xfs's row"
assert_match "$out" '^btrfs +2 +[0-2] +0 +[0-2] +0 +0 +0$' "explore: btrfs's row"
assert_eq "$(python3 -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
print(sum(1 for r in rs if not r["promise"] and r["outcome"] not in ("error", "unsupported", "not-checked")))' \
  "$tmp/x/results.jsonl")" 4 "explore: every workload judged, no promise broken"

# nothing left in the scratch (TMPDIR): no check's folder, no mount point
# of the end's tree (each check of XFS and btrfs above made one)
assert_eq "$(ls -d "$tmp"/powercut-check.* 2>/dev/null || true)" "" "no check's scratch folder left"

# a filesystem this machine's kernel cannot mount (f2fs here) is judged in
# a guest, which runs no checker of this machine's: --verify is refused
# before anything is recorded
if ! grep -qw f2fs /proc/filesystems && ! modinfo f2fs >/dev/null 2>&1; then
  run powercut run --quiet --fs f2fs --verify true --out "$tmp/f2fs-verify" -- true
  assert_eq "$rc" 2 "f2fs here, --verify: refused ($out)"
  assert_match "$err" "cannot mount it.*runs no checker" "f2fs, --verify: why"
  assert_eq "$(find "$tmp/f2fs-verify" -name powercut.log | wc -l)" 0 "f2fs, --verify: nothing recorded"
fi
run powercut run --quiet --judge guest --verify true --out "$tmp/guest-verify" -- true
assert_eq "$rc" 2 "--judge guest --verify: refused ($out)"
assert_eq "$(find "$tmp/guest-verify" -name powercut.log | wc -l)" 0 "--judge guest --verify: nothing recorded"
