#!/usr/bin/env bash
# test-trace-record.sh: powercut trace runs a program on a kernel ext4
# being recorded (nbdfuse + loop) and logs its calls as event records, in
# order with the disk's writes: only the calls about that filesystem, each
# entry followed by its exit, a failing call with its errno, the command's
# exit status kept; and the log still reads, dumps, exports and checks.
. "$top_srcdir/tests/functions.sh"
requires_root
requires python3

mount_ext4 64M

# the program: a file written, renamed, synced, appended to and removed; a
# rename that fails; a file outside the recorded filesystem; exit 3
cat >"$tmp/prog.sh" <<'SH'
echo hello >a
mv a b
sync
echo more >>b
mv nothing-here x 2>/dev/null
echo elsewhere >"$OUTSIDE/o"
rm b
exit 3
SH
cd "$mnt"
OUTSIDE=$tmp run powercut trace --control "$ctl" --root "$mnt" -- sh "$tmp/prog.sh"
cd "$tmp"
# the command's exit status comes back
assert_eq "$rc" 3 "trace exit status ($err)"
assert_match "$err" 'events logged \([0-9]+ acknowledgements\), [0-9]+ about other files left out' "trace summary"
unmount_ext4
stop_recorder
read_log
# the summary counts the events
assert_ge "$(count event)" 10 "event records"
dump_log
assert_eq "$dump_rc" 0 "log --dump"
cat >"$tmp/events.py" <<'PY'
import re, sys
mnt, tmp = sys.argv[1], sys.argv[2]
lines = sys.stdin.read().splitlines()
recs = [l.split() for l in lines if l and l[0].isdigit()]
# "SEQ TIME CONN event KIND pid=P tid=T CALL" as "KIND pid=P tid=T CALL"
ev = [(int(m.group(1)), m.group(2)) for m in
      (re.match(r'^(\d+) \S+ \S+ event (.*)$', l) for l in lines) if m]
def fail(msg):
    sys.exit("test-trace-record: " + msg)
# every event is about the recorded filesystem: none names the file outside
if any(tmp + "/o" in t for _, t in ev):
    fail("an event about a file outside the filesystem was logged")
# entries and exits pair up, one thread's entry before its exit
open_ = {}
for seq, t in ev:
    kind, tid = t.split()[0], t.split()[2]
    if kind == "entry":
        if tid in open_:
            fail("two entries of %s without an exit" % tid)
        open_[tid] = seq
    else:
        if tid not in open_:
            fail("an exit of %s without its entry (record %d)" % (tid, seq))
        del open_[tid]
if open_:
    fail("entries never exited: %s" % open_)
texts = [t for _, t in ev]
def find(pat):
    hits = [seq for seq, t in ev if re.search(pat, t)]
    if not hits:
        fail("no event matches %r" % pat)
    return hits
# the rename, with its paths, as strace would print it
find(r'^entry .* rename(at2)?\(.*"a".*"b"')
# the failing rename, with its error
find(r'^exit .* rename(at2)?\(.*"nothing-here".*= -1 ENOENT')
# the write of "hello" and of "more", and the unlink
find(r'^exit .* write\(.*"hello\\n".* = 6 path=/a$')
find(r'^exit .* write\(.*"more\\n".* = 5 path=/b$')
find(r'^entry .* unlink(at)?\(.*"b"')
# sync() is logged in order with what it made the disk do: a flush comes
# between its entry and its exit
s_in, s_out = find(r'^entry .* sync\(\)')[0], find(r'^exit .* sync\(\)')[0]
if not any(r[3] == "flush" and s_in < int(r[0]) < s_out for r in recs):
    fail("no flush between sync's entry (%d) and exit (%d)" % (s_in, s_out))
PY
python3 "$tmp/events.py" "$mnt" "$tmp" <<<"$dump" || fail "the events in the dump"

# the log with events still exports to dm-log-writes (events left out) and
# reads back, and still checks
run powercut log --export dm-log-writes "$log" "$tmp/dm.log"
assert_eq "$rc" 0 "export ($err)"
run powercut log --import dm-log-writes "$tmp/dm.log" "$tmp/back.log"
assert_eq "$rc" 0 "import ($err)"
read_log "$tmp/back.log"
assert_eq "$(count event)" none "events in the imported log"
run powercut check "$log" --jobs 2
assert_eq "$rc" 0 "check of a traced recording ($out $err)"
