#!/usr/bin/env bash
# test-check-devset-shards.sh: a device set's check in shards, joined by
# powercut merge, says what the unsharded check says (a differential test
# of the sharded path against the plain one).  Two devices recorded at
# once (powercut run --device), b without a journal (its states repaired
# by e2fsck -p, as a boot does) and its files claimed durable by its marks
# without a sync, so that some instants fail; with --verify across the
# devices, under the flush and the torn model, in three shards: every
# instant's verdict, promise, --verify answer and device states, the
# totals and the exit status are the same.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 python3
T=600

cat >"$tmp/two.sh" <<'SH'
#!/bin/sh
set -e
for i in 1 2 3; do
  echo "a $i" >"$POWERCUT_MNT_a/f$i"; sync "$POWERCUT_MNT_a/f$i"
  "$POWERCUT" mark --control "$POWERCUT_CONTROL_a" "a-$i"
  echo "b $i" >"$POWERCUT_MNT_b/g$i"
  "$POWERCUT" mark --control "$POWERCUT_CONTROL_b" "b-$i" --manifest "$POWERCUT_MNT_b" \
    --durable "$POWERCUT_MNT_b/g$i"
done
SH
# a g_i exists only beside a whole f_i
cat >"$tmp/verify.sh" <<'SH'
#!/bin/sh
for g in "$POWERCUT_ROOT_b"/g*; do
  [ -e "$g" ] || continue
  i=${g##*/g}
  [ "$(cat "$POWERCUT_ROOT_a/f$i" 2>/dev/null)" = "a $i" ] || { echo "corrupt: g$i without f$i"; exit 2; }
done
echo consistent
SH
chmod +x "$tmp/two.sh" "$tmp/verify.sh"
run powercut run --settle 0 -q --device a:32M --device b:32M:ext4:'-b 4096 -O ^has_journal' \
    --fail-on promises --out "$tmp/rec" -- "$tmp/two.sh"
assert_match "$rc" '^[01]$' "recording ($err)"
set_dir=$tmp/rec/set

for m in flush torn:2; do
  run powercut check "$set_dir" --model "$m" --verify "$tmp/verify.sh" --json "$tmp/all-$m.json" -q
  want=$rc
  assert_match "$want" '^[01]$' "$m: the unsharded check ($err)"
  for i in 0 1 2; do
    run powercut check "$set_dir" --model "$m" --verify "$tmp/verify.sh" --shard "$i/3" \
        --json "$tmp/s$i-$m.json" -q
    assert_match "$rc" '^[01]$' "$m: shard $i ($err)"
  done
  run powercut merge -q --json "$tmp/merged-$m.json" "$tmp/s0-$m.json" "$tmp/s1-$m.json" \
      "$tmp/s2-$m.json"
  assert_eq "$rc" "$want" "$m: the merge's exit status ($err)"
  run python3 "$top_srcdir/tests/devset-same.py" "$tmp/all-$m.json" "$tmp/merged-$m.json"
  assert_eq "$rc" 0 "$m: merged = unsharded: $out"
done
# b's unsynced files claimed durable are lost somewhere: the comparison had
# failures to see
run python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["totals"]; sys.exit(0 if t["promises"] > 0 else 1)' \
    "$tmp/all-flush.json"
assert_eq "$rc" 0 "failing instants in the flush model"

# what merge refuses: a shard twice, a shard missing
run powercut merge -q "$tmp/s0-flush.json" "$tmp/s0-flush.json" "$tmp/s2-flush.json"
assert_eq "$rc" 2 "a shard given twice"
run powercut merge -q "$tmp/s0-flush.json" "$tmp/s1-flush.json"
assert_eq "$rc" 2 "a shard missing"
assert_match "$err" "not a shard of 2" "a shard missing: says why"
run powercut merge -q "$tmp/s0-flush.json" "$tmp/s1-torn:2.json" "$tmp/s2-flush.json"
assert_eq "$rc" 2 "shards of two checks"
