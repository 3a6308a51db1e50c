# clusters.sh: a one-node Slurm and a loopback sshd of a test's own (sourced
# after functions.sh by the recipe tests and bench/bench-shards.sh).
#
# Each daemon works in a directory under $tmp, listens on loopback only,
# and is stopped by a cleanup hook; stop_slurm and stop_sshd stop them
# earlier.  Nothing is written outside $tmp but /run/sshd, which sshd
# needs, made only when missing and removed again.

# free_ports N: N free loopback TCP ports, on one line.
free_ports ()
{
  python3 -c '
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}

_stop_pid () { [ -z "$1" ] || { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; } || true; }

# start_slurm CPUS: munged, slurmctld and slurmd in $tmp/slurm, one node
# of CPUS processors in one partition; exports SLURM_CONF and returns once
# the node is idle.
start_slurm ()
{
  local cpus=$1 d=$tmp/slurm p1 p2 node
  munged_pid= ctld_pid= slurmd_pid=
  cleanup_fn stop_slurm
  mkdir -p "$d/munge" "$d/state" "$d/spool"
  chmod 0700 "$d/munge"
  read -r p1 p2 < <(free_ports 2)
  head -c 1024 /dev/urandom >"$d/munge/munge.key"
  chmod 0600 "$d/munge/munge.key"
  munge_sock=$d/munge/munge.sock
  munged -F --force --key-file="$d/munge/munge.key" --socket="$munge_sock" \
      --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
      --seed-file="$d/munge/munged.seed" >"$d/munged.out" 2>&1 &
  munged_pid=$!
  wait_until "$T" _munge_ready

  node=$(hostname -s)
  export SLURM_CONF=$d/slurm.conf
  cat >"$SLURM_CONF" <<EOF
ClusterName=powercut-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
AuthInfo=socket=$munge_sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
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
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=500 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  slurmctld -D -i >"$d/slurmctld.out" 2>&1 &
  ctld_pid=$!
  slurmd -D >"$d/slurmd.out" 2>&1 &
  slurmd_pid=$!
  wait_until "$T" _node_idle ||
    fail "the node is not idle: $(sinfo 2>&1; tail -5 "$d/slurmctld.log" "$d/slurmd.log")"
}
_munge_ready () { [ -S "$munge_sock" ] || { alive "$munged_pid" || fail "munged exited: $(cat "$tmp/slurm/munged.out")"; false; }; }
_node_idle () { [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; }

# stop_slurm: stops the three daemons now.
stop_slurm ()
{
  local p
  for p in "$slurmd_pid" "$ctld_pid" "$munged_pid"; do _stop_pid "$p"; done
  slurmd_pid= ctld_pid= munged_pid=
}

# start_sshd HOST...: an sshd on a free loopback port with throwaway host
# and client keys, in $tmp/sshd; every HOST names it in the client
# configuration $ssh_config (use "ssh -F $ssh_config").  Returns once a
# login works.
start_sshd ()
{
  local d=$tmp/sshd port
  mkdir -p "$d"
  read -r port < <(free_ports 1)
  ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$d/client_key"
  cp "$d/client_key.pub" "$d/authorized_keys"
  chmod 0600 "$d/authorized_keys"
  cat >"$d/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
MaxStartups 100
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
  _made_run_sshd=
  if [ ! -d /run/sshd ]; then mkdir -p /run/sshd && _made_run_sshd=1; fi
  cleanup_fn _remove_run_sshd
  sshd_pid=
  cleanup_fn stop_sshd
  "$(command -v sshd)" -D -e -f "$d/sshd_config" >"$d/sshd.out" 2>&1 &
  sshd_pid=$!

  ssh_config=$d/ssh_config
  cat >"$ssh_config" <<EOF
Host $*
  HostName 127.0.0.1
  Port $port
  User root
  IdentityFile $d/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $d/known_hosts
  StrictHostKeyChecking accept-new
  BatchMode yes
  ConnectTimeout 10
EOF
  _sshd_host=$1
  wait_until "$T" _sshd_up
}
_sshd_up () { ssh -F "$ssh_config" "$_sshd_host" true 2>/dev/null || { alive "$sshd_pid" || fail "sshd exited: $(cat "$tmp/sshd/sshd.out")"; false; }; }
_remove_run_sshd () { [ -z "$_made_run_sshd" ] || rmdir /run/sshd 2>/dev/null || true; }

# stop_sshd: stops the sshd now.
stop_sshd () { _stop_pid "${sshd_pid:-}"; sshd_pid=; }
