#!/usr/bin/env bash
# test-check-guest.sh: check and run --judge guest, the whole check in a
# qemu guest whose kernel mounts each state (run/gjudge.h).  A small ext4
# recording judged by the guest's kernel, in run and in check, gives the
# same points, verdicts and findings as this machine's kernel gives it
# (--judge kernel), each point judged "guest" and the report naming the
# guest's kernel; a guest
# that cannot boot is an error (exit 2, a reason, no report), never a
# verdict; no guest and no scratch folder is left.
source "$top_srcdir/tests/functions.sh"
requires_root
requires qemu-system-x86_64 python3
ls /boot/vmlinuz-* >/dev/null 2>&1 || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
[ -x /usr/sbin/nbd-client ] || [ -x /sbin/nbd-client ] || { echo "$0: test skipped: no nbd-client"; exit 77; }
[ -x /bin/busybox ] || [ -x /usr/bin/busybox ] || { echo "$0: test skipped: no busybox"; exit 77; }
T=$(( T * 5 ))     # a guest under TCG is slow
export TMPDIR=$tmp
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
kernel=$(ls /boot/vmlinuz-* | sort -V | tail -1)
release=${kernel#/boot/vmlinuz-}

# the same points, verdicts and findings both ways
same () {
  python3 - "$1" "$2" <<'PY'
import json, sys
def pts(r):
    return [(p["id"], p["verdict"], [(f.get("verdict"), f["path"]) for f in p["findings"]])
            for p in r["points"]]
h, g = (json.load(open(f)) for f in sys.argv[1:])
print(pts(h) == pts(g) and len(pts(h)) > 5 and h["totals"] == g["totals"])
PY
}

# run --judge guest: recorded here, judged in a guest
run powercut run --quiet --workload replace-rename --mount-opts noauto_da_alloc --files 2 \
    --judge guest --out "$tmp/r"
assert_eq "$rc" 1 "run --judge guest: the program's zero-length files ($err)"
log=$tmp/r/powercut.log
assert_match "$(cat "$tmp/r/report.txt")" "judged by the guest's kernel ${release//+/[+]} \(in qemu\): [0-9]+ states" \
  "run: the report names the guest's kernel"
[ -s "$tmp/r/judge-console.txt" ] || fail "run: the guest's console is not kept beside the log"

run powercut check "$log" --judge kernel --json "$tmp/host.json"
assert_eq "$rc" 1 "judged by this machine's kernel ($err)"
assert_eq "$(same "$tmp/host.json" "$tmp/r/report.json")" True "run: the guest's kernel and this machine's judge alike"

# check --judge guest
run powercut check "$log" --judge guest --json "$tmp/guest.json"
assert_eq "$rc" 1 "check --judge guest ($err)"
assert_match "$out" "judged by the guest's kernel ${release//+/[+]} \(in qemu\): [0-9]+ states" \
  "check: the text names the guest's kernel"
assert_eq "$(same "$tmp/host.json" "$tmp/guest.json")" True "check: the guest's kernel and this machine's judge alike"
assert_eq "$(json "$tmp/guest.json" '{p["judge"] for p in r["points"]} == {"guest"} and r["kernel_in_guest"]')" \
  True "every point judged by the guest"
assert_eq "$(json "$tmp/guest.json" 'r["kernel"]')" "$release" "the guest's kernel named"
assert_eq "$(json "$tmp/guest.json" 'r["log"]')" "$log" "the log named as given here"

# A guest that cannot run the check: an error, not a verdict
run powercut check "$log" --judge guest --kernel /bin/true --modules "/lib/modules/$release" \
    --json "$tmp/bad.json"
assert_eq "$rc" 2 "a guest that does not boot ($out)"
assert_match "$err" "guest" "says why"
[ ! -e "$tmp/bad.json" ] || fail "a report was written for a guest that did not run"
rm -rf "$tmp"/powercut-guest.*     # its console, kept for the reason

run powercut check "$log" --judge guest --keep "$tmp/keep"
assert_eq "$rc" 2 "--keep with --judge guest"
assert_match "$err" "not with --judge guest" "refused, saying why"

# nothing left: no guest running, no scratch folder
assert_eq "$(pgrep -f -- "$tmp/powercut-guest" || true)" "" "no guest left running"
assert_eq "$(ls -d "$tmp"/powercut-guest.* 2>/dev/null || true)" "" "no scratch folder left"
