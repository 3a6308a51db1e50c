#!/usr/bin/env bash
# test-recipe-ssh.sh: contrib/parallel-ssh.sh with GNU parallel over ssh.
# The test starts an sshd of its own on a free loopback port with
# throwaway host and client keys; three host names reach it, and the
# recipe checks a recorded log in three shards on them and merges them:
# the same totals and findings as one unsharded check.  Nothing is left on
# the "hosts" or running afterwards.
source "$top_srcdir/tests/functions.sh"
requires_root
requires sshd ssh scp ssh-keygen parallel python3

export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR" "$tmp/run"
read -r port < <(python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

ssh-keygen -q -t ed25519 -N '' -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/client_key"
cp "$tmp/client_key.pub" "$tmp/authorized_keys"
chmod 0600 "$tmp/authorized_keys"
cat >"$tmp/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
# sshd needs its privilege separation directory: made here if missing,
# removed again by the cleanup
made_run=
if [ ! -d /run/sshd ]; then mkdir -p /run/sshd && made_run=1; fi
remove_run () { [ -z "$made_run" ] || rmdir /run/sshd 2>/dev/null || true; }
cleanup_fn remove_run
"$(command -v sshd)" -D -e -f "$tmp/sshd_config" >"$tmp/sshd.out" 2>&1 &
sshd_pid=$!
stop_sshd () { [ -z "$sshd_pid" ] || { kill "$sshd_pid" 2>/dev/null; wait "$sshd_pid" 2>/dev/null; } || true; }
cleanup_fn stop_sshd

# Three host names, all this machine's sshd.
cat >"$tmp/ssh_config" <<EOF
Host h0 h1 h2
  HostName 127.0.0.1
  Port $port
  User root
  IdentityFile $tmp/client_key
  IdentitiesOnly yes
  UserKnownHostsFile $tmp/known_hosts
  StrictHostKeyChecking accept-new
  BatchMode yes
  ConnectTimeout 10
EOF
sshd_up () { ssh -F "$tmp/ssh_config" h0 true 2>/dev/null || { alive "$sshd_pid" || fail "sshd exited: $(cat "$tmp/sshd.out")"; false; }; }
wait_until "$T" sshd_up

cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/run/app.log"
cd "$tmp/run"
SSH="ssh -F $tmp/ssh_config" SCP="scp -F $tmp/ssh_config" POWERCUT_REMOTE=$POWERCUT \
  run "$top_srcdir/contrib/parallel-ssh.sh" "$tmp/run/app.log" h0 h1 h2
# the recipe merges the three shards (exit 1: the log has zero-length points)
assert_eq "$rc" 1 "parallel-ssh.sh: exit status (out: $out; stderr: $err)"
assert_eq "$(ls shard-*.json | tr '\n' ' ')" "shard-0.json shard-1.json shard-2.json " "shard reports"
[ -s report.json ] && [ -s report.html ] || fail "no merged report.json or report.html"

run powercut check "$tmp/run/app.log" --json "$tmp/full.json" -q
assert_eq "$rc" 1 "unsharded check: exit status (stderr: $err)"
same_findings report.json "$tmp/full.json" || fail "the merged shards differ from the unsharded check"
# the recipe removed what it copied to the hosts
assert_eq "$(ls /tmp | grep -c '^powercut-[0-9]*-[0-9]*-[0-9]' || true)" 0 "files left on the hosts"

cd "$tmp"
stop_sshd
sshd_pid=
assert_eq "$(pgrep -f -- "$tmp" | wc -l)" 0 "processes left running with $tmp in their command line"
