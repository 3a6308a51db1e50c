#!/usr/bin/env python3
# classes.py: the failures of explorations (DIR/explore.json, their
# failures/N.sh and each workload's report.json), grouped as
# doc/hunt.md's table groups them: by configuration, the workload's
# verdict (its worst), the fault of the first crash point with it, and
# the call that wrote what was lost there (its system call; RWF_DSYNC
# named; or the whole state's verdict); one markdown row each,
# with its count and one shrunk workload; the conclusion left to fill.
# usage: classes.py EXPLORE-DIR...
import json, os, re, sys

if len(sys.argv) < 2:
    sys.exit("usage: classes.py EXPLORE-DIR...")


def first_finding(d, r, index):
    """The first crash point with the workload's verdict (its worst):
    (verdict, fault, the call that wrote what its finding lost)."""
    path = os.path.join(d, "batches", r["batch"], "w%d" % index, "report.json")
    try:
        rep = json.load(open(path))
    except OSError:
        return r["outcome"], "?", "?"
    for p in rep["points"]:
        if p["verdict"] != r["outcome"]:
            continue
        for f in p.get("findings", []):
            if f["verdict"] == p["verdict"]:
                call = (f.get("cause") or {}).get("call") or ""
                name = call.split("(")[0] or "-"
                if "RWF_DSYNC" in call:
                    name += " RWF_DSYNC"
                return p["verdict"], f.get("fault", p["fault"]), name
        return p["verdict"], p["fault"], "-"
    return r["outcome"], "?", "?"


rows = {}
for d in sys.argv[1:]:
    for w in json.load(open(os.path.join(d, "explore.json")))["workloads"]:
        for cfg, r in sorted(w["results"].items()):
            if r["outcome"] in ("ok", "unsupported"):
                continue
            small = w["ops"]
            if r.get("failure"):
                head = open(os.path.join(d, r["failure"])).read()
                m = re.search(r"^#   workload: +(.*)$", head, re.M)
                small = m.group(1) if m else small
            key = (cfg,) + first_finding(d, r, w["index"])
            n, ex = rows.get(key, (0, small))
            if len(small) < len(ex):
                ex = small
            rows[key] = (n + 1, ex)
for (cfg, verdict, fault, call), (n, ex) in sorted(rows.items(), key=lambda x: (-x[1][0], x[0])):
    what = "the whole state" if call == "-" else f"lost data written by `{call}`"
    print(f"| {cfg}: {verdict}, fault {fault}, {what} | {n} | `{ex}` |")
