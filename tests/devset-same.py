#!/usr/bin/env python3
# tests/devset-same.py A.json B.json: do two JSON reports of a device set
# say the same (every instant's id, verdict, promise, --verify answer and
# each device's state and verdict; the totals)?  Exit 0 if so, else 1
# with the first differences.  The shard tests compare a merge with the
# unsharded check by it.
import json, sys

def norm(r):
    out = {}
    for x in r["instants"]:
        devs = tuple(sorted((k, (v or {}).get("state"), (v or {}).get("journal_on"),
                             (v or {}).get("verdict")) for k, v in x["devices"].items()))
        out[x["id"]] = (x["verdict"], x["promise"], x.get("app"), devs)
    return out

a, b = (json.load(open(p)) for p in sys.argv[1:3])
na, nb = norm(a), norm(b)
diff = sorted(k for k in set(na) | set(nb) if na.get(k) != nb.get(k))
if diff or a["totals"] != b["totals"]:
    print("differ: %d instants, e.g. %s; totals %s / %s" %
          (len(diff), [(k, na.get(k), nb.get(k)) for k in diff[:2]], a["totals"], b["totals"]))
    sys.exit(1)
print("same: %d instants, totals %s" % (len(na), a["totals"]))
