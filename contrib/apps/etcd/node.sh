#!/bin/sh
# contrib/apps/etcd/node.sh: runs etcd node nI of the three-node cluster of
# workload.sh and check.sh: on loopback ports from PORT (clients on
# PORT+2I-1, peers on PORT+2I), its data in DATA-DIR, STATE "new" (the
# first start) or "existing" (a restart).
# usage: node.sh I PORT DATA-DIR STATE
i=$1 p=$2
exec etcd --name "n$i" --data-dir "$3" \
     --listen-client-urls "http://127.0.0.1:$((p + 2 * i - 1))" \
     --advertise-client-urls "http://127.0.0.1:$((p + 2 * i - 1))" \
     --listen-peer-urls "http://127.0.0.1:$((p + 2 * i))" \
     --initial-advertise-peer-urls "http://127.0.0.1:$((p + 2 * i))" \
     --initial-cluster "n1=http://127.0.0.1:$((p + 2)),n2=http://127.0.0.1:$((p + 4)),n3=http://127.0.0.1:$((p + 6))" \
     --initial-cluster-state "$4" --initial-cluster-token powercut
