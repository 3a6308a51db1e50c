#!/usr/bin/env bash
# test-recipe-k8s.sh: contrib/k8s-check-job.yaml, as far as it can be
# checked without a cluster: well-formed YAML, an Indexed Job whose
# POWERCUT_SHARDS is its completions, a pod that does not restart, the
# shared volume mounted where the command reads; and the command itself,
# run here for every index as Kubernetes would (JOB_COMPLETION_INDEX set,
# /logs a local directory), gives shards that merge into the unsharded
# report.
source "$top_srcdir/tests/functions.sh"
requires python3 e2fsck
python3 -c 'import yaml' 2>/dev/null || { echo "$0: test skipped: python3-yaml is not installed"; exit 77; }

export TMPDIR=$tmp/scratch
mkdir -p "$TMPDIR" "$tmp/logs"
run python3 - "$top_srcdir/contrib/k8s-check-job.yaml" "$tmp/cmd" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
assert len(docs) == 1, "one document"
j = docs[0]
assert j["apiVersion"] == "batch/v1" and j["kind"] == "Job", "a batch/v1 Job"
s = j["spec"]
assert s["completionMode"] == "Indexed", "completionMode: Indexed"
n = int(s["completions"])
assert n >= 1 and int(s["parallelism"]) >= 1, "completions and parallelism"
pod = s["template"]["spec"]
assert pod["restartPolicy"] in ("Never", "OnFailure"), "restartPolicy"
assert len(pod["containers"]) == 1, "one container"
c = pod["containers"][0]
env = {e["name"]: e["value"] for e in c.get("env", [])}
assert env.get("POWERCUT_SHARDS") == str(n), "POWERCUT_SHARDS = completions (%s)" % n
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
vols = {v["name"] for v in pod["volumes"]}
assert set(mounts) <= vols, "every mount has a volume"
script = " ".join(c["command"][2:] + c.get("args", [])) if c["command"][:2] == ["sh", "-c"] else None
assert script and "powercut check" in script and "$JOB_COMPLETION_INDEX" in script, "the check command"
assert "/logs" in mounts.values(), "the log volume at /logs"
open(sys.argv[2], "w").write("%d\n%s\n" % (n, script))
PY
# the manifest is an Indexed Job with the fields it needs
assert_eq "$rc" 0 "the manifest (stderr: $err)"
n=$(head -n 1 "$tmp/cmd")
script=$(tail -n +2 "$tmp/cmd")
# the command is the other recipes': check with --json per shard, exit 1 is no failure
assert_match "$script" '--quiet' "the command: --quiet"
assert_match "$script" '--json /logs/shard-\$JOB_COMPLETION_INDEX.json' "the command: --json"

# Each pod's command, here: /logs is $tmp/logs, powercut the built one.
cp "$top_srcdir/tests/golden/rename-noauto/recording.pclog" "$tmp/logs/app.log"
local_script=${script//\/logs/$tmp/logs}
local_script=${local_script//powercut /$POWERCUT }
for (( i = 0; i < n; i++ )); do
  JOB_COMPLETION_INDEX=$i POWERCUT_SHARDS=$n run sh -c "$local_script"
  # pod $i succeeds
  assert_eq "$rc" 0 "pod $i: exit status (stderr: $err)"
done
run powercut merge --json "$tmp/merged.json" "$tmp"/logs/shard-*.json
assert_eq "$rc" 1 "merge of the $n pods' shards: exit status (stderr: $err)"
run powercut check "$tmp/logs/app.log" --json "$tmp/full.json" -q
same_findings "$tmp/merged.json" "$tmp/full.json" || fail "the merged shards differ from the unsharded check"
