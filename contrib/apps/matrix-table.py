#!/usr/bin/env python3
# contrib/apps/matrix-table.py: the table of contrib/apps/matrix.sh, from
# the report.json of each run (OUTDIR/APP/N-CONFIG/report.json).
import glob, json, os, re, sys

# What each configuration documents (sqlite.org/pragma.html#pragma_synchronous,
# wal.html; git-config(1), core.fsync; the gdbm manual, GDBM_SYNC; lmdb.h, mdb_env_open) and what would be worse than that:
# "corrupt" (any corruption), "lost" (any acknowledged loss), "lost>1".
DOC = {
    "sqlite:delete:off": ("may corrupt on power loss", set()),
    "sqlite:delete:normal": ("consistent (corruption possible but very unlikely)", {"corrupt"}),
    "sqlite:delete:full": ("consistent; the last commit may roll back (EXTRA syncs the directory)",
                           {"corrupt", "lost>1"}),
    "sqlite:delete:extra": ("consistent and durable", {"corrupt", "lost"}),
    "sqlite:wal:off": ("may corrupt on power loss", set()),
    "sqlite:wal:normal": ("consistent; recent commits may roll back", {"corrupt"}),
    "sqlite:wal:full": ("consistent and durable", {"corrupt", "lost"}),
    "git": ("core.fsync default: loose objects, refs and index not synced, may be lost",
            set()),
    "git:all": ("core.fsync=all: what a command wrote is durable", {"corrupt", "lost"}),
    "gdbm": ("GDBM_SYNC: every operation synchronized to disk before it returns",
             {"corrupt", "lost"}),
    "lmdb": ("mdb_env_open default (no MDB_NOSYNC): a committed transaction is durable",
             {"corrupt", "lost"}),
    "postgres": ("fsync and synchronous_commit on (defaults): a committed transaction is "
                 "durable", {"corrupt", "lost"}),
    "raid1": ("md RAID-1 (md(4)): a write completes once both legs have it; an array not "
              "cleanly stopped is resynced when assembled; ext4's fsync'ed files are durable",
              {"corrupt", "lost"}),
}
CONFIGS = ["ext4", "ext4 noauto_da_alloc", "ext4 data=writeback"]

def cell(rep):
    lost_max, lost_pts, corrupt, first = 0, 0, 0, {}
    for p in rep["points"]:
        v, ev = p["verdict"], p["evidence"]
        line = ev[1] if len(ev) > 1 else ""
        if v in ("fs-corrupt", "unmountable"):
            corrupt += 1
            first.setdefault("corrupt", p)
        elif v == "app-invalid" and line.startswith("corrupt:"):
            corrupt += 1
            first.setdefault("corrupt", p)
        elif v == "app-invalid" and line.startswith("lost:"):
            n = int(line.split()[1])
            lost_pts += 1
            lost_max = max(lost_max, n)
            first.setdefault("lost>1" if n > 1 else "lost", p)
            if n > 1:
                first.setdefault("lost", p)
    nc = rep["totals"].get("not-checked", 0)
    parts = []
    if corrupt:
        parts.append("corrupt at %d points" % corrupt)
    if lost_pts:
        parts.append("lost up to %d acknowledged at %d points" % (lost_max, lost_pts))
    if nc:
        parts.append("%d not checked" % nc)
    return (", ".join(parts) or "consistent"), first

def cell_set(rep):
    """The same for a device set's report (powercut check DIR): its instants."""
    lost_max, lost_pts, corrupt, first = 0, 0, 0, {}
    for x in rep["instants"]:
        v, ev = x["verdict"], x.get("evidence", "")
        m = re.search(r"(lost|corrupt): ?(\d*)", ev)
        # as the text report prints it: --recovered where every device's
        # state was recovered alone
        alone = v not in ("unmountable", "not-checked") and all(
            not d.get("is_journal") and x["devices"].get(d["name"]) and
            not x["devices"][d["name"]].get("journal_on") for d in rep["devices"])
        p = {"id": x["id"], "evidence": ["", ev], "verdict": v,
             "replay": "powercut replay %s --at %s -o STATE-DIR%s"
                       % (rep["device_set"], x["id"], " --recovered" if alone else "")}
        if v in ("fs-corrupt", "unmountable") or (v == "app-invalid" and m and m.group(1) == "corrupt"):
            corrupt += 1
            first.setdefault("corrupt", p)
        elif v == "app-invalid" and m and m.group(1) == "lost":
            n = int(m.group(2) or 0)
            lost_pts += 1
            lost_max = max(lost_max, n)
            first.setdefault("lost>1" if n > 1 else "lost", p)
            first.setdefault("lost", p)
    nc = rep["totals"].get("not-checked", 0)
    parts = []
    if corrupt:
        parts.append("corrupt at %d instants" % corrupt)
    if lost_pts:
        parts.append("lost at %d instants" % lost_pts)
    if nc:
        parts.append("%d not checked" % nc)
    return (", ".join(parts) or "consistent (%d instants)" % len(rep["instants"])), first

def cell_raid1(path):
    """The same from contrib/apps/raid1's check.txt: a line per instant."""
    first, rec = {}, os.path.join(os.path.dirname(path), "rec")
    summary = ""
    for line in open(path):
        w = line.split()
        if line.startswith("summary:"):
            summary = line
        elif len(w) > 2 and w[-1] in ("corrupt", "lost"):
            first.setdefault(w[-1], {"id": w[0], "evidence": ["", line.strip()], "verdict": w[-1],
                                     "replay": "powercut replay %s --at %s -o STATE-DIR" % (rec, w[0])})
    m = re.search(r"(\d+) instants, (\d+) with the legs differing.*; (\d+) ok, (\d+) corrupt, "
                  r"(\d+) lost", summary)
    if not m:
        return "(no result)", {}
    n, differ, _, corrupt, lost = (int(x) for x in m.groups())
    parts = []
    if corrupt:
        parts.append("corrupt at %d instants" % corrupt)
    if lost:
        parts.append("lost at %d instants" % lost)
    return (", ".join(parts) or "consistent (%d instants, %d with the legs differing)"
            % (n, differ)), first

def main():
    out, apps = sys.argv[1], sys.argv[2:]
    rows, worse = [], []
    for app in apps:
        d = os.path.join(out, app.replace(":", "-"))
        doc, bad = DOC[app]
        cells = []
        for i, cfg in enumerate(CONFIGS):
            f = glob.glob(os.path.join(d, "%d-*" % (i + 1), "report.json"))
            fs = glob.glob(os.path.join(d, "%d-*" % (i + 1), "report-set.json"))
            ft = glob.glob(os.path.join(d, "%d-*" % (i + 1), "check.txt"))
            if not f and not fs and not ft:
                cells.append("(no report)")
                continue
            if ft:
                text, first = cell_raid1(ft[0])
            else:
                rep = json.load(open((f or fs)[0]))
                text, first = cell(rep) if f else cell_set(rep)
            hit = [k for k in ("corrupt", "lost>1", "lost") if k in bad and k in first]
            if hit:
                p = first[hit[0]]
                text = "**" + text + "**"
                worse.append("%s on %s: crash point %s (%s): `%s`" %
                             (app, cfg, p["id"], " / ".join(p["evidence"][1:2]) or p["verdict"],
                              p["replay"]))
            cells.append(text)
        rows.append("| %s | %s | %s |" % (app, doc, " | ".join(cells)))
    print("| application | documented | " + " | ".join(CONFIGS) + " |")
    print("|---|---|" + "---|" * len(CONFIGS))
    print("\n".join(rows))
    if worse:
        print("\nWorse than documented:\n")
        for w in worse:
            print("- " + w)

main()
