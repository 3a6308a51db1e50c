#!/usr/bin/env bash
# test-apps-etcd.sh: a three-node etcd cluster on one host, each node on
# its own recorded filesystem (three devices, one power cut:
# contrib/devices.sh), keys put and marked once the cluster acknowledged
# them (contrib/apps/etcd); powercut check DIR --verify restarts the
# cluster from the three recovered trees at every instant from its start
# and reads every acknowledged key: every instant keeps them all (the
# checker fails, and the check with it, at an instant where the cluster
# does not come back with a leader or an acknowledged key is gone).
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 etcd etcdctl python3
app=$top_srcdir/contrib/apps/etcd
T=600                           # the check restarts a cluster at each instant
export POWERCUT
# loopback ports of this test's own (clients and peers: 7 from here)
export APP_ETCD_PORT=$(( 24000 + ($$ % 500) * 8 ))

run env APP_ETCD_KEYS=3 "$top_srcdir/contrib/devices.sh" "$tmp/set" n1:256M n2:256M n3:256M -- \
    "$app/workload.sh"
assert_eq "$rc" 0 "recording (out: $out; stderr: $err)"
assert_eq "$(ls "$tmp/set" | grep -c '\.pclog$')" 3 "three logs, one set"
host_done       # the check exports trees by libext2fs: no mount, no loop device
run powercut check "$tmp/set" --from started --verify "$app/check.sh" --json "$tmp/set.json"
assert_eq "$rc" 0 "check --verify (out: $out; stderr: $err)"
python3 - "$tmp/set.json" <<'PY' || fail "the instants"
import json, sys
r = json.load(open(sys.argv[1]))
x = r["instants"]
assert len(x) >= 10, len(x)
assert all(i.get("app") == "ok" for i in x), [i for i in x if i.get("app") != "ok"][:3]
PY
# nothing of the devices or the clusters is left behind
assert_eq "$(losetup -a | grep -c "$tmp" || true)" 0 "loop devices left"
assert_eq "$(pgrep -f -- "$tmp" | wc -l)" 0 "processes left"
