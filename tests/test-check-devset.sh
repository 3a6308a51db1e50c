#!/usr/bin/env bash
# test-check-devset.sh: powercut check of a device set.  Two recorded
# devices (a and b, one directory: contrib/devices.sh), each with an ext4
# the kernel mounts; files written and fsynced on both, in turn.  "powercut check DIR" judges every instant (each flush and FUA
# of either device): all survive, and replay --recovered writes an
# instant's images recovered and clean.  Each instant's device states must be
# those a reference finds from the log files alone (the records each
# device had logged by then) in each device's own check with the write
# model.  Then device b's root inode is zeroed in its log: the instants
# fail where b's state does, with its verdict, and the check exits 1.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 e2fsck dumpe2fs debugfs fusermount3 python3

set_dir=$tmp/set
# The devices and their filesystems made, the workload run, everything
# taken down: contrib/devices.sh (the recorders stopped cleanly).
cat >"$tmp/work.sh" <<'EOF'
#!/bin/sh
set -e
for i in 0 1 2 3 4 5; do
  for d in "$POWERCUT_MNT_a" "$POWERCUT_MNT_b"; do
    head -c $(( (i + 1) * 5000 )) /dev/urandom >"$d/f$i"
    sync "$d/f$i"
  done
done
EOF
chmod +x "$tmp/work.sh"
export POWERCUT
run "$top_srcdir/contrib/devices.sh" "$set_dir" a:32M b:32M -- "$tmp/work.sh"
assert_eq "$rc" 0 "recording (out: $out; stderr: $err)"
assert_eq "$(losetup -a | grep -c "$tmp" || true)" 0 "loop devices left"

# All instants survive.
run powercut check "$set_dir" --json "$tmp/set.json"
assert_eq "$rc" 0 "check of the set: exit status (out: $out; stderr: $err)"
assert_match "$out" 'device set .*, 2 devices: a b' "the report's first line"
assert_match "$out" '^  ok +[0-9]+$' "the ok line"

# replay --recovered of an instant in the middle: both images as a
# reboot leaves them, each clean, where the raw ones need recovery.
mid=$(python3 -c 'import json,sys; x = json.load(open(sys.argv[1]))["instants"]; print(x[len(x) // 2]["id"])' "$tmp/set.json")
run powercut replay "$set_dir" --at "$mid" -o "$tmp/raw"
assert_eq "$rc" 0 "replay --at $mid (stderr: $err)"
run powercut replay "$set_dir" --at "$mid" -o "$tmp/rec" --recovered
assert_eq "$rc.$err" "0." "replay --at $mid --recovered: exit status and stderr"
for d in a b; do
  assert_match "$(dumpe2fs -h "$tmp/raw/$d.img" 2>/dev/null)" 'features:.*needs_recovery' "$mid: raw $d needs recovery"
  run e2fsck -fn "$tmp/rec/$d.img"
  assert_eq "$rc" 0 "$mid: e2fsck -fn of the recovered $d ($out $err)"
done

# Each instant's states, against the reference.
for d in a b; do
  run powercut check "$set_dir/$d.pclog" --model write --json "$tmp/$d.json" -q
  assert_eq "$rc" 0 "check of $d alone (stderr: $err)"
done
compare () {
  python3 - "$set_dir" "$tmp/set.json" "$tmp/a.json" "$tmp/b.json" <<'PY'
import json, os, struct, sys
setdir, setjson = sys.argv[1:3]
dev = {"a": json.load(open(sys.argv[3])), "b": json.load(open(sys.argv[4]))}

def times(path):
    data = open(path, "rb").read()
    mono, = struct.unpack_from("<Q", data, 200)
    out, off = [], 256
    while off + 56 <= len(data):
        typ, flags = struct.unpack_from("<HH", data, off + 4)
        datalen, = struct.unpack_from("<I", data, off + 28)
        t, = struct.unpack_from("<Q", data, off + 32)
        out.append((typ, flags, mono + t))
        off += 56 + datalen
    return out

recs = {d: times(os.path.join(setdir, d + ".pclog")) for d in dev}
want = []
for d in dev:
    for c, (typ, flags, t) in enumerate(recs[d]):
        if not (typ == 4 or (typ in (1, 2, 3) and flags & 1)):
            continue
        states = {}
        for j in dev:
            n = c + 1 if j == d else sum(1 for r in recs[j] if r[2] <= t)
            # (a device alone has a state at the start, before its
            # mark: a set's instants begin at the mark)
            pts = [p for p in dev[j]["points"] if dev[j]["from_record"] <= p["record"] <= n - 1]
            states[j] = pts[-1]["id"] if pts else None
        if any(states.values()):
            want.append(("%s:%d" % (d, c), t, states))
want.sort(key=lambda w: w[1])
got = json.load(open(setjson))["instants"]
assert len(got) == len(want), (len(got), len(want))
for g, (wid, _, ws) in zip(got, want):
    gs = {j: (g["devices"][j] or {}).get("state") for j in dev}
    assert g["id"] == wid and gs == ws, (g, wid, ws)
print(len(got))
PY
}
n=$(compare) || fail "the instants' states differ from the reference"
assert_ge "$n" 10 "instants compared"

# --verify sees both devices at each instant: b's f$i is written after
# a's f$i was fsynced, so wherever b has a file, a has it whole.
cat >"$tmp/verify.sh" <<'EOF'
#!/bin/sh
for f in "$POWERCUT_ROOT_b"/f*; do
  [ -e "$f" ] || continue
  [ -s "$POWERCUT_ROOT_a/${f##*/}" ] || { echo "b has ${f##*/}, a lacks it"; exit 1; }
done
echo "$POWERCUT_INSTANT $POWERCUT_LAST_MARK_a $POWERCUT_LAST_MARK_b" >>"$VERIFY_LOG"
[ -z "$FAIL_ON" ] || [ ! -e "$POWERCUT_ROOT_b/$FAIL_ON" ] || { echo "b has $FAIL_ON"; exit 1; }
EOF
chmod +x "$tmp/verify.sh"
export VERIFY_LOG=$tmp/verify.log FAIL_ON=
run powercut check "$set_dir" --verify "$tmp/verify.sh" --json "$tmp/v.json" -q
assert_eq "$rc" 0 "check --verify of the set: exit status (stderr: $err)"
assert_ge "$(wc -l <"$VERIFY_LOG")" 5 "instants the checker ran at"
assert_eq "$(awk '$2 != "mkfs" || $3 != "mkfs"' "$VERIFY_LOG" | wc -l)" 0 "the marks each device had logged"
# a checker that fails where b has f3: exactly those instants, a broken promise
FAIL_ON=f3 run powercut check "$set_dir" --verify "$tmp/verify.sh" --json "$tmp/v3.json" -q
assert_eq "$rc" 1 "check --verify failing: exit status (stderr: $err)"
python3 - "$tmp/v3.json" <<'PY' || fail "the checker's failures are not the instants'"
import json, sys
r = json.load(open(sys.argv[1]))
bad = [x for x in r["instants"] if x.get("app") == "app-invalid"]
assert bad and all("b has f3" in x["evidence"] and x["verdict"] == "app-invalid" and x["promise"]
                   for x in bad)
assert all(x["verdict"] == "ok" for x in r["instants"] if x.get("app") != "app-invalid")
assert r["totals"]["promises"] == len(bad)
PY

# b's root inode zeroed (every write of its block): the instants where
# b's state then fails (where no journal brings the block back) fail, with
# b's verdict.
run powercut replay "$set_dir/b.pclog" --at end -o "$tmp/b-end.img"
assert_eq "$rc" 0 "replay b at its end (stderr: $err)"
blk=$(debugfs -R 'imap <2>' "$tmp/b-end.img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
assert_match "$blk" '^[0-9]+$' "the root inode's block"
edits=$(writes_over "$set_dir/b.pclog" "$blk")
assert_match "$edits" '^[0-9]+ [0-9]+' "the writes of the root inode's block"
while read -r seq o; do
  "$top_builddir/tests/log-edit" "$set_dir/b.pclog" zero "$seq" "$o" 4096 || fail "log-edit"
done <<<"$edits"
run powercut check "$set_dir" --json "$tmp/set2.json"
assert_eq "$rc" 1 "check of the damaged set: exit status (stderr: $err)"
assert_match "$out" 'failing instants:' "the failing instants listed"
assert_match "$out" 'rebuild: powercut replay .* --at [ab]:[0-9]+ -o STATE-DIR' "a rebuild command"
python3 - "$tmp/set2.json" <<'PY' || fail "the instants' verdicts are not their devices' worst"
import json, sys
r = json.load(open(sys.argv[1]))
fails = [x for x in r["instants"] if x["verdict"] != "ok"]
# some instants fail, each for b's state (a's are all ok), with its verdict
assert fails
for x in r["instants"]:
    a, b = x["devices"]["a"], x["devices"]["b"]
    assert a is None or a["verdict"] == "ok", x
    assert x["verdict"] == (b["verdict"] if b else "ok"), x
assert r["totals"]["promises"] + r["totals"]["exposures"] == len(fails)
PY
# What a set does not take yet: one line, exit 2.
run powercut check "$set_dir" --html "$tmp/set.html"
assert_eq "$rc" 2 "--html on a set: exit status"
assert_match "$err" 'not for a device set' "--html on a set: message"
