#!/bin/sh
# contrib/apps/etcd/check.sh: powercut check --verify for the etcd
# workload, at each instant with the three nodes' trees
# ($POWERCUT_ROOT_n1, _n2, _n3).  On copies of the data directories it
# starts the cluster again (the same names and ports) and reads every key
# the cluster had acknowledged by then (the put-N marks in
# $POWERCUT_MARKS_n1) with linearizable reads.  Exit 0 and "consistent:
# ..." if they all are there; 1 and "lost: ..." if one is gone; 2 and
# "corrupt: ..." if the cluster does not come up with a leader.
set -u
here=$(cd "$(dirname "$0")" && pwd)
acked=0 started=no
for m in $POWERCUT_MARKS_n1; do
  case $m in
  put-*) acked=${m#put-} ;;
  started) started=yes ;;
  esac
done
[ "$started" = yes ] || { echo "consistent: no cluster yet"; exit 0; }
p=$(cat "$POWERCUT_ROOT_n1/etcd-port" 2>/dev/null)
case $p in
'' | *[!0-9]*) echo "corrupt: the ports file, synced before the start, is gone: '$p'"; exit 2 ;;
esac
# in the scratch directory powercut runs it in (removed after, also if
# a time-out kills this before its trap runs)
work=$(mktemp -d -p "$PWD" 2>/dev/null || mktemp -d) || exit 125
pids=
# the nodes gone (and their ports free) before the next instant's start
trap 'kill -9 $pids 2>/dev/null; wait $pids 2>/dev/null; rm -rf "$work"' EXIT
for i in 1 2 3; do
  eval "root=\$POWERCUT_ROOT_n$i"
  mkdir "$work/n$i"
  [ ! -d "$root/etcd/data" ] || cp -a "$root/etcd/data" "$work/n$i/data" || exit 125
  chmod -R u+w "$work/n$i"
  # a node whose directory never got its data joins as it would after a
  # reboot that found it empty: it does not start (etcd would not either)
  [ -d "$work/n$i/data" ] || continue
  "$here/node.sh" "$i" "$p" "$work/n$i/data" existing >"$work/n$i/log" 2>&1 &
  pids="$pids $!"
done
ep=http://127.0.0.1:$((p + 1)),http://127.0.0.1:$((p + 3)),http://127.0.0.1:$((p + 5))
# (a leader is elected within a second or two; the bound is for a loaded
# machine, where etcd's 1 s election timeout may pass a few times)
deadline=$(( $(date +%s) + 30 ))
until ETCDCTL_API=3 etcdctl --endpoints "$ep" --dial-timeout=1s --command-timeout=2s \
        get none >/dev/null 2>&1; do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    echo "corrupt: the cluster has no leader after 30 s: $(tail -n 2 "$work"/n*/log | tr '\n' ' ' | cut -c1-300)"
    exit 2
  fi
  sleep 0.1
done
found=0 i=1
while [ "$i" -le "$acked" ]; do
  v=$(ETCDCTL_API=3 etcdctl --endpoints "$ep" --dial-timeout=1s --command-timeout=5s \
      get --print-value-only "k$i" 2>/dev/null)
  [ "$v" = "v$i" ] && found=$((found + 1))
  i=$((i + 1))
done
if [ "$found" -lt "$acked" ]; then
  echo "lost: $((acked - found)) of $acked acknowledged keys"
  exit 1
fi
echo "consistent: $acked acknowledged keys, all there"
