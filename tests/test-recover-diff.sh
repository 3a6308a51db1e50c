#!/usr/bin/env bash
# test-recover-diff.sh: the in-process journal recovery (lib/replay/recover.c)
# leaves every crash state exactly as `e2fsck -y -E journal_only` does, byte
# for byte (but s_kbytes_written), on the golden logs under every model and
# on fresh ext3 and ext4 data=journal recordings; where it declines, e2fsck
# recovers instead, and most states are replayed in process.
. "$top_srcdir/tests/functions.sh"
requires e2fsck
diff=$top_builddir/tests/recover-diff

# check LOG MODEL [EVERY]: runs the comparison (of every EVERY-th state),
# fails on any difference, and leaves the counts of the summary line in
# $same $differ $declined.
check ()
{
  run "$diff" "$1" "$2" "$tmp" ${3:-1}
  echo "$(basename "$(dirname "$1")") $2: $(tail -1 <<<"$out")"
  grep ' refused: ' <<<"$out" || true
  # no state is recovered differently (exit 1 and a DIFFERENT line if one is)
  assert_eq "$rc" 0 "recover-diff $1 $2: exit status (stderr: $err; $(grep DIFFERENT <<<"$out" | head -3))"
  read -r same differ declined < <(sed -n 's/.*: \([0-9]*\) replayed identically, \([0-9]*\) different, \([0-9]*\) left to e2fsck.*/\1 \2 \3/p' <<<"$out")
  assert_eq "$differ" 0 "$1 $2: states recovered differently"
}

total_same=0 total_declined=0
for log in "$top_srcdir"/tests/golden/*/recording.pclog; do
  for model in flush write reorder:2 torn:2; do
    # torn states are the most, and the nearest alike: every other one
    check "$log" "$model" "$([ "$model" = torn:2 ] && echo 2 || echo 1)"
    total_same=$(( total_same + same )) total_declined=$(( total_declined + declined ))
  done
done

# ext3 (no journal checksums, a journal mapped by indirect blocks) and ext4
# data=journal (file data in the journal), recorded through the kernel.
if [ "$(id -u)" = 0 ] && command -v nbdfuse >/dev/null; then
  # a mount and a loop device of this machine: from here on the test holds
  # the suite's lock, as the tests that need root do (functions.sh)
  runs_alone
  run powercut run --fs ext3 --fs ext4 -o data=journal --size 32M -q --out "$tmp/run"
  # both recorded and checked
  assert_eq "$(( rc == 0 || rc == 1 ))" 1 "powercut run ext3/ext4 data=journal: exit status $rc (stderr: $err)"
  host_done                     # the rest compares files
  # a kernel recording's torn states are many and each is a 32 MiB image
  # recovered twice: every other one is compared, within a longer bound
  T=$(( T * 3 ))
  for log in "$tmp"/run/*/powercut.log; do
    check "$log" flush
    total_same=$(( total_same + same )) total_declined=$(( total_declined + declined ))
    check "$log" torn:2 2
    total_same=$(( total_same + same )) total_declined=$(( total_declined + declined ))
  done
else
  echo "not root or no nbdfuse: the kernel recordings are left out"
fi

echo "in all: $total_same states replayed identically, $total_declined left to e2fsck"
# the comparison compared something: most recovering states are replayed here
assert_ge "$total_same" 600 "states replayed in process and compared"
assert_ge "$(( total_same / (total_declined + 1) ))" 10 "replayed in process per state left to e2fsck"
