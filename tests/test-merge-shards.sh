#!/usr/bin/env bash
# test-merge-shards.sh: check --shard I/3 (or Slurm/Kubernetes environment) splits the crash points, merge of the three gives the unsharded report, and merge refuses incomplete, duplicate or foreign shard sets.
. "$top_srcdir/tests/functions.sh"
requires mkfs.ext4 debugfs qemu-io python3

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"

# --- A log with ok and failing crash states, made without a kernel. ---------
# An ext4 base image; the recording writes to free space, then garbage over
# the root inode's block, later the block's old contents back; flush epochs
# of 2 to 4 writes, so that reorder:2 enumerates and samples.
make_base_image

# record DIR WRITES...: records DIR/log from base.img with the qemu-io
# commands WRITES (after a first mark), and stops.
record ()
{
  local dir=$1
  shift
  mkdir -p "$dir"
  log=$dir/log
  start_recorder --base "$tmp/base.img"
  run powercut mark --control "$ctl" start
  # the first mark
  assert_eq "$rc" 0 "powercut mark start: exit status (stderr: $err)"
  run qemu-io -t none -f raw "$uri" "$@"
  # qemu-io's requests succeed
  assert_eq "$rc:$(grep -c failed <<<"$out$err" || true)" 0:0 "qemu-io (stdout: $out; stderr: $err)"
  stop_recorder
}
g=$(( blk * 4096 ))
record "$tmp/a" \
  -c 'write -P 0x41 40M 64k' -c 'write -P 0x42 41M 64k' -c flush \
  -c 'write -P 0x43 42M 64k' -c "write -P 0xa5 $g 4096" -c 'write -P 0x44 43M 64k' -c flush \
  -c 'write -P 0x45 44M 64k' -c "write -s $tmp/root.blk $g 4096" -c 'write -P 0x46 45M 64k' \
  -c 'write -f -P 0x47 46M 4k' -c 'write -P 0x48 47M 64k' -c flush \
  -c 'write -P 0x49 48M 64k' -c 'write -P 0x4a 49M 64k' -c flush
# The other log: another workload on the same base.
record "$tmp/b" -c 'write -P 0x51 40M 64k' -c flush -c "write -P 0xa5 $g 4096" -c flush
log=$tmp/a/log

# Reading JSON reports.
# pts FILE: "id verdict" of every point; tot FILE: the totals, one line;
# top FILE NAME...: top-level fields.
pts () { python3 -c 'import json,sys; [print(p["id"], p["verdict"]) for p in json.load(open(sys.argv[1]))["points"]]' "$1"; }
tot () { python3 -c 'import json,sys; t = json.load(open(sys.argv[1]))["totals"]; print(" ".join("%s=%s" % (k, t[k]) for k in sorted(t) if k != "unique"))' "$1"; }
top () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(*[r[k] for k in sys.argv[2:]])' "$@"; }

M=(-m reorder:2 --seed 3 --base "$tmp/base.img")
run powercut check "$log" "${M[@]}" --json "$tmp/full.json"
full_text=$out
# the unsharded check finds the garbage: exit 1
assert_eq "$rc" 1 "unsharded check: exit status (stderr: $err)"
full=$(pts "$tmp/full.json")
# there are ok and failing points, enough for 3 shards
assert_eq "$(grep -c ' ok$' <<<"$full" | awk '{ print ($1 >= 3) }') $(grep -vc ' ok$' <<<"$full" | awk '{ print ($1 >= 3) }')" "1 1" "ok and failing points: $full"

for i in 0 1 2; do
  run powercut check "$log" "${M[@]}" --shard "$i/3" --json "$tmp/s$i.json"
  # each shard runs (0: its share is all ok, 1: some failed)
  assert_eq "$(( rc == 0 || rc == 1 ))" 1 "check --shard $i/3: exit status $rc (stderr: $err)"
  # its text report names the shard
  assert_match "$out" ", shard $i/3" "text report of shard $i/3"
  # its JSON report too
  assert_eq "$(top "$tmp/s$i.json" shard shards)" "$i 3" "JSON shard and shards of shard $i"
  # each shard has a share of the points
  assert_ge "$(pts "$tmp/s$i.json" | wc -l)" 1 "points of shard $i"
done
# the shards, in order, are the unsharded points: a partition
assert_eq "$(cat <(pts "$tmp/s0.json") <(pts "$tmp/s1.json") <(pts "$tmp/s2.json"))" "$full" "shards 0, 1, 2 concatenated"

# --- merge ------------------------------------------------------------------
run powercut merge "$tmp/s0.json" "$tmp/s1.json" "$tmp/s2.json" --json "$tmp/m.json"
merge_text=$out
# merge of the three: exit 1 like the unsharded check
assert_eq "$rc" 1 "merge: exit status (stderr: $err)"
# the same totals: points and every verdict
assert_eq "$(tot "$tmp/m.json")" "$(tot "$tmp/full.json")" "merged totals"
# the same points, in order, with the same verdicts
assert_eq "$(pts "$tmp/m.json")" "$full" "merged points"
# the merged report is one unsharded report of the same log and model
assert_eq "$(top "$tmp/m.json" shard shards log model k seed from from_record records)" "$(top "$tmp/full.json" shard shards log model k seed from from_record records)" "merged report's fields"
# its text report has the same first failing point and counts
assert_eq "$(grep -E '^(first failing|  [a-z-]+ +[0-9]+$)' <<<"$merge_text")" "$(grep -E '^(first failing|  [a-z-]+ +[0-9]+$)' <<<"$full_text")" "merged text report"
# every same_as names an earlier point with the same verdict
assert_eq "$(python3 -c '
import json, sys
seen = {}
for p in json.load(open(sys.argv[1]))["points"]:
    s = p["same_as"]
    if s is not None and seen.get(s) != p["verdict"]:
        print(p["id"], "same_as", s)
    seen[p["id"]] = p["verdict"]' "$tmp/m.json")" "" "same_as in the merged report"
unique () { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["unique"])' "$1"; }
echo "distinct images checked: unsharded $(unique "$tmp/full.json"), sum of the shards $(unique "$tmp/m.json")"
run powercut merge "$tmp/s2.json" "$tmp/s0.json" "$tmp/s1.json" --json "$tmp/m2.json" -q
# the order of the reports does not matter
assert_eq "$rc $(pts "$tmp/m2.json" | md5sum)" "1 $(md5sum <<<"$full")" "merge in another order"
run powercut merge "$tmp/full.json" --json "$tmp/m1.json" -q
# an unsharded report merges into itself
assert_eq "$rc $(tot "$tmp/m1.json")" "1 $(tot "$tmp/full.json")" "merge of one unsharded report"

# bad_merge WHAT REPORT...: merge must fail with exit 2 and one line.
bad_merge ()
{
  local what=$1
  shift
  run powercut merge "$@"
  # merge refuses: exit status 2, one line on stderr
  assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "merge of $what: exit status and lines (stderr: $err; stdout: $(head -n 4 <<<"$out"))"
  assert_match "$err" '^powercut merge: ' "merge of $what: message"
}
bad_merge "2 of 3 shards" "$tmp/s0.json" "$tmp/s1.json"
# ... naming the shard that is missing
assert_match "$err" 'shard 2/3 is missing' "merge without shard 2: message"
bad_merge "2 of 3 shards" "$tmp/s1.json" "$tmp/s2.json"
assert_match "$err" 'shard 0/3 is missing' "merge without shard 0: message"
bad_merge "a shard twice" "$tmp/s0.json" "$tmp/s1.json" "$tmp/s1.json"
# ... or given twice
assert_match "$err" 'shard 1/3 is given twice' "merge with shard 1 twice: message"
bad_merge "shards and the unsharded report" "$tmp/s0.json" "$tmp/s1.json" "$tmp/s2.json" "$tmp/full.json"
run powercut check "$log" -m flush --base "$tmp/base.img" --shard 1/3 --json "$tmp/f1.json" -q
bad_merge "shards of two models" "$tmp/s0.json" "$tmp/f1.json" "$tmp/s2.json"
run powercut check "$log" -m reorder:2 --seed 4 --base "$tmp/base.img" --shard 1/3 --json "$tmp/seed1.json" -q
bad_merge "shards of two seeds" "$tmp/s0.json" "$tmp/seed1.json" "$tmp/s2.json"
run powercut check "$tmp/b/log" "${M[@]}" --shard 1/3 --json "$tmp/b1.json" -q
bad_merge "shards of two logs" "$tmp/s0.json" "$tmp/b1.json" "$tmp/s2.json"
echo '{"powercut": "0", "schema": 1' >"$tmp/cut.json"
bad_merge "a cut JSON file" "$tmp/s0.json" "$tmp/cut.json" "$tmp/s2.json"
bad_merge "a missing file" "$tmp/s0.json" "$tmp/nope.json" "$tmp/s2.json"
# a shard whose points are listed twice (a report concatenated or edited)
python3 - "$tmp/s1.json" "$tmp/dup.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["points"] = r["points"] + r["points"][:1]
json.dump(r, open(sys.argv[2], "w"))
r["totals"]["points"] += 1
json.dump(r, open(sys.argv[2] + ".counted", "w"))
PY
bad_merge "a shard with a point listed twice" "$tmp/s0.json" "$tmp/dup.json" "$tmp/s2.json"
assert_match "$err" 'not as many as totals.points says' "duplicated points: message"
bad_merge "a shard with a point listed twice, counted" "$tmp/s0.json" "$tmp/dup.json.counted" "$tmp/s2.json"
assert_match "$err" 'point [^ ]+ is listed twice' "duplicated points, counted: message"
# a shard number of the wrong type, or out of range
for edit in '"1"' '-1' '3' '1.5'; do
  python3 - "$tmp/s1.json" "$tmp/badshard.json" "$edit" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["shard"] = json.loads(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
  bad_merge "shard $edit" "$tmp/s0.json" "$tmp/badshard.json" "$tmp/s2.json"
  assert_match "$err" '"shard" and "shards" are not whole numbers' "shard $edit: message"
done

# --- The shard from a batch system's environment. ---------------------------
# env_shard WHAT FILE EXPECTED-FILE: FILE (from a check whose shard came
# from the environment) has the same shard and points as EXPECTED-FILE.
env_shard ()
{
  # the environment gives the same share as --shard
  assert_eq "$rc $(top "$2" shard shards) $(pts "$2" | md5sum)" \
            "$3 $(top "$4" shard shards) $(pts "$4" | md5sum)" "$1"
}
rc=0; SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 powercut check "$log" "${M[@]}" --json "$tmp/e1.json" -q || rc=$?
env_shard "SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3" "$tmp/e1.json" "$(python3 -c 'import json,sys; print(int(any(p["verdict"] != "ok" for p in json.load(open(sys.argv[1]))["points"])))' "$tmp/s1.json")" "$tmp/s1.json"
rc=0; JOB_COMPLETION_INDEX=2 POWERCUT_SHARDS=3 powercut check "$log" "${M[@]}" --json "$tmp/e2.json" -q || rc=$?
env_shard "JOB_COMPLETION_INDEX=2 POWERCUT_SHARDS=3" "$tmp/e2.json" "$(python3 -c 'import json,sys; print(int(any(p["verdict"] != "ok" for p in json.load(open(sys.argv[1]))["points"])))' "$tmp/s2.json")" "$tmp/s2.json"
rc=0; SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 powercut check "$log" "${M[@]}" --shard 0/3 --json "$tmp/e0.json" -q || rc=$?
env_shard "--shard 0/3 over SLURM_ARRAY_TASK_ID=1" "$tmp/e0.json" "$(python3 -c 'import json,sys; print(int(any(p["verdict"] != "ok" for p in json.load(open(sys.argv[1]))["points"])))' "$tmp/s0.json")" "$tmp/s0.json"
run powercut merge "$tmp/s0.json" "$tmp/e1.json" "$tmp/e2.json" -q
# shards from the environment merge with the others
assert_eq "$rc" 1 "merge of shards from --shard and the environment: exit status (stderr: $err)"

# Bad shards: exit 2, one line.
for s in 3/3 1/0 x 1 -1/3 1/3x; do
  run powercut check "$log" "${M[@]}" --shard "$s"
  # a bad --shard is a usage error
  assert_eq "$rc $(grep -c . <<<"$err")" "2 1" "check --shard '$s': exit status and lines (stderr: $err)"
done
rc=0; SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 powercut check "$log" "${M[@]}" -q 2>"$tmp/e.err" || rc=$?
# a task id beyond the count is an error
assert_eq "$rc $(grep -c . <"$tmp/e.err")" "2 1" "SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3: exit status and lines ($(cat "$tmp/e.err"))"
# check cleans up its scratch files
assert_eq "$(ls -A "$TMPDIR" | tr '\n' ' ')" "" "left in \$TMPDIR"

# Two logs both named "log", each checked in its own directory (as a job
# array on two machines would): the reports name the same file, yet they
# are shards of different recordings.
for d in a b; do
  run bash -c "cd '$tmp/$d' && $POWERCUT_WRAPPER '$POWERCUT' check log ${M[*]} --shard 1/3 --json '$tmp/rel-$d-1.json' -q"
done
for i in 0 2; do
  run bash -c "cd '$tmp/a' && $POWERCUT_WRAPPER '$POWERCUT' check log ${M[*]} --shard $i/3 --json '$tmp/rel-a-$i.json' -q"
done
run powercut merge "$tmp/rel-a-0.json" "$tmp/rel-a-1.json" "$tmp/rel-a-2.json" -q
# the shards of log a, checked from its directory, merge
assert_eq "$rc" 1 "merge of the shards of a/log named 'log': exit status (stderr: $err)"
bad_merge "shards of two recordings both named 'log'" "$tmp/rel-a-0.json" "$tmp/rel-b-1.json" "$tmp/rel-a-2.json"

# --- A skewed log: all its changes in the last tenth. -----------------------
# 90 flushes over an unchanged device, then 10 writes each with a flush:
# crash points of equal number would leave the last shard all the work;
# shards of equal work give each about a quarter of the distinct images.
skew=()
for i in $(seq 90); do skew+=(-c flush); done
for i in $(seq 10); do skew+=(-c "write -P $(( 0x60 + i )) $(( 40 + i ))M 64k" -c flush); done
record "$tmp/skew" "${skew[@]}"
log=$tmp/skew/log
for i in 0 1 2 3; do
  run powercut check "$log" --base "$tmp/base.img" --shard "$i/4" --json "$tmp/k$i.json" -q
  assert_eq "$rc" 0 "skewed log, shard $i/4: exit status (stderr: $err)"
done
work=$(for i in 0 1 2 3; do unique "$tmp/k$i.json"; done | tr '\n' ' ')
echo "skewed log: distinct images per shard: $work"
# the busiest shard has at most 1.5 times the mean work
python3 -c 'import sys; w = [int(x) for x in sys.argv[1:]]; sys.exit(0 if max(w) * len(w) <= 1.5 * sum(w) else 1)' $work ||
  fail "skewed log: distinct images per shard $work: the busiest has more than 1.5 times the mean"
run powercut merge "$tmp"/k{0,1,2,3}.json --json "$tmp/km.json" -q
run powercut check "$log" --base "$tmp/base.img" --json "$tmp/kfull.json" -q
# ... and they still merge into the unsharded report
assert_eq "$(pts "$tmp/km.json")" "$(pts "$tmp/kfull.json")" "skewed log: merged points"
