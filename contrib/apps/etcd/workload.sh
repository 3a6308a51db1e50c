#!/bin/sh
# contrib/apps/etcd/workload.sh: a three-node etcd cluster on one host,
# each node's data directory on its own recorded filesystem
# ($POWERCUT_MNT_n1, _n2, _n3: contrib/devices.sh), talking over loopback
# ports from APP_ETCD_PORT (default 23790: clients on APP_ETCD_PORT+1, +3, +5,
# peers on +2, +4, +6, written to each node's directory for the checker).
# Once the cluster has a leader, the mark "started" goes into n1's log;
# then APP_ETCD_KEYS keys (default 3) are put, k1=v1 ..., and after each put
# returns (the cluster acknowledged it: a majority has it in its
# write-ahead log, fsynced) the mark put-N.  The nodes are killed at the
# end, as a power cut would.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
p=${APP_ETCD_PORT:-23790}
n=${APP_ETCD_KEYS:-3}
pids=
trap 'kill -9 $pids 2>/dev/null || true' EXIT
for i in 1 2 3; do
  eval "dir=\$POWERCUT_MNT_n$i"
  mkdir -p "$dir/etcd"
  echo "$p" >"$dir/etcd-port"
  sync "$dir/etcd-port" "$dir"          # the checker reads it at every instant
  "$here/node.sh" "$i" "$p" "$dir/etcd/data" new >"$dir/etcd/log" 2>&1 &
  pids="$pids $!"
done
ep=http://127.0.0.1:$((p + 1)),http://127.0.0.1:$((p + 3)),http://127.0.0.1:$((p + 5))
i=0
until ETCDCTL_API=3 etcdctl --endpoints "$ep" endpoint health >/dev/null 2>&1; do
  i=$((i + 1))
  [ "$i" -lt 300 ] || { echo "etcd: no healthy cluster after 30 s" >&2; exit 1; }
  sleep 0.1
done
"$POWERCUT" mark --control "$POWERCUT_CONTROL_n1" started
i=1
while [ "$i" -le "$n" ]; do
  ETCDCTL_API=3 etcdctl --endpoints "$ep" put "k$i" "v$i" >/dev/null
  "$POWERCUT" mark --control "$POWERCUT_CONTROL_n1" "put-$i"
  i=$((i + 1))
done
