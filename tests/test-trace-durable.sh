#!/usr/bin/env bash
# test-trace-durable.sh: promises apart from exposure, for every source of
# durability a traced program has: O_SYNC, O_DSYNC, RWF_SYNC, RWF_DSYNC,
# fsync, fdatasync, msync(MS_SYNC), sync, syncfs, a mark that declares the
# file durable (powercut mark --durable), and the fsync of a directory.  tests/trace/durable.py makes one block durable by each, then
# writes a file it never syncs.  As recorded, its only losses are that
# file's (exposure): check --fail-on promises exits 0, and the report
# counts the exposure.  Then the durable block (or the directory entry) is
# zeroed in the log, as a disk that lost it would: the loss is a broken
# promise after the call that made it durable, whatever shape it takes,
# and --fail-on promises exits 1.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

prog=$top_srcdir/tests/trace/durable.py
exposed=0
for src in fsync fdatasync osync odsync rwf_sync rwf_dsync msync sync syncfs mark dir; do
  out_dir=$tmp/$src
  run powercut run --settle 0 --quiet --config ext4 --out "$out_dir" -- python3 "$prog" "$src"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$src: run exit $rc ($err)"
  # as recorded: nothing durable lost; but a mark only declares f durable
  # (nothing syncs it), so a crash before the next commit may lose it: a
  # promise the program made and broke, named as the mark's
  run powercut check "$out_dir/powercut.log" --fail-on promises --json "$tmp/$src.json"
  [ "$src" = mark ] || assert_eq "$rc" 0 "$src: check --fail-on promises of the recording ($out)"
  n=$(python3 - "$tmp/$src.json" "$src" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["points"]:
    for f in p["findings"]:
        if f.get("promise"):
            assert sys.argv[2] == "mark" and f["path"] == "f", (p["id"], f)
            assert f["cause"]["durable_by"] == "the mark declared", f
print(r["totals"]["exposures"])
PY
) || fail "$src: the recording's findings"
  exposed=$((exposed + n))

  # the durable block lost from the disk
  cp "$out_dir/powercut.log" "$tmp/$src.log"
  unit=$(python3 -c 'import sys; print(("D:" + sys.argv[1]).ljust(16, "."))' "$src")
  run "$top_builddir/tests/log-edit" "$tmp/$src.log" zero-data "$unit"
  assert_eq "$rc" 0 "$src: the block in the log ($err)"
  if [ "$src" = dir ]; then
    run "$top_builddir/tests/log-edit" "$tmp/$src.log" zero-data entry
    assert_eq "$rc" 0 "$src: the entry in the log ($err)"
  fi
  run powercut check "$tmp/$src.log" --fail-on promises --json "$tmp/$src-lost.json"
  assert_eq "$rc" 1 "$src: check --fail-on promises after the loss ($out)"
  # the points after the durable call: each a broken promise (a finding on
  # the file that says so, or the filesystem itself broken)
  python3 - "$tmp/$src-lost.json" "$src" <<'PY' || fail "$src: findings after the loss"
import json, sys
r = json.load(open(sys.argv[1]))
src = sys.argv[2]
path = "d/entry" if src == "dir" else "f"
broken = 0
for p in r["points"]:
    mine = [f for f in p["findings"] if f["path"] == path]
    if any(f.get("promise") for f in mine) or p["verdict"] in ("fs-corrupt", "unmountable"):
        broken += 1
    for f in mine:
        assert "cause" in f and f["cause"]["rule"], (p["id"], f)
assert broken >= 1, (src, r["totals"])
assert r["totals"]["promises"] >= 1, r["totals"]
PY
done
# the file never synced was lost somewhere, and reported as exposure
assert_ge "$exposed" 1 "exposures in the recordings"
