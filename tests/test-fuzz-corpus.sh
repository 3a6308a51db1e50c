#!/usr/bin/env bash
# test-fuzz-corpus.sh: every fuzzing harness replays its corpus (seeds, and
# each input that once crashed it) without crashing or failing a check.
source "$top_srcdir/tests/functions.sh"

for h in log mark dmlog fstree nbd request recover; do
  corpus=$top_srcdir/tests/fuzz/corpus/$h
  wrapper=$POWERCUT_WRAPPER
  # valgrind serialises threads and cannot follow io_uring: the nbd harness
  # (a recorder and two client threads in one process) stalls under it; the
  # recorder itself runs under valgrind in the test-record-* tests.
  case $h in nbd|request) wrapper= ;; esac
  run $wrapper "$top_builddir/tests/fuzz/replay_$h" "$corpus"
  # the harness went through its corpus (exit 0)
  assert_eq "$rc" 0 "harness $h ($out $err)"
  assert_match "$out" '^[1-9][0-9]* inputs$' "inputs replayed by $h"
done
