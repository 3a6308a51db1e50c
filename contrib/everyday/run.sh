#!/usr/bin/env bash
# run.sh: the everyday scenarios of this folder, each run with `powercut
# run` on every configuration (ext4, ext4 noauto_da_alloc, ext4
# data=writeback; EVERYDAY_CONFIGS, one per line, for others), and a
# table of what each report.json says: crash points, failing points by
# whose fault (the filesystem's: a broken promise; the program's: a
# durable version it gave up; nobody's: only data never made durable
# lost), the files lost, and the fix named by the first finding that is
# the program's (else nobody's).  The table is Markdown, on stdout.  With
# --repeat N among the RUN-OPTIONs each configuration is run N times (one
# run is one sample of the kernel's timing): the counts are the N runs'
# together, and a column says in how many of them something was lost
# ("3 of 5 runs").
# usage: run.sh [OUT] [SCENARIO...] [-- RUN-OPTION...]   (as root)
# OUT defaults to everyday-out; a SCENARIO is a name (sed-i) or a script;
# RUN-OPTIONs go to every `powercut run`.  POWERCUT names the program
# (default: powercut in PATH), EVERYDAY_IDLE the seconds each scenario
# idles after its program (default 7).  Each run is in OUT/NAME/CONFIG/
# (its output in OUT/NAME/CONFIG.out).  Exits 0 if no point anywhere is
# the filesystem's fault, 1 if one is, 2 if a run failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=everyday-out
if [ $# -gt 0 ] && [ "$1" != -- ]; then out=$1; shift; fi
scripts=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    */*|*.sh) scripts+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
    *) scripts+=("$here/$1.sh") ;;
  esac
  shift
done
[ $# -eq 0 ] || shift
[ ${#scripts[@]} -gt 0 ] || scripts=("$here"/*.sh)
# --repeat N among the run options: the runs' column
repeat=1
prev=
for o in "$@"; do
  case $prev,$o in
    --repeat,*) repeat=$o ;;
    *,--repeat=*) repeat=${o#--repeat=} ;;
  esac
  prev=$o
done
powercut=${POWERCUT:-powercut}
configs=${EVERYDAY_CONFIGS:-'ext4
ext4 noauto_da_alloc
ext4 data=writeback'}
# the scenarios idle themselves: a run that would settle after them is
# told not to
mkdir -p "$out"
worst=0
echo "everyday programs on kernel $(uname -r), $(date -u +%Y-%m-%d), idle ${EVERYDAY_IDLE:-7} s"
echo
if [ "$repeat" -gt 1 ]; then
  echo "each configuration run $repeat times: the counts are the $repeat runs' together"
  echo
  echo "| scenario | configuration | lost in | points | filesystem | program | nobody | files lost | fix |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---|"
  empty="| | | | | | |"
else
  echo "| scenario | configuration | points | filesystem | program | nobody | files lost | fix |"
  echo "|---|---|---:|---:|---:|---:|---:|---|"
  empty="| | | | | |"
fi
for s in "${scripts[@]}"; do
  case $s in */run.sh) continue ;; esac
  [ -x "$s" ] || { echo "$0: $s: no such scenario" >&2; exit 2; }
  name=$(basename "$s" .sh)
  while IFS= read -r config; do
    [ -n "$config" ] || continue
    dir=$out/$name/$(echo "$config" | tr ' =' '--')
    rm -rf "$dir"
    mkdir -p "$(dirname "$dir")"
    st=0
    "$powercut" run --quiet --config "$config" --out "$dir" --settle 0 \
      "$@" -- "$s" >"$dir.out" 2>&1 || st=$?
    if [ $st -gt 1 ] || [ ! -f "$dir/report.json" ]; then
      echo "| $name | $config | error ($st): see $dir.out $empty"
      worst=2
      continue
    fi
    pst=0
    row=$(python3 - "$dir/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["totals"]
notes = {"unmentioned", "not-judged", "older-version"}
lost, fix = set(), {}
# a run's findings at each point, or (--repeat) the findings across runs
findings = r["findings"] if "repeated" in r else [f for p in r["points"] for f in p.get("findings", [])]
for f in findings:
    if f["verdict"] in notes or "fault" not in f:
        continue
    lost.add(f["path"])
    fx = f.get("cause", {}).get("fix")
    if fx and f["fault"] not in fix:
        fix[f["fault"]] = fx
fx = fix.get("program") or fix.get("none") or ""
runs = "%d of %d runs | " % (r["runs_failed"], r["repeated"]) if "repeated" in r else ""
print("%s%d | %d | %d | %d | %d | %s" % (runs, t["points"], t["promises"], t.get("program_promises", 0),
      t["exposures"], len(lost), fx.replace("|", "\\|")))
sys.exit(10 if t["promises"] else 0)
PY
) || pst=$?
    case $pst in
      0) ;;
      10) [ $worst -ge 1 ] || worst=1 ;;
      *) row="error: $dir/report.json unread ${empty% |}"; worst=2 ;;
    esac
    echo "| $name | $config | $row |"
  done <<<"$configs"
done
exit $worst
