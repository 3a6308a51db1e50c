#!/usr/bin/env bash
# test-check-devset-models.sh: the finer crash models across a device set.
# Two devices recorded at once (powercut run --device), files written and
# fsynced on both in turn.  With --model reorder:2 and torn:2, each
# device's states of that model that are not prefixes of its log become
# instants of their own, the other device as it had logged by then: the
# set's fine instants of a device are exactly the non-prefix states its
# own check with that model finds, with the same verdicts, and powercut
# replay DIR --at such an instant writes the image of that state for the
# device and the other's prefix (against replays of each log alone).
# With --model write every record of either device is an instant.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 python3
T=600

cat >"$tmp/work.sh" <<'SH'
#!/bin/sh
set -e
for i in 0 1 2 3; do
  for d in "$POWERCUT_MNT_a" "$POWERCUT_MNT_b"; do
    head -c $(( (i + 1) * 5000 )) /dev/urandom >"$d/f$i"
    sync "$d/f$i"
  done
done
SH
chmod +x "$tmp/work.sh"
run powercut run --settle 0 -q --device a:32M --device b:32M --fail-on promises --out "$tmp/rec" \
    -- "$tmp/work.sh"
assert_eq "$rc" 0 "recording two devices ($out; $err)"
set_dir=$tmp/rec/set

run powercut log --instants "$set_dir"
nflush=$(grep -c . <<<"$out")
for m in reorder:2 torn:2; do
  run powercut check "$set_dir" --model "$m" --json "$tmp/set-$m.json" -q
  assert_match "$rc" '^[01]$' "check of the set with $m ($err)"
  for d in a b; do
    run powercut check "$set_dir/$d.pclog" --model "$m" --json "$tmp/$d-$m.json" -q
    assert_match "$rc" '^[01]$' "check of $d alone with $m ($err)"
  done
  python3 - "$tmp/set-$m.json" "$tmp/a-$m.json" "$tmp/b-$m.json" "$nflush" <<'PY' || fail "$m: the fine instants"
import json, sys
s = json.load(open(sys.argv[1]))
alone = {"a": json.load(open(sys.argv[2])), "b": json.load(open(sys.argv[3]))}
fine = {d: {} for d in alone}
for x in s["instants"]:
    d, _, sid = x["id"].partition(":")
    if "/" in sid:
        assert x["devices"][d]["state"] == sid, x
        fine[d][sid] = x["devices"][d]["verdict"]
for d, r in alone.items():
    want = {p["id"]: p["verdict"] for p in r["points"] if "/" in p["id"]}
    assert want, (d, "no non-prefix state in the device's own check")
    assert fine[d] == want, (d, sorted(set(fine[d]) ^ set(want))[:4],
                             [(k, fine[d].get(k), want[k]) for k in want if fine[d].get(k) != want[k]][:4])
plain = [x for x in s["instants"] if "/" not in x["id"]]
assert len(plain) <= int(sys.argv[4]), (len(plain), sys.argv[4])
print(sum(len(v) for v in fine.values()))
PY
  # a few fine instants rebuilt: the device's state and the other's prefix
  python3 - "$tmp/set-$m.json" >"$tmp/pick" <<'PY'
import json, sys
x = [i for i in json.load(open(sys.argv[1]))["instants"] if "/" in i["id"]]
for i in x[:: max(1, len(x) // 4)][:4]:
    d = i["id"].split(":")[0]
    o = "b" if d == "a" else "a"
    st = i["devices"][o]["state"] if i["devices"][o] else "-"
    print(i["id"], d, i["devices"][d]["state"], o, st)
PY
  while read -r id d sid o ost; do
    rm -rf "$tmp/st"
    powercut replay "$set_dir" --at "$id" -o "$tmp/st" >/dev/null || fail "replay $id"
    powercut replay "$set_dir/$d.pclog" --at "$sid" -o "$tmp/alone.img" >/dev/null || fail "replay $d $sid"
    cmp -s "$tmp/st/$d.img" "$tmp/alone.img" || fail "$id: $d's image is not its state $sid"
    if [ "$ost" != - ]; then
      powercut replay "$set_dir/$o.pclog" --at "$ost" -o "$tmp/alone.img" >/dev/null || fail "replay $o $ost"
      cmp -s "$tmp/st/$o.img" "$tmp/alone.img" || fail "$id: $o's image is not its state $ost"
    fi
  done <"$tmp/pick"
  [ -s "$tmp/pick" ] || fail "$m: no fine instant to rebuild"
done

# the write model: an instant after every record of either device
run powercut check "$set_dir" --model write --json "$tmp/set-write.json" -q
assert_eq "$rc" 0 "check of the set with write ($err)"
python3 - "$tmp/set-write.json" "$nflush" <<'PY' || fail "the write model's instants"
import json, sys
x = json.load(open(sys.argv[1]))["instants"]
assert len(x) > 2 * int(sys.argv[2]), (len(x), sys.argv[2])
assert all(i["verdict"] == "ok" for i in x)
PY
