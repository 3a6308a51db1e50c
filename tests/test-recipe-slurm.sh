#!/usr/bin/env bash
# test-recipe-slurm.sh: contrib/slurm-check.sbatch on a real Slurm.  The
# test starts a one-node cluster (munged, slurmctld, slurmd, configured in
# its own directory, on loopback ports), submits the recipe as a job array
# of 4 over a recorded log, waits, merges the shards and compares them with
# one unsharded check; then runs contrib/slurm-explore.sbatch as an array
# of 2 and merges its shards: the outcomes of one unsharded exploration.
# Then it stops the daemons, and nothing is left running.
source "$top_srcdir/tests/functions.sh"
requires_root
requires munged munge slurmctld slurmd sbatch sinfo python3
requires nbdfuse losetup mkfs.ext4 fusermount3 e2fsck xfs_io setfattr

source "$top_srcdir/tests/clusters.sh"

export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR" "$tmp/run"
start_slurm 2

# The recipe, as a job array of 4, with the built powercut first in PATH
# (one CPU per task: the node has two).
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/run/app.log"
cd "$tmp/run"
PATH=$(dirname "$POWERCUT"):$PATH run sbatch --wait --array=0-3 --cpus-per-task=1 \
    --chdir="$tmp/run" "$top_srcdir/contrib/slurm-check.sbatch" "$tmp/run/app.log" --model write
# the array ran to its end, every task successfully
assert_eq "$rc" 0 "sbatch --wait: exit status (out: $out; stderr: $err; $(cat "$tmp"/run/powercut-check-*.out 2>/dev/null))"
assert_eq "$(ls "$tmp"/run/shard-*.json | wc -l)" 4 "shard reports"

run powercut merge --json "$tmp/merged.json" "$tmp"/run/shard-*.json
# merge joins them (exit 1: the golden log has zero-length points)
assert_eq "$rc" 1 "merge: exit status (stderr: $err)"
run powercut check "$tmp/run/app.log" --model write --json "$tmp/full.json" -q
assert_eq "$rc" 1 "unsharded check: exit status (stderr: $err)"
# the same totals and the same findings at every point
same_findings "$tmp/merged.json" "$tmp/full.json" || fail "the merged shards differ from the unsharded check"
# a shard left out, or given twice, is refused by name
run powercut merge "$tmp"/run/shard-0.json "$tmp"/run/shard-1.json "$tmp"/run/shard-3.json
assert_eq "$rc" 2 "merge without shard 2: exit status"
assert_match "$err" 'shard 2/4 is missing' "merge without shard 2: message"
run powercut merge "$tmp"/run/shard-{0,1,2,2,3}.json
assert_eq "$rc" 2 "merge with shard 2 twice: exit status"
assert_match "$err" 'shard 2/4 is given twice' "merge with shard 2 twice: message"

# The exploration recipe: the O_DIRECT appends to d0/f0 of --seq 1 on ext4 as an
# array of 2, merged: the workloads and outcomes of the whole.
PATH=$(dirname "$POWERCUT"):$PATH run sbatch --wait --array=0-1 --cpus-per-task=1 \
    --chdir="$tmp/run" "$top_srcdir/contrib/slurm-explore.sbatch" "$tmp/run/x" \
    --seq 1 --only "dwrite.append d0/f0" --config ext4
assert_eq "$rc" 0 "sbatch --wait explore: exit status (out: $out; stderr: $err; $(cat "$tmp"/run/powercut-explore-*.out 2>/dev/null))"
assert_eq "$(ls -d "$tmp"/run/x.shard-* | wc -l)" 2 "exploration shards"
run powercut explore --merge --out "$tmp/run/x" "$tmp"/run/x.shard-*
assert_eq "$rc" 0 "explore --merge: exit status (stderr: $err)"
run powercut explore --seq 1 --only "dwrite.append d0/f0" --config ext4 --out "$tmp/whole" --quiet
assert_eq "$rc" 0 "unsharded explore: exit status (stderr: $err)"
assert_eq "$(outcomes "$tmp/run/x/explore.json")" "$(outcomes "$tmp/whole/explore.json")" "merged exploration"
assert_eq "$(outcomes "$tmp/whole/explore.json" | wc -l)" 6 "workloads explored"

# Stop the cluster, then nothing of it runs.
cd "$tmp"
stop_slurm
assert_eq "$(pgrep -f -- "$tmp" | wc -l)" 0 "processes left running with $tmp in their command line"
