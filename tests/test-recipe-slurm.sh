#!/usr/bin/env bash
# test-recipe-slurm.sh: contrib/slurm-check.sbatch on a real Slurm.  The
# test starts a one-node cluster (munged, slurmctld, slurmd, configured in
# its own directory, on loopback ports), submits the recipe as a job array
# of 4 over a recorded log, waits, merges the shards and compares them with
# one unsharded check; then stops the daemons, and nothing is left running.
source "$top_srcdir/tests/functions.sh"
requires_root
requires munged munge slurmctld slurmd sbatch sinfo python3

export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR" "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/run"
chmod 0700 "$tmp/munge"

# Two free loopback ports.
read -r p1 p2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# munged, with a key of its own
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 0600 "$tmp/munge/munge.key"
sock=$tmp/munge/munge.sock
munged -F --force --key-file="$tmp/munge/munge.key" --socket="$sock" \
    --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" \
    --seed-file="$tmp/munge/munged.seed" >"$tmp/munged.out" 2>&1 &
munged_pid=$!
stop_pid () { [ -z "$1" ] || { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; } || true; }
cleanup_fn stop_pid "$munged_pid"
munge_ready () { [ -S "$sock" ] || { alive "$munged_pid" || fail "munged exited: $(cat "$tmp/munged.out")"; false; }; }
wait_until "$T" munge_ready

node=$(hostname -s)
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=powercut-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
PlugStackConfig=/dev/null
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i >"$tmp/slurmctld.out" 2>&1 &
ctld_pid=$!
cleanup_fn stop_pid "$ctld_pid"
slurmd -D >"$tmp/slurmd.out" 2>&1 &
slurmd_pid=$!
cleanup_fn stop_pid "$slurmd_pid"
node_idle () { [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; }
wait_until "$T" node_idle || fail "the node is not idle: $(sinfo 2>&1; tail -5 "$tmp/slurmctld.log" "$tmp/slurmd.log")"

# The recipe, as a job array of 4, with the built powercut first in PATH
# (one CPU per task: the node has two).
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/run/app.log"
cd "$tmp/run"
PATH=$(dirname "$POWERCUT"):$PATH run sbatch --wait --array=0-3 --cpus-per-task=1 \
    --chdir="$tmp/run" "$top_srcdir/contrib/slurm-check.sbatch" "$tmp/run/app.log"
# the array ran to its end, every task successfully
assert_eq "$rc" 0 "sbatch --wait: exit status (out: $out; stderr: $err; $(cat "$tmp"/run/powercut-check-*.out 2>/dev/null))"
assert_eq "$(ls "$tmp"/run/shard-*.json | wc -l)" 4 "shard reports"

run powercut merge --json "$tmp/merged.json" "$tmp"/run/shard-*.json
# merge joins them (exit 1: the golden log has zero-length points)
assert_eq "$rc" 1 "merge: exit status (stderr: $err)"
run powercut check "$tmp/run/app.log" --json "$tmp/full.json" -q
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

# Stop the cluster, then nothing of it runs.
cd "$tmp"
for p in "$slurmd_pid" "$ctld_pid" "$munged_pid"; do stop_pid "$p"; done
assert_eq "$(pgrep -f -- "$tmp" | wc -l)" 0 "processes left running with $tmp in their command line"
