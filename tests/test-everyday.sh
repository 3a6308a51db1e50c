#!/usr/bin/env bash
# test-everyday.sh: a quick subset of contrib/everyday, each scenario run
# as a user runs it (powercut run -- ./SCENARIO.sh) with a short idle.
# Only what holds whatever the kernel's timing is asserted: a program's
# unsynced data may or may not be lost, but the filesystem is never at
# fault, and what is deleted without a replacement is never a loss.
# sed -i on ext4 and on noauto_da_alloc (--fail-on promises passes; an
# empty file, when a crash finds one, is the program's, fixed by an fsync
# of its temporary file before the rename); vim with its defaults (its
# fsync'd swap file, deleted at exit, is no finding); logrotate (its
# dropped rotation is no finding); rm through the runner (no finding at
# all, and the runner's row says so, with --repeat 2 in how many runs it
# lost something); a file renamed over an empty one, synced or not (no
# finding); the shell's > over a synced file on ext4, noauto_da_alloc and
# data=writeback (anything lost is the program's); sed -i twice with
# another file fsync'd between (nothing the filesystem's, no promise said
# broken, in the windows neither).
source "$top_srcdir/tests/functions.sh"
requires_root
requires python3 sed vim logrotate
T=$(( T * 3 ))
json () { python3 -c 'import json,sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# the paths a report has a finding at, one a line
found () { json "$1" '"\n".join(sorted({f["path"] for p in r["points"] for f in p["findings"]}))'; }
ev=$top_srcdir/contrib/everyday
export EVERYDAY_IDLE=1
# the scenarios idle themselves

# everyday NAME CONFIG [RUN-OPTION...]: the scenario NAME run on CONFIG
# into $tmp/NAME-CONFIG; $r is its report.json
everyday ()
{
  local name=$1 config=$2
  shift 2
  r=$tmp/$name-${config// /-}/report.json
  run powercut run --quiet --config "$config" --out "${r%/report.json}" --settle 0 \
    "$@" -- "$ev/$name.sh"
  [ -f "$r" ] || fail "$name on $config: no report ($rc: $err)"
}

# sed -i on ext4: nothing of the filesystem's
everyday sed-i ext4 --fail-on promises
assert_eq "$rc" 0 "sed -i on ext4, --fail-on promises ($err)"
assert_eq "$(json "$r" 'r["totals"]["promises"]')" 0 "sed -i on ext4: the filesystem's faults"
assert_ge "$(json "$r" 'r["totals"]["points"]')" 5 "sed -i on ext4: crash points"

# sed -i on noauto_da_alloc: an empty etc/app.conf, if a crash finds one,
# is the program's, and the fix is an fsync of sed's temporary file
# before its rename
everyday sed-i 'ext4 noauto_da_alloc' --fail-on promises
assert_eq "$rc" 0 "sed -i on noauto_da_alloc, --fail-on promises ($err)"
assert_eq "$(json "$r" 'r["totals"]["promises"]')" 0 "sed -i on noauto_da_alloc: the filesystem's faults"
assert_eq "$(json "$r" '[(f["path"], f.get("fault")) for p in r["points"] for f in p["findings"]
  if f["path"] == "etc/app.conf" and f.get("fault") != "program"]')" "[]" \
  "sed -i on noauto_da_alloc: etc/app.conf lost by another's fault"
assert_eq "$(json "$r" '[f["cause"].get("fix") for p in r["points"] for f in p["findings"]
  if f.get("fault") == "program" and not (f["cause"].get("fix", "").startswith("an fsync of etc/sed")
                                          and " before rename(\"etc/sed" in f["cause"]["fix"])]')" "[]" \
  "sed -i on noauto_da_alloc: a fix that is not an fsync of the temporary file before the rename"

# vim with its defaults: the swap file, fsync'd and deleted at exit, is
# no finding; nothing of the filesystem's
everyday vim ext4 --fail-on promises
assert_eq "$rc" 0 "vim on ext4, --fail-on promises ($err)"
assert_eq "$(json "$r" 'r["totals"]["promises"]')" 0 "vim on ext4: the filesystem's faults"
assert_no_match "$(found "$r")" '\.sw[a-z]$' "vim on ext4: a finding at its swap file"
run powercut log --dump "$tmp/vim-ext4/powercut.log"
assert_match "$out" 'event exit .*fsync\([0-9]+</etc/\.app\.conf\.swp>\) = 0' "vim on ext4: the swap file was fsync'd"
assert_match "$out" 'event exit .*unlink\("[^"]*etc/\.app\.conf\.swp"\) = 0' "vim on ext4: the swap file was deleted"

# logrotate: the dropped rotation (app.log.3, renamed from app.log.2 and
# deleted) is no finding; nothing of the filesystem's
everyday logrotate ext4 --fail-on promises
assert_eq "$(json "$r" 'sorted({(p["id"], f["path"]) for p in r["points"] for f in p["findings"] if f.get("fault") == "filesystem"})')" \
  "[]" "logrotate on ext4: points and paths called the filesystem's fault"
assert_eq "$rc" 0 "logrotate on ext4, --fail-on promises ($err)"
assert_eq "$(json "$r" 'r["totals"]["promises"]')" 0 "logrotate on ext4: the filesystem's faults"
assert_no_match "$(found "$r")" '^log/app\.log\.3$' "logrotate on ext4: a finding at the dropped rotation"

# the shell's > over a synced file (O_TRUNC, bigger, never synced), on
# ext4, noauto_da_alloc and data=writeback: what a crash loses of it
# (found empty, or at its new size with zeros) is the program's, never
# the filesystem's: the truncate gave the synced version up
for config in ext4 'ext4 noauto_da_alloc' 'ext4 data=writeback'; do
  everyday shell-redirect "$config" --fail-on promises
  assert_eq "$rc" 0 "> on $config, --fail-on promises ($err)"
  assert_eq "$(json "$r" 'sorted({(f["path"], f["verdict"], f["fault"]) for p in r["points"] for f in p["findings"] if f["fault"] != "program"})')" \
    "[]" "> on $config: findings that are not the program's"
done

# sed -i twice, another file fsync'd in between: nothing is the
# filesystem's, nowhere does the report say a promise was broken, and the
# durability windows' acknowledged loss (if any) is not the filesystem's
everyday sed-i-twice ext4
assert_eq "$(json "$r" 'sorted({(f["path"], f["verdict"]) for p in r["points"] for f in p["findings"] if f["fault"] == "filesystem"})')" \
  "[]" "sed -i twice: findings that are the filesystem's"
assert_no_match "$(cat "${r%.json}.txt")" "[Bb]roke its promise|BROKE ITS PROMISE" "sed -i twice: a promise said broken"
assert_ne "$(json "$r" 'r["windows"]["acknowledged_fault"]')" filesystem "sed -i twice: the windows' acknowledged fault"

# rm, through the runner: no finding at all, and its row says so
run env EVERYDAY_CONFIGS=ext4 "$ev/run.sh" "$tmp/runner" rm
assert_eq "$rc" 0 "run.sh rm ($out $err)"
assert_match "$out" '^\| rm \| ext4 \| [1-9][0-9]* \| 0 \| 0 \| 0 \| 0 \|  \|$' "run.sh: the row of rm"
r=$tmp/runner/rm/ext4/report.json
assert_eq "$(json "$r" 'r["totals"]["ok"] == r["totals"]["points"]')" True "rm: every point ok"
assert_eq "$(found "$r")" "" "rm: findings"
# ... and with --repeat 2: in how many runs it lost something, a column
run env EVERYDAY_CONFIGS=ext4 "$ev/run.sh" "$tmp/runner2" rm -- --repeat 2
assert_eq "$rc" 0 "run.sh rm -- --repeat 2 ($out $err)"
assert_match "$out" '^\| scenario \| configuration \| lost in \| points \|' "run.sh --repeat: the header"
assert_match "$out" '^\| rm \| ext4 \| 0 of 2 runs \| [1-9][0-9]* \| 0 \| 0 \| 0 \| 0 \|  \|$' \
  "run.sh --repeat: the row of rm"
[ -f "$tmp/runner2/rm/ext4/run-2/powercut.log" ] || fail "run.sh --repeat 2: no second run"

# the two minimal workloads of the false alarms: a file renamed over an
# empty one, synced or never synced, its folder not synced: the old empty
# file is a state a crash may keep (no finding, whatever the timing)
for sync_old in yes no; do
  cat >"$tmp/empty-$sync_old.sh" <<SH
: > f
[ $sync_old = yes ] && sync f && sync -f .
printf 'new data\n' > f.new
sync f.new
mv f.new f
sleep 2
SH
  run powercut run --quiet --config ext4 --settle 0 --out "$tmp/empty-$sync_old" -- sh "$tmp/empty-$sync_old.sh"
  assert_eq "$rc" 0 "renamed over an empty file (synced: $sync_old): exit status ($out $err)"
  assert_eq "$(json "$tmp/empty-$sync_old/report.json" 'r["totals"]["ok"] == r["totals"]["points"] > 5')" True \
    "renamed over an empty file (synced: $sync_old): every point ok"
done
