#!/usr/bin/env bash
# test-explore.sh: powercut explore on a real kernel, a short subset of
# --seq 1 (the whole of it is a bench): every workload judged on each
# configuration, an operation the filesystem refuses "unsupported" (ext3
# has no fallocate), an interrupted exploration resumed to the same
# results as an uninterrupted one, a configuration that loses synced data
# (no barriers, reordered writes) failing with each failure shrunk and
# its script reproducing it under powercut run, a corpus rerun, and
# shards merged.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3 xfs_io setfattr

export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"
cd "$tmp"

# 1. an extended attribute set on each file and on d0 (each call but
# none) on ext4 and ext3: all judged, ok (a metadata change, in one
# journal transaction: no crash point shows it half done, so each run
# gives the same verdicts; an append's unsynced data may be lost at one
# run's crash points and not at another's)
run powercut explore --seq 1 --only setxattr --config ext4 --config ext3 --out a --quiet
assert_eq "$rc" 0 "explore of setxattr ($out $err $(explore_errors a))"
assert_match "$out" '^ext4 +32 +32 +0 +0 +0 +0 +0$' "the ext4 row"
assert_match "$out" '^ext3 +32 +32 ' "the ext3 row"
assert_eq "$(outcomes a/explore.json | grep -c ' ok$')" 64 "every workload ok"
assert_match "$(cat a/summary.txt)" 'workload runs in' "summary.txt"
# where a run's time went, by phase: each run's, and their mean per
# configuration (the phases are most of the exploration's time)
assert_match "$(cat a/summary.txt)" "^  ext4: recorder [0-9.]+, attach [0-9.]+, workload [0-9.]+, end [0-9.]+, check [0-9.]+ \([0-9.]+ in all, over 32 runs\)$" \
  "the phases of ext4's runs"
python3 - a/results.jsonl a/summary.txt <<'PY' || fail "each run's phases"
import json, re, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
assert all(set(r["phases"]) == {"recorder", "attach", "workload", "end", "check"} for r in rs), rs[0]
assert all(r["phases"]["check"] > 0 and r["phases"]["workload"] > 0 for r in rs), rs[0]
total = float(re.search(r"in ([0-9.]+) s", open(sys.argv[2]).read()).group(1))
spent = sum(sum(r["phases"].values()) for r in rs)
# --jobs defaults to the CPUs: the phases' sum is at most their time
assert 0.3 * total < spent, (spent, total)
PY

# 2. what ext3 refuses is unsupported, never ok
run powercut explore --seq 1 --only falloc.plain.inside --config ext3 --out b --quiet
assert_eq "$rc" 0 "explore of fallocate on ext3 ($out $err $(explore_errors b))"
python3 - b/explore.json <<'PY' || fail "unsupported workloads"
import json, sys
ws = json.load(open(sys.argv[1]))["workloads"]
assert len(ws) == 16, len(ws)
for w in ws:
    x = w["results"]["ext3"]
    assert x["outcome"] == "unsupported", x
    assert "not supported" in x["why"], x
PY
# ZERO_RANGE too, where xfs_io says so and exits 0; PUNCH_HOLE ext4's
# driver does on ext3's files: ok
run powercut explore --seq 1 --only falloc.zero.inside --config ext3 --out b2 --quiet
assert_eq "$rc" 0 "explore of zero-range on ext3 ($out $err $(explore_errors b2))"
assert_eq "$(outcomes b2/explore.json | awk '{ print $3 }' | sort | uniq -c | tr -s ' ')" \
    " 16 unsupported" "zero-range on ext3"
run powercut explore --seq 1 --only falloc.punch.inside --config ext3 --out b3 --quiet
assert_eq "$rc" 0 "explore of punch-hole on ext3 ($out $err $(explore_errors b3))"
assert_eq "$(outcomes b3/explore.json | awk '{ print $3 }' | sort | uniq -c | tr -s ' ')" \
    " 16 ok" "punch-hole on ext3"

# 3. interrupted, then resumed: the same results as in one go
run powercut explore --seq 1 --only 'write.start f0' --config ext4 --jobs 1 --batch 3 --out whole --quiet
assert_eq "$rc" 0 "the uninterrupted exploration ($err)"
timeout "$T" "$POWERCUT" explore --seq 1 --only 'write.start f0' --config ext4 --jobs 1 --batch 3 \
  --out cut --quiet >cut.out 2>cut.err &
pid=$!
stop_explore () { kill "$pid" 2>/dev/null || true; }
cleanup_fn stop_explore
wait_until "$T" sh -c 'test "$(cat cut/results.jsonl 2>/dev/null | wc -l)" -ge 3'
kill -INT "$pid"
wait "$pid" && rc=0 || rc=$?
assert_eq "$rc" 2 "interrupted exploration's status ($(cat cut.err))"
assert_match "$(cat cut.err)" 'interrupted' "interrupted, said"
done_before=$(wc -l <cut/results.jsonl)
[ "$done_before" -lt "$(wc -l <whole/results.jsonl)" ] || fail "the interruption came too late to test resuming"
run powercut explore --seq 1 --only 'write.start f0' --config ext4 --jobs 1 --batch 3 --out cut --resume --quiet
assert_eq "$rc" 0 "resumed exploration ($err)"
assert_eq "$(wc -l <cut/results.jsonl)" "$(wc -l <whole/results.jsonl)" "each workload once"
assert_eq "$(outcomes cut/explore.json)" "$(outcomes whole/explore.json)" "resumed against whole"

# 4. no barriers, writes reordered: failures, shrunk, reproduced
run powercut explore --seq 2 --limit 2 --config 'ext4 nobarrier' --model reorder --out f --quiet
assert_eq "$rc" 1 "exploration of a configuration that loses synced data ($err)"
# --limit samples the whole order of seq 2 (13934592 places), one workload
# from each half, not its first two
assert_eq "$(python3 -c 'import json, sys
print(*sorted(w["index"] * 2 // 13934592 for w in json.load(open(sys.argv[1]))["workloads"]))' \
  f/explore.json)" "0 1" "--limit 2's sample, by halves of the order"
[ -x f/failures/1.sh ] || fail "no failure script"
# each result's time, and the time to the first failure
assert_eq "$(python3 -c 'import json, sys
print(all(json.loads(l).get("at_s", 0) > 0 for l in open(sys.argv[1])))' f/results.jsonl)" True "each result's time"
assert_match "$(cat f/summary.txt)" '^first failure after [0-9.]+ s, among the first [12] workload runs: .* on ext4 nobarrier$' \
  "the time to the first failure"
assert_match "$(cat f/failures/1.sh)" '#   shrunk from: ' "the failure shrunk"
repro=$(sed -n 's/^#   reproduce: *//p' f/failures/1.sh)
# recorded as the exploration recorded it: from the same base image
assert_match "$repro" "^powercut run --config 'ext4 nobarrier' --model reorder:4 --seed 0 --base $tmp/f/bases/c0.img --settle 0 -- $tmp/f/failures/1.sh\$" "its command"
eval "run ${repro/powercut run/powercut run --quiet --out repro}"
assert_eq "$rc" 1 "the failure's reproduce line reproduces it ($err)"
# its first failing state, rebuilt by the line as written (the recording
# starts from the configuration's base image, kept in f/bases)
first=$(sed -n 's/^#   first failing: *//p' f/failures/1.sh)
assert_match "$first" "^powercut replay .* --base $tmp/f/bases/c0.img --at " "the replay line names the base"
run ${first/state.img/"$tmp/first.img"}
assert_eq "$rc" 0 "the failure's replay line rebuilds its state ($err)"
[ -s "$tmp/first.img" ] || fail "no state rebuilt"
rm -f "$tmp/first.img"
# contrib/hunt/classes.py groups the failures as doc/hunt.md's table
# does: every failing workload counted once, a broken promise the
# filesystem's
run "$top_srcdir/contrib/hunt/classes.py" f
assert_eq "$rc" 0 "classes.py ($err)"
assert_match "$out" '^\| ext4 nobarrier: [a-z-]+, fault filesystem, (lost data written by `[^`]+`|the whole state) \| [12] \| `[^`]+` \|$' "a class of broken promises"
assert_eq "$(awk -F' [|] ' '{ n += $2 } END { print n }' <<<"$out")" \
  "$(outcomes f/explore.json | grep -vc ' ok$')" "each failing workload in one class"

# 5. the corpus of the first exploration: nothing changed
run powercut explore --corpus a --config ext4 --config ext3 --out a2 --quiet
assert_eq "$rc" 0 "corpus rerun ($out $err)"
assert_match "$out" 'no verdict changed against the corpus' "corpus said"
assert_eq "$(outcomes a2/explore.json)" "$(outcomes a/explore.json)" "corpus outcomes"

# 6. two shards, merged: the workloads of the whole
run powercut explore --seq 1 --only setxattr --config ext4 --shard 0/2 --out s0 --quiet
assert_eq "$rc" 0 "shard 0 ($err)"
run powercut explore --seq 1 --only setxattr --config ext4 --shard 1/2 --out s1 --quiet
assert_eq "$rc" 0 "shard 1 ($err)"
run powercut explore --merge --out sm s0 s1
assert_eq "$rc" 0 "merge ($err)"
assert_eq "$(outcomes sm/explore.json)" "$(outcomes a/explore.json | grep ' ext4 ')" "merged shards"

# 6b. --skip leaves out what --only would keep: the attributes set but
# those with an fdatasync
run powercut explore --seq 1 --only setxattr --skip fdatasync --config ext4 --out sk --quiet
assert_eq "$rc" 0 "explore with --skip ($err)"
assert_match "$out" '^ext4 +26 +26 ' "26 of the 32"
python3 - sk/explore.json <<'PY' || fail "--skip's workloads"
import json, sys
ops = [w["ops"] for w in json.load(open(sys.argv[1]))["workloads"]]
assert len(ops) == 26 and all("setxattr" in o and "fdatasync" not in o for o in ops), ops
PY

# 7. every workload starts from a fresh filesystem: its verdict (and
# whether it broke a promise, whether any point failed) is the same
# whether it runs alone or in a batch after others (and before others);
# its number of crash points may differ by the kernel's timing (when the
# journal commits), not by its neighbours; and no script makes its own
# setup or works in a directory of others
run powercut explore --seq 1 --only 'write.append d0/new' --config ext4 --batch 6 --jobs 1 --out g1 --quiet
assert_eq "$rc" 0 "explore in batches ($err)"
n=$(outcomes g1/explore.json | wc -l)
assert_ge "$n" 8 "workloads in batches"
pick=$(python3 -c '
import json, sys
ws = json.load(open(sys.argv[1]))["workloads"]
print(ws[len(ws) // 2]["ops"])' g1/explore.json)
run powercut explore --seq 1 --only "$pick" --config ext4 --batch 1 --jobs 1 --out g2 --quiet
assert_eq "$rc" 0 "explore of one workload alone ($err)"
result () {
  python3 -c '
import json, sys
for w in json.load(open(sys.argv[1]))["workloads"]:
    if w["ops"] == sys.argv[2]:
        x = w["results"]["ext4"]
        print(x["outcome"], x["failing"] > 0, x["promise"], x["points"] > 0)' "$1" "$2"
}
assert_eq "$(result g2/explore.json "$pick")" "$(result g1/explore.json "$pick")" \
  "\"$pick\" alone and in a batch"
[ -n "$(result g1/explore.json "$pick")" ] || fail "no result for $pick"
assert_eq "$(ls g1/batches/*/w*/workload.sh | wc -l)" "$n" "one recording per workload"
assert_eq "$(grep -l 'mkdir w[0-9]\|xfs_io -f -c "pwrite -S 0x5a' g1/batches/*/w*/workload.sh)" "" \
  "a workload made its own setup or a directory of its own"
# each starts as after a setup in its own mount: the journal committed
# once (the root's times touched, then sync), before its operations
assert_eq "$(grep -L -x 'touch -c \. && sync' g1/batches/*/w*/workload.sh)" "" \
  "a workload without the commit before its operations"
assert_eq "$(grep -c -x 'touch -c \. && sync' f/failures/1.sh)" 1 "the failure script's commit"
