#!/usr/bin/env bash
# test-record-kill-trials.sh: the recorder killed with SIGKILL at many
# random moments of a write+flush workload: every time, the log reads back
# (its end torn or cut, never corrupt), every write the client saw
# acknowledged is in it, and at least every flush the client saw answered.
# The client did see acknowledgements: at least those the log proves it
# saw, so "0 missing" cannot pass by nothing having been acknowledged.
# Trials: $POWERCUT_KILL_TRIALS (default 10); the summary line counts them.
source "$top_srcdir/tests/functions.sh"
requires qemu-io

trials=${POWERCUT_KILL_TRIALS:-10}
# write block i (4 KiB of byte i%255+1 at i*4 KiB), then flush, many times:
# when write i+1 is reported, flush i was answered (see test-record-kill9.sh)
for i in $(seq 0 19999); do
  echo "write -P $(( i % 255 + 1 )) $(( i * 4096 )) 4k"
  echo "flush"
done >"$tmp/commands"

lost=0 total_acked=0 acked_trials=0
for (( t = 1; t <= trials; t++ )); do
  log=$tmp/log.$t
  start_recorder --size 128M
  timeout "$T" qemu-io -t none -f raw "$uri" <"$tmp/commands" >"$tmp/out" 2>&1 &
  qemu_pid=$!
  # a random moment: once the log holds between 4 KiB and ~1.5 MiB
  limit=$(( 4096 + (RANDOM * 48) ))
  grown () { [ "$(stat -c %s "$log")" -gt "$limit" ]; }
  wait_until "$T" grown
  kill -KILL "$recorder_pid"
  wait_recorder_exit
  st=0; wait "$qemu_pid" || st=$?
  # trial $t: qemu-io ran to the end of its commands (and so wrote out all
  # it reports), its requests failing once the server was gone
  assert_eq "$st" 1 "trial $t: qemu-io exit status ($(tail -n 3 "$tmp/out"))"
  acked=$(grep -o 'wrote 4096/4096 bytes at offset [0-9]*' "$tmp/out" | awk '{ print $NF }' || true)
  n_acked=$(grep -c . <<<"$acked" || true)
  read_log
  # trial $t: the log of the killed recorder reads (exit 0) ...
  assert_eq "$log_rc" 0 "trial $t: powercut log (stderr: $log_err)"
  # ... and ends torn or cut, never corrupt
  assert_match "$(field end)" '^torn' "trial $t: end"
  dump_log
  logged=$(awk '$4 == "write" { sub(/offset=/, "", $5); print $5 }' <<<"$dump")
  missing=$(comm -23 <(sort <<<"$acked") <(sort <<<"$logged") | grep -c . || true)
  flushes=$(count flush)
  [ "$n_acked" -le 1 ] || [ "$flushes" -ge $(( n_acked - 1 )) ] || missing=$(( missing + 1 ))
  # trial $t: no acknowledged write or flush is missing from the log
  assert_eq "$missing" 0 "trial $t: acknowledged requests missing (acked $n_acked writes, log has $flushes flushes)"
  # trial $t: the client saw acknowledged at least the writes the log
  # proves it saw.  qemu-io sends a request only once the last one was
  # answered, and the recorder logs a request only once it has it: every
  # write before the log's last record (or before its torn tail, a request
  # being logged) was answered, and reported, before the kill.  Only a kill
  # while the first write record is being logged leaves nothing proven: the
  # kill comes once the log passes $limit, so that needs a limit under its
  # 256-byte header + 56 + 4096 bytes, 7 limits in 32768.
  proven=$(awk '/^# end: torn: [0-9]+ bytes/ { partial = 1 }
                !/^#/ { if ($4 == "write") w++; last = $4 }
                END { print w - (last == "write" && !partial) }' <<<"$dump")
  assert_ge "$n_acked" "$proven" "trial $t: writes the client saw acknowledged (the log proves $proven)"
  echo "trial $t: killed past $limit bytes; writes acknowledged $n_acked, proven $proven"
  lost=$(( lost + missing ))
  total_acked=$(( total_acked + n_acked ))
  [ "$n_acked" -eq 0 ] || acked_trials=$(( acked_trials + 1 ))
  rm -f "$log"
done
echo "kill trials: $trials, writes acknowledged: $total_acked (in $acked_trials trials)," \
     "acknowledged requests lost: $lost"
# Over all trials, writes were acknowledged, in most trials: a trial sees
# none only if killed while its first write was logged (see above), and
# five such trials of ten are as likely as 10^-16.
assert_ge "$total_acked" 1 "writes acknowledged over all trials"
assert_ge "$(( 2 * acked_trials ))" "$(( trials + 1 ))" "trials with a write acknowledged ($acked_trials of $trials)"
