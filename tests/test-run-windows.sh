#!/usr/bin/env bash
# test-run-windows.sh: durability windows from a real kernel, and the
# writeback knobs a run sets on this machine: the steady workload (real
# time) under ext4 noauto_da_alloc with short vm.dirty_* knobs gives each
# version a window, the fsync'd ones none; the knobs are back afterwards,
# also when the run is interrupted (SIGINT), and what a run that was killed
# still held in the record of knobs the next run puts back.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck python3

export TMPDIR=$tmp/rt
mkdir "$TMPDIR"
# The record of the knobs runs set: the test's own (functions.sh).
record=$POWERCUT_RUN_DIR/sysctl/record
mkdir -p -m 0700 "$POWERCUT_RUN_DIR/sysctl"
knob=/proc/sys/vm/dirty_expire_centisecs
wb=/proc/sys/vm/dirty_writeback_centisecs
old=$(cat "$knob") oldwb=$(cat "$wb")
# Whatever happens here, the machine's values are back at the end.
put_back () { echo "$old" >"$knob"; echo "$oldwb" >"$wb"; }
cleanup_fn put_back
leftovers () { (findmnt -rn -o TARGET | grep -F "$TMPDIR" || true; losetup -a | grep -F "$TMPDIR" || true); }
json () { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# 1. A run with the knobs lowered: 4 s of writes in five ways, then the
#    fsync'd way alone.
cfg="ext4 noauto_da_alloc vm.dirty_expire_centisecs=100 vm.dirty_writeback_centisecs=100"
run timeout 300 "$POWERCUT" run --quiet --workload steady --seconds 4 --config "$cfg" \
    --out "$tmp/w"
# the run completes (exit 1: noauto_da_alloc loses renamed files)
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "steady run: exit status $rc ($err)"
# the knobs are the machine's again
assert_eq "$(cat "$knob") $(cat "$wb")" "$old $oldwb" "knobs after the run"
[ ! -e "$record" ] || fail "the record of knobs is left behind: $(cat "$record")"
# the workload saw the knobs the run set (it waits for them)
assert_match "$(cat "$tmp/w/workload.txt")" 'dirty_expire 100 cs, dirty_writeback 100 cs' "knobs in the workload"
r=$tmp/w/report.json
# 4 seconds of 5 ways and 4 of the fsync'd way: 24 versions
assert_eq "$(json "$r" 'd["windows"]["versions"]')" 24 "versions"
# every version is durable by the end; the fsync'd ones at once
assert_eq "$(json "$r" 'd["windows"]["not_durable"]')" 0 "versions not durable"
assert_eq "$(json "$r" 'max(v["window"] for v in d["windows"]["list"] if v["path"].startswith("rename-fsync/"))')" 0.0 "fsync'd windows"
# without fsync, noauto_da_alloc leaves renamed data at risk for a while
long=$(json "$r" 'max(v["window"] for v in d["windows"]["list"] if v["path"].startswith("rename/"))')
python3 -c "import sys; sys.exit(0 if $long > 0.5 else 1)" || fail "rename/ windows: longest $long s"
# the report says it in text, and the window of each version is when its
# first crash point of no loss is, after its mark
assert_match "$(cat "$tmp/w/report.txt")" '^durability windows' "text report windows"
assert_match "$(cat "$tmp/w/report.txt")" '^    rename-fsync/ +longest +0\.0 s' "text report by directory"
json "$r" 'all(v["window"] == max(0.0, round(v["durable"] - v["written"], 6)) or abs(v["window"] - (v["durable"] - v["written"])) < 1e-5 for v in d["windows"]["list"])' | grep -qx True ||
  fail "window is not durable - written"
assert_eq "$(leftovers)" "" "left behind after the run"

# 2. Interrupted while the knob is set: it is put back.
want=$(( old + 7 ))
"$POWERCUT" run --quiet --workload steady --seconds 60 \
    --config "ext4 vm.dirty_expire_centisecs=$want" --out "$tmp/i" >"$tmp/i.out" 2>&1 &
pid=$!
is_set () { [ "$(cat "$knob")" = "$want" ] || { alive "$pid" || fail "run exited early: $(cat "$tmp/i.out")"; false; }; }
wait_until 60 is_set
sleep 2
kill -INT "$pid"
rc=0; wait "$pid" || rc=$?
# an interrupted run exits 2 and says so
assert_eq "$rc" 2 "interrupted run exit status ($(cat "$tmp/i.out"))"
assert_match "$(cat "$tmp/i.out")" 'interrupted' "interrupted run's message"
assert_eq "$(cat "$knob")" "$old" "knob after SIGINT"
[ ! -e "$record" ] || fail "the record of knobs is left behind after SIGINT: $(cat "$record")"
assert_eq "$(leftovers)" "" "left behind after SIGINT"

# 3. A run killed outright stays in the record as the knob's holder: the
#    next run, even one into another directory that sets no knob, finds
#    that process gone and puts the machine's value back before anything
#    else.  (A process that has exited stands for the killed run.)
sh -c 'exit 0' &
dead=$!
wait "$dead"
echo $(( old + 9 )) >"$knob"
printf 'knob vm.dirty_expire_centisecs %s %s\nhold vm.dirty_expire_centisecs %s %s\n' \
  "$old" $(( old + 9 )) "$dead" 1 >"$record"
run timeout 120 "$POWERCUT" run --quiet --workload replace-rename --files 2 --out "$tmp/k"
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "the next run: exit status $rc ($err)"
assert_match "$err" "put back what an earlier run that did not finish had set: vm.dirty_expire_centisecs=$old" "recovery message"
assert_eq "$(cat "$knob")" "$old" "knob after the next run"
[ ! -e "$record" ] || fail "the record stays: $(cat "$record")"

# 4. Only the writeback knobs, and well-formed.
run powercut run --config "ext4 kernel.panic=1" --out "$tmp/bad"
assert_eq "$rc" 2 "a knob that is not vm.dirty_*"
assert_match "$err" 'only the writeback knobs can be set' "its message"
run powercut run --config "ext4 vm.dirty_expire_centisecs=soon" --out "$tmp/bad"
assert_eq "$rc" 2 "a value that is not a number"
assert_match "$err" 'the value is not a number' "its message"
