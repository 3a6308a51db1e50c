#!/usr/bin/env bash
# test-check-plain.sh: check's reuse of work (in-process journal replay,
# e2fsck answers shared by states with the same metadata, file hashes kept)
# gives exactly the verdicts and findings of the plain method (--plain:
# e2fsck replays and checks every image, every file is read, a traced
# program's history judges every path anew), on the
# golden logs under every model and on a fresh recording of many files
# rewritten by rename, with marks, and of a traced SQLite with findings.
. "$top_srcdir/tests/functions.sh"
requires e2fsck python3
# a check of two thousand states under sanitizers, on a busy machine, may
# take more than a minute; one cut short is not compared (both_ways)
T=600

# both_ways LOG MODEL: checks LOG under MODEL the usual way ($tmp/a.json)
# and the plain way ($tmp/b.json); each must end with a verdict (0 or 1).
both_ways ()
{
  local r=0
  powercut check "$1" -m "$2" -q --json "$tmp/a.json" || r=$?
  [ "$r" -le 1 ] || fail "powercut check $1 -m $2: exit status $r"
  powercut check "$1" -m "$2" -q --plain --json "$tmp/b.json" || r=$?
  [ "$r" -le 1 ] || fail "powercut check --plain $1 -m $2: exit status $r"
}

# same A.json B.json WHAT: every point has the same id, verdict and
# findings, and every version of the durability windows was lost last by
# the same state.
same ()
{
  run python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(p["id"], p["verdict"], json.dumps(p.get("findings"), sort_keys=True))
                 for p in r["points"]]
ka, kb = key(a), key(b)
diff = [(x, y) for x, y in zip(ka, kb) if x != y]
print(len(ka), "points;", sum(1 for x in ka if x[1] != "ok"), "failing;",
      len(diff) + abs(len(ka) - len(kb)), "differ")
for x, y in diff[:5]:
    print("  reused:", x, "\n  plain: ", y)
wins = lambda r: [(w["path"], w["mark"], w["lost_until"]) for w in r.get("windows", {}).get("list", [])]
wa, wb = wins(a), wins(b)
if wa != wb:
    print("  windows differ:", [(x, y) for x, y in zip(wa, wb) if x != y][:3], len(wa), len(wb))
sys.exit(1 if diff or len(ka) != len(kb) or wa != wb else 0)
PY
  echo "$3: $out"
  # the two methods agree on every point
  assert_eq "$rc" 0 "$3: verdicts of check and check --plain ($out $err)"
}

for log in "$top_srcdir"/tests/golden/*/recording.pclog; do
  name=$(basename "$(dirname "$log")")
  for model in flush write reorder:2 torn:2; do
    both_ways "$log" "$model"
    same "$tmp/a.json" "$tmp/b.json" "$name $model"
  done
done

# Many small files in directories, each rewritten by write + fsync + rename,
# a synced mark every 50 rewrites: states differ in file data more than in
# metadata, which is where reuse is taken.
if [ "$(id -u)" = 0 ] && command -v nbdfuse >/dev/null; then
  # a mount and a loop device of this machine: from here on the test holds
  # the suite's lock, as the tests that need root do (functions.sh)
  runs_alone
  cat >"$tmp/work.sh" <<'SH'
#!/bin/sh
set -e
cd "$POWERCUT_MNT"
for d in 0 1 2 3 4 5 6 7 8 9; do mkdir d$d; done
"$POWERCUT" mark start --manifest "$POWERCUT_MNT" --sync
i=0
while [ $i -lt 300 ]; do
  f=d$((i % 10))/f$((i % 37))
  head -c $(( (i % 13 + 1) * 3000 )) /dev/urandom >$f.tmp
  sync $f.tmp
  mv $f.tmp $f
  i=$((i + 1))
  [ $((i % 50)) -ne 0 ] || "$POWERCUT" mark m$i --manifest "$POWERCUT_MNT" --sync
done
SH
  chmod +x "$tmp/work.sh"
  run powercut run --settle 0 --size 64M -q --out "$tmp/rec" -- "$tmp/work.sh"
  # the workload is recorded and checked
  assert_eq "$(( rc == 0 || rc == 1 ))" 1 "powercut run: exit status $rc (stderr: $err)"
  # A traced program with findings (SQLite, synchronous=off, no marks): the
  # history's judgements kept from state to state (histmemo.c) against
  # every path judged anew.
  sqlite=no
  if command -v sqlite3 >/dev/null; then
    sqlite=yes
    export SQLITE_MARKS=no SQLITE_JOURNAL_MODE=delete SQLITE_SYNCHRONOUS=off
    run powercut run --settle 0 -q --config 'ext4 noauto_da_alloc' --out "$tmp/sq" -- \
        "$top_srcdir/contrib/apps/sqlite/workload.sh"
    unset SQLITE_MARKS SQLITE_JOURNAL_MODE SQLITE_SYNCHRONOUS
    assert_eq "$(( rc == 0 || rc == 1 ))" 1 "traced sqlite: exit status $rc (stderr: $err)"
  fi
  # XFS, judged by the kernel and xfs_repair -n: its quick form (a small
  # cache, -m 64) against the check as it is (--plain), on a recording
  # with a broken promise (XFS's syncfs bug); and where the quick form
  # says its cache is too small (an xfs_repair that says so whenever it
  # is given -m), the check as it is runs instead: the same verdicts
  if command -v mkfs.xfs >/dev/null && command -v xfs_repair >/dev/null; then
    run powercut run --settle 0 -q --config xfs --out "$tmp/xfs" -- \
        "$top_srcdir/contrib/known-bugs/xfs-syncfs-no-flush.sh"
    assert_eq "$rc" 1 "xfs: the syncfs bug's recording ($err)"
    both_ways "$tmp/xfs/powercut.log" flush
    same "$tmp/a.json" "$tmp/b.json" "xfs flush"
    assert_match "$(python3 -c 'import json, sys
print(*sorted({p["verdict"] for p in json.load(open(sys.argv[1]))["points"]}))' "$tmp/a.json")" \
      '^durable-lost ok$' "xfs: the states judged, the broken promise among them"
    mkdir "$tmp/short"
    cat >"$tmp/short/xfs_repair" <<SH
#!/bin/sh
case " \$* " in
  *" -m "*) echo quick >>"$tmp/short/asked"
            echo "Required memory for repair is greater that the maximum specified"
            echo "with the -m option. Please increase it to at least 9999."; exit 1 ;;
esac
exec $(command -v xfs_repair) "\$@"
SH
    chmod +x "$tmp/short/xfs_repair"
    PATH=$tmp/short:$PATH powercut check "$tmp/xfs/powercut.log" -q --json "$tmp/c.json" || true
    same "$tmp/c.json" "$tmp/b.json" "xfs, the quick check short of memory"
    [ -s "$tmp/short/asked" ] || fail "xfs: the quick check was not asked for"
  fi
  host_done                     # the rest checks logs, by libext2fs
  for model in flush reorder:2; do
    both_ways "$tmp/rec/powercut.log" "$model"
    same "$tmp/a.json" "$tmp/b.json" "rename workload $model"
    work=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["work"]; print(w["fsck_reused"], w["recovered_in_process"], w["files_reused"])' "$tmp/a.json")
    echo "rename workload $model: e2fsck answers reused, journals replayed here, files reused: $work"
    read -r fr rh fu <<<"$work"
    # and the reuse was taken, not skipped
    assert_ge "$fr" 1 "$model: e2fsck answers reused"
    assert_ge "$rh" 1 "$model: journals replayed in process"
    assert_ge "$fu" 1 "$model: file hashes reused"
  done
  if [ "$sqlite" = yes ]; then
    for model in flush reorder:2; do
      both_ways "$tmp/sq/powercut.log" "$model"
      same "$tmp/a.json" "$tmp/b.json" "traced sqlite $model"
    done
  fi
else
  echo "not root or no nbdfuse: the kernel recording is left out"
fi
