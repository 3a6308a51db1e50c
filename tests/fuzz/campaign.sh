#!/usr/bin/env bash
# campaign.sh: runs libFuzzer harnesses (built by "make fuzz") for a set
# time each, from the seed corpora under tests/fuzz/corpus, and prints per
# harness the executions, the coverage reached, how far into the run the
# coverage last grew (the plateau) and the failures found.
#
# usage: tests/fuzz/campaign.sh [-o DIR] SECONDS [HARNESS...]
#   run from the build directory; DIR (default fuzz/campaign) keeps each
#   harness's grown corpus, its output and any failing input.
set -euo pipefail

out=fuzz/campaign
if [ "${1-}" = -o ]; then out=$2; shift 2; fi
if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [-o DIR] SECONDS [HARNESS...]" >&2
  exit 2
fi
secs=$1; shift
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] || set -- log mark dmlog fstree nbd request

printf '%-8s %12s %7s %9s %14s %8s\n' harness executions cov features "last cov gain" failures
for h in "$@"; do
  bin=fuzz/fuzz-$h
  if [ ! -x "$bin" ]; then
    echo "$0: $bin: not built (run make fuzz)" >&2
    exit 2
  fi
  dir=$out/$h
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp -n "$srcdir/tests/fuzz/corpus/$h"/* "$dir/corpus/" 2>/dev/null || true
  # -timeout: an input that runs 10 s counts as a hang, which is a failure.
  "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
         -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
         "$dir/corpus" >"$dir/output.txt" 2>&1 || true
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/output.txt" | tail -n 1)
  # The coverage (cov:) of each status line, with the execution count
  # it was printed at; the last line where it grew marks the plateau.
  read -r cov ft last < <(awk '
    /^#[0-9]+.*cov: / {
      n = substr($1, 2) + 0
      for (i = 1; i <= NF; i++) {
        if ($i == "cov:") c = $(i + 1) + 0
        if ($i == "ft:") f = $(i + 1) + 0
      }
      if (c > best) { best = c; at = n }
    }
    END { print best + 0, f + 0, at + 0 }' "$dir/output.txt")
  fails=$(find "$dir/artifacts" -type f | wc -l)
  pct=$(awk -v a="$last" -v n="${execs:-0}" 'BEGIN { printf "%.0f%%", n ? 100 * a / n : 0 }')
  printf '%-8s %12s %7s %9s %14s %8s\n' "$h" "${execs:-?}" "$cov" "$ft" "$pct" "$fails"
done
