#!/usr/bin/env bash
# test-check-verify.sh: check --verify CMD, an application's own checker.
# 1. A checker that hashes the tree it is given sees, at every crash point
#    where it runs, exactly the tree e2fsprogs reads from that point's
#    recovered image (powercut replay, e2fsck, debugfs rdump), and the
#    marks placed by the point's moment.
# 2. On a real ext4 where a file named bad comes and goes, a checker that
#    fails when bad exists makes exactly the points whose tree holds it
#    app-invalid.
# 3. A checker that writes into its tree changes no later result: as root
#    (it can) and as an unprivileged user (it cannot: the tree is read-only).
source "$top_srcdir/tests/functions.sh"
requires e2fsck debugfs python3 sha256sum

export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR" "$tmp/out"
chmod 1777 "$TMPDIR"

# tree_hash: a line per path of the current directory: type, path, size and
# content hash, or symlink target; sorted
cat >"$tmp/tree-hash" <<'EOF'
#!/bin/sh
find . -mindepth 1 \( -type f -printf 'f %P %s ' -exec sh -c 'sha256sum <"$1" | cut -c1-16' _ {} \; \) \
  -o \( -type d -printf 'd %P\n' \) -o \( -type l -printf 'l %P %l\n' \) | LC_ALL=C sort
EOF
chmod +x "$tmp/tree-hash"
cat >"$tmp/hash.sh" <<EOF
#!/bin/sh
# the tree and the environment, into OUT/POINT
[ "\$PWD" = "\$POWERCUT_ROOT" ] || { echo "not in POWERCUT_ROOT"; exit 3; }
"$tmp/tree-hash" >"\$OUT/\$POWERCUT_POINT"
echo "\$POWERCUT_MARKS|\$POWERCUT_DURABLE_MARK|\$POWERCUT_MARK_COUNT|\$(tr '\n' ' ' <"\$POWERCUT_MARKS_FILE")" \
  >"\$OUT/\$POWERCUT_POINT.env"
EOF
chmod +x "$tmp/hash.sh"

# --- 1. the tree a checker sees ------------------------------------------
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/golden.log"
OUT=$tmp/out run powercut check "$tmp/golden.log" --jobs 2 --verify "$tmp/hash.sh" \
    --json "$tmp/g.json"
# the checker passes everywhere; the golden log's zero-length points stay
assert_eq "$rc" 1 "check --verify: exit status (stderr: $err)"
assert_eq "$(python3 -c 'import json,sys; t = json.load(open(sys.argv[1]))["totals"]; print(t["app-invalid"], t["not-checked"], t["zero-length"])' "$tmp/g.json")" \
          "0 0 2" "totals app-invalid, not-checked, zero-length"
# the marks of the log, in order, with their records and sync flags
"$POWERCUT" log --dump "$tmp/golden.log" | awk '$4 == "mark" { print $1, $5, ($NF == "sync" ? "sync" : "-") }' >"$tmp/marks"
n=0
for f in "$tmp"/out/*.env; do
  id=$(basename "$f" .env)
  # the image of point $id, recovered as a reboot would, read by debugfs
  rm -rf "$tmp/img" "$tmp/d"
  "$POWERCUT" replay "$tmp/golden.log" --at "$id" -o "$tmp/img" >/dev/null
  e2fsck -fy "$tmp/img" >/dev/null 2>&1 || true
  mkdir "$tmp/d"
  debugfs -R "rdump / $tmp/d" "$tmp/img" >/dev/null 2>&1
  expect=$(cd "$tmp/d" && "$tmp/tree-hash")
  # point $id: the checker saw the tree e2fsprogs reads
  assert_eq "$(cat "$tmp/out/$id")" "$expect" "point $id: the tree"
  n=$(( n + 1 ))
done
assert_ge "$n" 5 "points the checker ran at"
# ... and the marks placed by each point's moment (until the flush that
# ends the state: what the workload had done while the disk could hold it)
python3 - "$tmp" <<'PY' || fail "the marks in the checker's environment"
import json, re, sys, glob, os
tmp = sys.argv[1]
marks = []
for line in open(tmp + "/marks"):
    rec, name, flags = line.split()[:3]
    marks.append((int(rec), name.split("=")[-1], "sync" in flags))
r = json.load(open(tmp + "/g.json"))
rec = {p["id"]: p["moment_record"] for p in r["points"]}
assert all(p["record"] <= p["moment_record"] for p in r["points"])
for f in glob.glob(tmp + "/out/*.env"):
    pid = os.path.basename(f)[:-4]
    got = open(f).read().rstrip("\n")
    before = [m for m in marks if m[0] <= rec[pid]]
    names = [m[1] for m in before]
    durable = [m[1] for m in before if m[2]]
    want = "%s|%s|%d|%s" % (" ".join(names), durable[-1] if durable else "", len(names),
                            "".join(n + " " for n in names))
    if got != want:
        print("point %s: %r, not %r" % (pid, got, want))
        sys.exit(1)
PY

# --- 2. app-invalid exactly where the tree holds bad ---------------------
requires_root
requires setpriv
log=$tmp/bad.log
mount_ext4 64M
echo one >"$mnt/a"
run powercut mark --control "$ctl" one --manifest "$mnt" --sync
echo broken >"$mnt/bad"
sync -f "$mnt"
run powercut mark --control "$ctl" two --manifest "$mnt" --sync
rm "$mnt/bad"
echo two >"$mnt/a"
sync -f "$mnt"
run powercut mark --control "$ctl" three --manifest "$mnt" --sync
unmount_ext4
stop_recorder
chmod 0644 "$log"

run powercut check "$log" --jobs 2 --verify 'test ! -e bad' --json "$tmp/bad.json"
# bad was there at some points: exit 1
assert_eq "$rc" 1 "check --verify 'test ! -e bad': exit status (stderr: $err)"
# the points whose recovered tree holds bad, by e2fsprogs: replay, e2fsck, debugfs
python3 -c 'import json,sys; [print(p["id"], p["verdict"]) for p in json.load(open(sys.argv[1]))["points"]]' \
    "$tmp/bad.json" >"$tmp/bad.verdicts"
with=0
while read -r id verdict; do
  rm -f "$tmp/img"
  "$POWERCUT" replay "$log" --at "$id" -o "$tmp/img" >/dev/null
  e2fsck -fy "$tmp/img" >/dev/null 2>&1 || true
  if debugfs -R "stat /bad" "$tmp/img" 2>&1 | grep -q '^Inode:'; then
    # point $id holds bad: app-invalid
    assert_eq "$verdict" app-invalid "point $id (bad there)"
    with=$(( with + 1 ))
  else
    # point $id does not: not app-invalid (the oracle judges a as ever)
    assert_ne "$verdict" app-invalid "point $id (no bad)"
  fi
done <"$tmp/bad.verdicts"
assert_ge "$with" 1 "points with bad"
assert_ge "$(grep -vc ' app-invalid$' "$tmp/bad.verdicts")" 1 "points without bad"
# the evidence is the checker's, and says how it ended
assert_match "$(python3 -c 'import json,sys; print([p for p in json.load(open(sys.argv[1]))["points"] if p["verdict"] == "app-invalid"][0]["evidence"][0])' "$tmp/bad.json")" \
             '^the --verify command exited with status 1:' "app-invalid evidence"

# --- 3. a checker that writes into its tree ------------------------------
# It hashes the tree first, then tries to delete bad, change a, add a
# directory and open up the root; exit 0.  No later state may see it.
cat >"$tmp/writer.sh" <<END
#!/bin/sh
"$tmp/tree-hash" >"\$OUT/\$POWERCUT_POINT"
rm -f bad 2>/dev/null; echo garbage >a 2>/dev/null
mkdir new 2>/dev/null && touch "\$OUT/wrote-\$POWERCUT_POINT"
chmod 777 . 2>/dev/null
exit 0
END
chmod 0755 "$tmp/writer.sh" "$tmp/hash.sh" "$tmp/tree-hash"
chmod 0755 "$tmp"
# nobody runs a copy of the program in a directory of the test's own that
# anyone may enter: the build tree may be closed to others (a checkout in
# a private directory).  Its sanitizer reports, if any, go to a directory
# it can write to, and join root's afterwards.
mkdir -m 0755 "$tmp/bin"
cp "$POWERCUT" "$tmp/bin/powercut"
chmod 0755 "$tmp/bin/powercut"
mkdir -m 1777 "$tmp/nobody-san"
setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$tmp/bin/powercut" ||
  fail "nobody cannot run $tmp/bin/powercut: is $(dirname "$tmp") closed to others?"
mkdir "$tmp/ref"
OUT=$tmp/ref run powercut check "$log" --jobs 1 -q --verify "$tmp/hash.sh"
# the read-only hasher, for reference (exit 1: a's in-place rewrite is not
# crash-atomic, the oracle says)
assert_match "$rc" '^[01]$' "check --verify hash.sh: exit status (stderr: $err)"
n=0
for who in root nobody; do
  for j in 1 2; do
    o=$tmp/out-$who-$j
    mkdir "$o" && chmod 0777 "$o"
    if [ "$who" = root ]; then
      OUT=$o run powercut check "$log" --jobs $j -q --verify "$tmp/writer.sh"
    else
      OUT=$o run setpriv --reuid=nobody --regid=nogroup --clear-groups \
          env TMPDIR="$TMPDIR" ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$tmp/nobody-san/sanitizer" \
          UBSAN_OPTIONS="$UBSAN_OPTIONS:log_path=$tmp/nobody-san/sanitizer" \
          "$tmp/bin/powercut" check "$log" --jobs $j -q --verify "$tmp/writer.sh"
      for f in "$tmp"/nobody-san/sanitizer.*; do [ ! -e "$f" ] || mv "$f" "$tmp/"; done
    fi
    # as $who, --jobs $j: the check runs (the writer exits 0)
    assert_match "$rc" '^[01]$' "check --verify writer.sh as $who, --jobs $j: exit status (stderr: $err)"
    # root could write into the tree, nobody could not
    wrote=$(find "$o" -name 'wrote-*' | wc -l)
    if [ "$who" = root ]; then assert_ge "$wrote" 1 "root's writes"
    else assert_eq "$wrote" 0 "nobody's writes"; fi
    rm -f "$o"/wrote-*
    for f in "$o"/*; do
      id=$(basename "$f")
      [ -f "$tmp/ref/$id" ] || continue
      # as $who, --jobs $j, point $id: the tree is the one the hasher saw there
      assert_eq "$(cat "$f")" "$(cat "$tmp/ref/$id")" "$who --jobs $j, point $id"
      n=$(( n + 1 ))
    done
  done
done
assert_ge "$n" 8 "trees compared"
