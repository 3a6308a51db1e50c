#!/usr/bin/env bash
# test-check-jobs.sh: check gives the same points, verdicts and evidence with --jobs 1, 2 and 4, and reorder:2 with one --seed enumerates the same states every time.
. "$top_srcdir/tests/functions.sh"
requires mkfs.ext4 debugfs qemu-io python3

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"

# --- A log with ok and failing crash states, made without a kernel. ---------
# An ext4 base image; the recording writes to free space, then garbage over
# the root inode's block, later the block's old contents back; flush epochs
# of 2 to 5 writes, so that reorder:2 both enumerates and samples.
make_base_image
g=$(( blk * 4096 ))

start_recorder --base "$tmp/base.img"
run powercut mark --control "$ctl" start
# the first mark
assert_eq "$rc" 0 "powercut mark start: exit status (stderr: $err)"
run qemu-io -t none -f raw "$uri" \
  -c 'write -P 0x41 40M 64k' -c 'write -P 0x42 41M 64k' -c flush \
  -c 'write -P 0x43 42M 64k' -c "write -P 0xa5 $g 4096" -c 'write -P 0x44 43M 64k' -c flush \
  -c 'write -P 0x45 44M 64k' -c "write -s $tmp/root.blk $g 4096" -c 'write -P 0x46 45M 64k' \
  -c 'write -f -P 0x47 46M 4k' -c 'write -P 0x48 47M 64k' -c 'write -P 0x49 48M 64k' -c flush \
  -c 'write -P 0x4a 49M 64k' -c "write -P 0xa6 $g 4096" -c 'write -P 0x4b 50M 64k' \
  -c 'write -P 0x4c 51M 64k' -c 'write -P 0x4d 52M 64k' -c flush
# qemu-io's requests succeed
assert_eq "$rc:$(grep -c failed <<<"$out$err" || true)" 0:0 "qemu-io (stdout: $out; stderr: $err)"
stop_recorder

# points FILE: one line per point: id, record, dropped, torn, verdict,
# same_as, and the evidence with the scratch image's name taken out.
points ()
{
  python3 -c '
import json, re, sys
for p in json.load(open(sys.argv[1]))["points"]:
    ev = " | ".join(re.sub(r"/[^ ]*/state-[0-9]+\.img", "IMAGE", l) for l in p["evidence"])
    print(p["id"], p["record"], p["dropped"], p["torn"], p["verdict"], p["same_as"], ev)' "$1"
}
# ids FILE: the point ids, one line.
ids () { python3 -c 'import json,sys; print(*[p["id"] for p in json.load(open(sys.argv[1]))["points"]])' "$1"; }
top () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(*[r[k] for k in sys.argv[2:]])' "$@"; }

B=(--base "$tmp/base.img")
for m in flush reorder:2; do
  for j in 1 2 4; do
    run powercut check "$log" "${B[@]}" -m "$m" --jobs "$j" --json "$tmp/$m-$j.json" -q
    # the garbage is found whatever the number of jobs
    assert_eq "$rc" 1 "check -m $m --jobs $j: exit status (stderr: $err)"
  done
  ref=$(points "$tmp/$m-1.json")
  # an ok point
  assert_match "$ref" ' ok None' "-m $m --jobs 1: an ok point"
  # and a failing point
  assert_match "$ref" ' (fs-corrupt|unmountable) ' "-m $m --jobs 1: a failing point"
  for j in 2 4; do
    # the same points, verdicts, same_as and evidence as with one job
    assert_eq "$(points "$tmp/$m-$j.json")" "$ref" "-m $m --jobs $j vs --jobs 1"
  done
done
# reorder:2 checks states that flush does not
assert_ge "$(ids "$tmp/reorder:2-1.json" | wc -w)" "$(( $(ids "$tmp/flush-1.json" | wc -w) + 1 ))" "reorder:2 points"
# with the default seed (0)
assert_eq "$(top "$tmp/reorder:2-1.json" model k seed)" "reorder 2 0" "model, k and seed of the report"

# --- The seed: same seed, same states. ---------------------------------------
for n in 1 2; do
  run powercut check "$log" "${B[@]}" -m reorder:2 --seed 5 --json "$tmp/seed5-$n.json" -q
  # a seeded reorder check runs
  assert_eq "$rc" 1 "check -m reorder:2 --seed 5 (run $n): exit status (stderr: $err)"
done
# the same ids, twice
assert_eq "$(ids "$tmp/seed5-2.json")" "$(ids "$tmp/seed5-1.json")" "ids of reorder:2 --seed 5, run 2 vs run 1"
# and the same verdicts
assert_eq "$(points "$tmp/seed5-2.json")" "$(points "$tmp/seed5-1.json")" "points of reorder:2 --seed 5, run 2 vs run 1"
# the report says which seed
assert_eq "$(top "$tmp/seed5-1.json" seed)" 5 "seed in the report"
# --seed before or after -m: the same
run powercut check "$log" "${B[@]}" --seed 5 -m reorder:2 --json "$tmp/seed5-3.json" -q
# (the same ids)
assert_eq "$(ids "$tmp/seed5-3.json")" "$(ids "$tmp/seed5-1.json")" "ids of --seed 5 -m reorder:2"
# an epoch of 5 writes is sampled: 2^2 states at its last write, among them
# "all kept" and "all dropped"
last=$(awk '!/^#/ && $4 == "write" { w = $1 } END { print w }' <<<"$(powercut log --dump "$log")")
at_last=$(tr ' ' '\n' <<<"$(ids "$tmp/seed5-1.json")" | grep -E "^$last(/|\$)" | tr '\n' ' ')
# (4 states)
assert_eq "$(wc -w <<<"$at_last")" 4 "states at the last write $last: $at_last"
# (one keeps all)
assert_match "$(tr ' ' '\n' <<<"$at_last")" "^$last\$" "all kept at $last: $at_last"
# (one drops all)
assert_match "$(tr ' ' '\n' <<<"$at_last")" "^$last/drop:[0-9]+-$(( last - 1 ))\$" "all dropped at $last: $at_last"
# no scratch files left
assert_eq "$(ls -A "$TMPDIR" | tr '\n' ' ')" "" "left in \$TMPDIR"
