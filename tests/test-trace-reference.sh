#!/usr/bin/env bash
# test-trace-reference.sh: the oracle on a traced program's calls against
# a small brute-force reference (tests/trace-ref.py), verdict and fault,
# on ext4.  First random traced workloads: writes of whole blocks (plain,
# O_SYNC, O_DIRECT|O_SYNC, through a mapping with msync), truncates,
# O_TRUNC, renames, unlinks, fsync and fdatasync of files, fsync of
# directories, sync, acknowledgements.  Then the corpus of program
# patterns (trace-ref.py list: rewrites with O_TRUNC, renames over a file,
# sed/perl/vim saves twice, unlink and re-create, scratch and temporary
# files, never-synced index and lock files beside synced data, stores
# through a mapping with and without msync, acknowledged appends, an
# acknowledgement before and after a sync), all in one recording.  At
# every crash state, judged at its moment, every path is ok, exposure,
# the program's (a durable version given up), ack-lost or a broken
# promise the same way by both.  Then each again with the data of blocks
# the workload made durable zeroed in the log, so that the states after
# their sync break a promise.
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 e2fsck
T=$(( T * 4 ))
ref=$top_srcdir/tests/trace-ref.py
seeds=${POWERCUT_REF_SEEDS:-"1 2"}

# compare LOG TREES-REPORT DUMPS MODEL: checks LOG (its acknowledgements
# the "ack K" lines) and compares with the reference; prints "N CLASSES"
compare ()
{
  powercut check "$1" -q --acks '^ack ' --json "$tmp/check.json" || [ $? = 1 ] ||
    fail "check $1: exit status $?"
  powercut log --dump "$1" >"$tmp/dump.txt"
  powercut log "$1" >"$tmp/marks.txt"
  python3 "$ref" compare "$4" "$tmp/dump.txt" "$tmp/marks.txt" "$tmp/check.json" \
    "$3" "$2"
}

# The --verify command: the state's tree copied into COPIES/POINT ("/"
# as "_"), each turned into the reference's dump after the check (one
# Python for every state, not one for each).
copy_tree='d=$COPIES/$(echo "$POWERCUT_POINT" | tr / _) && mkdir "$d" && cp -a . "$d"'

# record NAME ARGS...: trace-ref.py ARGS traced, each state's tree dumped
# into $tmp/NAME.d; the run's output in $tmp/NAME
record ()
{
  local name=$1
  shift
  rm -rf "$tmp/$name" "$tmp/$name.d" "$tmp/$name.c"
  mkdir "$tmp/$name.d" "$tmp/$name.c"
  COPIES=$tmp/$name.c run powercut run --settle 0 -q -O "$tmp/$name" --verify "$copy_tree" -- \
    python3 "$ref" "$@"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$name: run exit $rc ($err)"
  python3 "$ref" dump-copies "$tmp/$name.c" "$tmp/$name.d" || fail "$name: dump"
}

# zeroed NAME TAG...: NAME's log with the blocks of each TAG zeroed,
# checked (trees into $tmp/NAME-z.d) and compared; prints as compare
zeroed ()
{
  local name=$1 tag
  shift
  cp "$tmp/$name/powercut.log" "$tmp/$name-z.log"
  for tag in "$@"; do
    "$top_builddir/tests/log-edit" "$tmp/$name-z.log" zero-block "$tag" >/dev/null ||
      fail "$name: zero-block $tag"
  done
  rm -rf "$tmp/$name-z.d" "$tmp/$name-z.c"
  mkdir "$tmp/$name-z.d" "$tmp/$name-z.c"
  COPIES=$tmp/$name-z.c run powercut check "$tmp/$name-z.log" -q --verify "$copy_tree" \
    --json "$tmp/$name-z.json"
  [ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "$name, zeroed: check exit $rc ($err)"
  python3 "$ref" dump-copies "$tmp/$name-z.c" "$tmp/$name-z.d" || fail "$name, zeroed: dump"
  compare "$tmp/$name-z.log" "$tmp/$name-z.json" "$tmp/$name-z.d" "$tmp/$name.model.json"
}

class () { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2 " | grep . || echo 0; }

# Every recording first: the rest checks and compares logs (by libext2fs)
npat=$(python3 "$ref" list | wc -l)
assert_ge "$npat" 40 "program patterns"
for seed in $seeds; do
  record "r$seed" gen "$seed" "$tmp/r$seed.model.json"
done
record patterns patterns "$tmp/patterns.model.json"
host_done

total=0 promises=0
for seed in $seeds; do
  out=$(compare "$tmp/r$seed/powercut.log" "$tmp/r$seed/report.json" "$tmp/r$seed.d" \
          "$tmp/r$seed.model.json") ||
    fail "seed $seed: powercut and the reference differ: $out"
  n=${out%% *}
  assert_ge "$n" 20 "seed $seed: (state, path) pairs compared"
  total=$((total + n))

  # one block a synchronous write or an msync made durable: zeroed in the log
  tag=$(python3 - "$tmp/r$seed.model.json" "$seed" <<'PY'
import json, random, sys
ops = json.load(open(sys.argv[1]))
cands = []
for k, op in enumerate(ops, 1):
    if op["wrote"] and op["kind"] in ("write", "msync") and op["durable"]:
        ident, lo, hi = op["wrote"]
        cands.append("op%03d-blk%02d-" % (k, random.Random(k).randrange(lo, hi) % 100))
print(random.Random(int(sys.argv[2])).choice(cands) if cands else "")
PY
)
  # (the zeroed log of the first seed alone: the corpus below has more)
  [ -n "$tag" ] && [ "$seed" = "${seeds%% *}" ] || continue
  out=$(zeroed "r$seed" "$tag") || fail "seed $seed, $tag zeroed: powercut and the reference differ: $out"
  total=$((total + ${out%% *}))
  promises=$((promises + $(class promise "$out")))
done
echo "random: $total (state, path) pairs agree; $promises broke a promise in the zeroed log"
# (broken promises are compared for sure in the corpus's zeroed log below)

# The corpus, in one recording
out=$(compare "$tmp/patterns/powercut.log" "$tmp/patterns/report.json" "$tmp/patterns.d" \
        "$tmp/patterns.model.json") ||
  fail "patterns: powercut and the reference differ: $out"
echo "patterns: $out"
for c in program ack exposure; do
  assert_ge "$(class $c "$out")" 1 "patterns: pairs of class $c"
done
# the durable data of three files zeroed: promises broken there until the
# program gave the version up (an O_TRUNC) or as long as it kept it (a
# rewrite in place, an append)
tags=$(python3 - "$tmp/patterns.model.json" <<'PY'
import json, sys
ops = json.load(open(sys.argv[1]))
for pat in ("otrunc_bigger/f", "rewrite_in_place/f", "append/f"):
    k = next(k for k, op in enumerate(ops, 1) if op["kind"] == "write" and op["path"] == pat)
    print("op%03d-blk00-" % k)
PY
)
out=$(zeroed patterns $tags) || fail "patterns, zeroed: powercut and the reference differ: $out"
echo "patterns, zeroed: $out"
assert_ge "$(class promise "$out")" 1 "patterns, zeroed: broken promises compared"
# every fix that names a rename names the file that rename put there
for j in "$tmp/patterns-z.json" "$tmp/check.json"; do
  python3 - "$j" <<'PY' || fail "a fix names another file than its rename's"
import json, re, sys
r = json.load(open(sys.argv[1]))
for p in r["points"]:
    for f in p["findings"]:
        m = re.match(r'an fsync of (\S+) before rename\("([^"]+)"', f["cause"].get("fix") or "")
        assert m is None or m.group(1) == m.group(2), (p["id"], f["path"], f["cause"]["fix"])
PY
done
