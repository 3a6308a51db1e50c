#!/bin/sh
# replay-corpus.sh: make check's LOG_COMPILER for its test programs: a
# fuzzing harness's replay program, tests/fuzz/replay_NAME, replays its own
# corpus, $top_srcdir/tests/fuzz/corpus/NAME (the source tree's, so that a
# VPATH build finds it); any other program (the unit tests) runs as it is.
# Under $POWERCUT_WRAPPER (make check-valgrind) the replays run under it,
# but for nbd and request: valgrind serialises threads and cannot follow
# io_uring, and their recorder and two client threads in one process stall
# under it (the recorder runs under valgrind in the test-record-* tests).
prog=$1
shift
case $prog in
  */fuzz/replay_*)
    name=${prog##*/replay_}
    corpus=${top_srcdir:?top_srcdir is not set}/tests/fuzz/corpus/$name
    wrapper=${POWERCUT_WRAPPER-}
    case $name in nbd|request) wrapper= ;; esac
    exec $wrapper "$prog" "$corpus" "$@"
    ;;
  *)
    exec "$prog" "$@"
    ;;
esac
