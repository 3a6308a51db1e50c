#!/bin/sh
# tests/timed.sh: the SH_LOG_COMPILER of the test scripts: runs one (with
# bash, as its first line asks) and ends its log with how long it took, a
# line "# time: SECONDS s" that .ci/run sorts to name the slowest tests:
# the time it ran, without what it spent waiting for the suite's lock
# (tests/functions.sh writes that, in seconds, to $PC_LOCK_WAITED).
# Its exit status is the test's (77: skipped).
PC_LOCK_WAITED=$(mktemp "${TMPDIR:-/tmp}/pc-waited.XXXXXX") || exit 99
export PC_LOCK_WAITED
start=$(date +%s%N)
bash "$@"
st=$?
end=$(date +%s%N)
waited=$(cat "$PC_LOCK_WAITED")
rm -f "$PC_LOCK_WAITED"
ran=$(( end - start - ${waited:-0} * 1000000000 ))
[ "$ran" -ge 0 ] || ran=0
echo "# time: $(( ran / 1000000000 )).$(( ran / 100000000 % 10 )) s${waited:+ (and $waited s waiting for the lock)}"
exit $st
