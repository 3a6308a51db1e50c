#!/bin/sh
# tests/timed.sh: the SH_LOG_COMPILER of the test scripts: runs one (with
# bash, as its first line asks) and ends its log with how long it took, a
# line "# time: SECONDS s" that .ci/run sorts to name the slowest tests.
# Its exit status is the test's (77: skipped).
start=$(date +%s%N)
bash "$@"
st=$?
end=$(date +%s%N)
echo "# time: $(( (end - start) / 1000000000 )).$(( (end - start) / 100000000 % 10 )) s"
exit $st
