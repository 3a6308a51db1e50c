#!/usr/bin/env bash
# test-fuzz-corpus.sh: the recover harness replays its corpus (seeds, and
# each input that once failed) without crashing or failing a check.  It
# needs the golden log and e2fsck, so a shell test runs it; the other
# harnesses' replay programs are tests of their own in make check, each
# given its corpus by tests/fuzz/replay-corpus.sh.
source "$top_srcdir/tests/functions.sh"

run $POWERCUT_WRAPPER "$top_builddir/tests/fuzz/replay_recover" "$top_srcdir/tests/fuzz/corpus/recover"
# the harness went through its corpus (exit 0)
assert_eq "$rc" 0 "harness recover ($out $err)"
assert_match "$out" '^[1-9][0-9]* inputs$' "inputs replayed by recover"
