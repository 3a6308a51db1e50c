#!/usr/bin/env python3
# trace-ref.py: a small brute-force reference oracle for a traced program,
# for tests/test-trace-reference.sh.
#
#   trace-ref.py gen SEED MODEL       (in the recorded filesystem, traced)
#       a random workload of whole 4 KiB blocks: creates, writes (plain,
#       O_SYNC, O_DIRECT|O_SYNC, through a mapping and msync'ed),
#       truncates, renames, unlinks, fsync and fdatasync of files,
#       fsync of directories, sync; one change of a file or name per
#       operation, and "op K" printed (an acknowledgement) after each.
#       MODEL gets, per operation, the tree after it and what it made
#       durable.
#   trace-ref.py dump DIR             (as the --verify command)
#       the state's tree: every file's size and the hash of each block,
#       into DIR/POINT.
#   trace-ref.py compare MODEL LOG-DUMP MARKS REPORT DIR
#       judges every crash state of REPORT by the reference below and
#       compares, path by path, with powercut's findings: ok, exposure
#       (data lost that was never made durable) or a broken promise.
#       Prints how many (state, path) pairs agree; exits 1 on the first
#       differences.
#
# The reference, at a state's moment m (its last record): op k has
# happened if its changing call had entered by m; a promise holds if its
# call had returned by m.  For a path: the names allowed are the binding
# at the last point its directory was made durable and every later one
# (absent too, if never made durable).  For a file: sizes from its last
# whole-file sync on (with the whole blocks between a size and the next,
# larger one: writeback sets the size on disk block by block), each block
# holding what it held at its last sync or later (a range sync counts for
# its blocks, and asks for a size that reaches it), an empty file where
# the program had data only if it was empty when last made durable.
# What does not fit is a broken promise if what it lost had been made
# durable: not changed since, or lost anyway (a file shorter than its
# durable size and every size since; a block holding what it held before
# its durable point, or zeros, where the durable version was data),
# unless the program gave it up since (a size set since at or below the
# block's start: a truncate, O_TRUNC); else exposure.
import hashlib, json, mmap, os, random, re, sys

B = 4096


def bhash(data):
    return hashlib.sha1(data).hexdigest()[:16]


def blocks_of(data):
    return [bhash(data[i:i + B]) for i in range(0, len(data), B)]


# --------------------------------------------------------------------------
# The workload

def gen(seed, model_path):
    rnd = random.Random(seed)
    names = ["f0", "f1", "f2", "d/g0", "d/g1"]
    tree = {}                   # path -> identity
    data = {}                   # identity -> bytearray
    hib = {}                    # identity -> 1 + the last block ever written
    nextid = [0]
    ops = []

    def fill(k, b):
        tag = b"op%03d-blk%02d-" % (k, b % 100)
        return (tag * (B // len(tag) + 1))[:B]

    def record(kind, call, durable=None, wrote=None, **kw):
        ops.append(dict(kind=kind, call=call, durable=durable or [], wrote=wrote or [],
                        tree={p: {"id": i, "size": len(data[i]), "blocks": blocks_of(bytes(data[i]))}
                              for p, i in tree.items()}, **kw))
        print("op %d" % len(ops), flush=True)

    os.mkdir("d")
    record("mkdir", "mkdir")
    for k in range(1, 41):
        files = sorted(tree)
        choice = rnd.random()
        if not files or choice < 0.12:
            p = rnd.choice(names)
            if p in tree:
                continue
            os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            tree[p] = nextid[0]
            data[nextid[0]] = bytearray()
            nextid[0] += 1
            record("create", "openat", path=p)
            continue
        p = rnd.choice(files)
        i = tree[p]
        n = len(ops) + 1
        if choice < 0.42:
            # a write of whole blocks, plain or synchronous
            size = len(data[i]) // B
            off = rnd.randrange(0, size + 2)
            cnt = rnd.randrange(1, 4)
            buf = b"".join(fill(n, off + j) for j in range(cnt))
            how = rnd.choice(["plain", "plain", "sync", "direct"])
            flags = os.O_WRONLY | (os.O_SYNC if how != "plain" else 0)
            if how == "direct":
                flags |= os.O_DIRECT
                m = mmap.mmap(-1, len(buf))
                m.write(buf)
                src = m
            else:
                src = buf
            fd = os.open(p, flags)
            os.pwrite(fd, src, off * B)
            os.close(fd)
            if off * B > len(data[i]):
                data[i].extend(b"\0" * (off * B - len(data[i])))
            data[i][off * B:off * B + len(buf)] = buf
            dur = [] if how == "plain" else [dict(kind="range", id=i, first=off,
                                                   last=off + cnt - 1, end=(off + cnt) * B)]
            hib[i] = max(hib.get(i, 0), off + cnt)
            record("write", "pwrite64", dur, [i, off, off + cnt], path=p)
        elif choice < 0.50 and len(data[i]) >= B:
            # a block through a shared mapping, msync(MS_SYNC) of it
            blk = rnd.randrange(0, len(data[i]) // B)
            fd = os.open(p, os.O_RDWR)
            m = mmap.mmap(fd, len(data[i]))
            m[blk * B:(blk + 1) * B] = fill(n, blk)
            m.flush(blk * B, B)
            m.close()
            os.close(fd)
            data[i][blk * B:(blk + 1) * B] = fill(n, blk)
            hib[i] = max(hib.get(i, 0), blk + 1)
            record("msync", "msync", [dict(kind="range", id=i, first=blk, last=blk,
                                           end=(blk + 1) * B)], [i, blk, blk + 1], path=p)
        elif choice < 0.58:
            size = rnd.randrange(0, len(data[i]) // B + 3) * B
            old = len(data[i])
            os.truncate(p, size)
            if size > len(data[i]):
                data[i].extend(b"\0" * (size - len(data[i])))
            else:
                del data[i][size:]
            # grown over blocks that had data once: they read as zeros now
            record("truncate", "truncate", None,
                   [i, old // B, min(size // B, hib.get(i, 0))] if size > old else None, path=p)
        elif choice < 0.66:
            q = rnd.choice(names)
            if q == p:
                continue
            os.rename(p, q)
            gone = tree.pop(q, None)
            tree[q] = tree.pop(p)
            if gone is not None:
                del data[gone]
            record("rename", "rename", path=p, to=q)
        elif choice < 0.70:
            os.unlink(p)
            del data[tree.pop(p)]
            record("unlink", "unlink", path=p)
        elif choice < 0.82:
            sync = rnd.choice(["fsync", "fdatasync"])
            fd = os.open(p, os.O_RDONLY)
            (os.fsync if sync == "fsync" else os.fdatasync)(fd)
            os.close(fd)
            record("sync-file", sync, [dict(kind="whole", id=i)], path=p)
        elif choice < 0.95:
            d = rnd.choice([".", "d"])
            fd = os.open(d, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
            record("sync-dir", "fsync", [dict(kind="names", dir="" if d == "." else d)])
        else:
            os.sync()
            record("sync", "sync", [dict(kind="global")])
    json.dump(ops, open(model_path, "w"))


# --------------------------------------------------------------------------
# A state's tree, for --verify

def dump(outdir):
    out = {}
    for top, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != "lost+found"]
        for f in files:
            p = os.path.normpath(os.path.join(top, f))
            content = open(p, "rb").read()
            out[p] = {"size": len(content), "blocks": blocks_of(content)}
    json.dump(out, open(os.path.join(outdir, os.environ["POWERCUT_POINT"].replace("/", "_")), "w"))


# --------------------------------------------------------------------------
# The reference

ZERO = bhash(b"\0" * B)


def parse_log(dump_path, marks_path, nops):
    """Each op's changing call's entry record and its promise's record."""
    acks, events = {}, []
    for line in open(dump_path):
        f = line.split()
        if len(f) < 5 or f[3] != "event":
            continue
        rec = int(f[0])
        if f[4] == "ack":
            m = re.match(r"op (\d+)$", " ".join(f[7:]))
            if m:
                acks[int(m.group(1))] = rec
            continue
        text = line.split(" tid=", 1)[1].split(" ", 1)[1]
        events.append((rec, f[4], text))
    ends = []
    for line in open(marks_path):
        m = re.match(r"\s+record (\d+) at .*: end \(", line)
        if m:
            ends.append(int(m.group(1)))
    return acks, events, ends


def op_records(ops, acks, events):
    """(entry of the changing call, return of the promising call) per op."""
    res = []
    for k, op in enumerate(ops, 1):
        lo, hi = acks.get(k - 1, -1), acks[k]
        mine = [e for e in events if lo < e[0] < hi]
        name = op["call"]

        def find(kind, pred):
            for rec, kd, text in mine:
                if kd == kind and pred(text):
                    return rec
            return None
        calls = {"openat": ("openat(",), "pwrite64": ("pwrite64(",), "msync": ("msync(",),
                 "truncate": ("truncate(",), "rename": ("rename(", "renameat"),
                 "unlink": ("unlink(", "unlinkat("), "fsync": ("fsync(",),
                 "fdatasync": ("fdatasync(",), "sync": ("sync(",), "mkdir": ("mkdir(",)}
        pre = calls[name]
        entry = find("entry", lambda t: t.startswith(pre))
        ret = find("exit", lambda t: t.startswith(pre))
        if op["kind"] == "msync":
            # the mapping wrote at some time after the mmap: the change is
            # seen from the mmap on
            entry = find("entry", lambda t: t.startswith("mmap("))
        assert entry is not None and ret is not None, (k, op["kind"], mine)
        res.append((entry, ret))
    return res


def judge_state(ops, recs, end_rec, m, found):
    """The reference's class of every path at a state of moment m."""
    K = 0
    for k in range(1, len(ops) + 1):
        if recs[k - 1][0] <= m:
            K = k
    trees = [{}] + [op["tree"] for op in ops]   # trees[i]: after op i
    dur = [(k, d) for k in range(1, len(ops) + 1) for d in ops[k - 1]["durable"]
           if recs[k - 1][1] <= m]
    globl = [k for k, d in dur if d["kind"] == "global"]
    if end_rec is not None and end_rec <= m:
        globl.append(len(ops))

    def content(i, ident):
        for t in trees[i].values():
            if t["id"] == ident:
                return t
        return None

    def versions_of(ident):
        return [i for i in range(0, K + 1) if content(i, ident) is not None]

    out = {}
    paths = set(found) | {p for t in trees[:K + 1] for p in t}
    for p in sorted(paths):
        d = p.rsplit("/", 1)[0] if "/" in p else ""
        nd = [k for k, x in dur if x["kind"] == "names" and x["dir"] == d] + globl
        dn = max(nd) if nd else None
        window = range(dn if dn is not None else 0, K + 1)
        binds = [trees[i][p]["id"] if p in trees[i] else None for i in window]
        if dn is None:
            binds.append(None)
        f = found.get(p)
        if f is None:
            out[p] = "ok" if None in binds else "promise"
            continue
        cands = [b for b in binds if b is not None]
        if not cands:
            # where the name was durably gone; or a name not yet bound
            out[p] = "promise" if dn is not None else "ok"
            continue
        newest = trees[K][p]["id"] if p in trees[K] else None
        if newest is not None and f["size"] == 0:
            z = zero_length (ops, trees, dur, globl, K, newest, p, dn)
            if z:
                out[p] = z
                continue
        best = None
        for ident in dict.fromkeys(cands):
            c = judge_file(ops, trees, dur, globl, K, ident, f, p, dn)
            if c == "ok":
                best = "ok"
                break
            if ident == newest or best is None:
                best = c
        out[p] = best
    return out


def sizes_of(trees, K, ident):
    res = []
    for i in range(0, K + 1):
        s = None
        for t in trees[i].values():
            if t["id"] == ident:
                s = t["size"]
        res.append(s)
    return res


def whole_of(dur, globl, K, ident, sizes):
    whole = [k for k, d in dur if d["kind"] == "whole" and d["id"] == ident and k <= K] + \
            [k for k in globl if k <= K and sizes[k] is not None]
    return max(whole) if whole else None


def need_of(ranges, sizes, K):
    need = 0
    for k, d in ranges:
        n = min([d["end"], sizes[k]] + [sizes[i] for i in range(k + 1, K + 1)
                                        if sizes[i] is not None])
        need = max(need, n)
    return need


def zero_length(ops, trees, dur, globl, K, ident, path, dn):
    """An empty file where the program's last version had data."""
    sizes = sizes_of(trees, K, ident)
    if not sizes[K]:
        return None
    dw = whole_of(dur, globl, K, ident, sizes)
    if durably_empty(trees, dur, globl, K, ident, path, dn, dw):
        return None
    ranges = [(k, d) for k, d in dur if d["kind"] == "range" and d["id"] == ident and k <= K]
    last_change = max(i for i in range(0, K + 1) if sizes[i] is not None and
                      (i == 0 or sizes[i - 1] != sizes[i]))
    promise = need_of(ranges, sizes, K) > 0 or \
        (dw is not None and (last_change <= dw or
                             min(x for x in sizes[dw:K + 1] if x is not None) > 0))
    return "promise" if promise else "exposure"


def judge_file(ops, trees, dur, globl, K, ident, f, path, dn):
    def content(i):
        for t in trees[i].values():
            if t["id"] == ident:
                return t
        return None
    born = min(i for i in range(0, K + 1) if content(i) is not None)
    sizes = sizes_of(trees, K, ident)
    dw = whole_of(dur, globl, K, ident, sizes)
    ranges = [(k, d) for k, d in dur if d["kind"] == "range" and d["id"] == ident and k <= K]
    lo = dw if dw is not None else born
    allowed = set()
    for i in range(lo, K + 1):
        if sizes[i] is None:
            continue
        allowed.add(sizes[i])
        prev = sizes[i - 1] if i > lo and sizes[i - 1] is not None else None
        if prev is not None and sizes[i] > prev:
            allowed.update(range(prev - prev % B + B, sizes[i], B))
    if dw is None:
        allowed.add(0)
    bad, promise = False, False
    if f["size"] not in allowed:
        bad = True
        if dw is not None and (all(sizes[i] == sizes[dw] for i in range(dw, K + 1)) or
                               f["size"] < min(x for x in sizes[dw:K + 1] if x is not None)):
            promise = True
    if f["size"] < need_of(ranges, sizes, K):
        bad = promise = True
    for b, h in enumerate(f["blocks"]):
        db = dw
        for k, d in ranges:
            if d["first"] <= b <= d["last"] and (db is None or k > db):
                db = k
        start = db if db is not None else born
        held = set()
        for i in range(start, K + 1):
            c = content(i)
            if c is not None and b < len(c["blocks"]):
                held.add(c["blocks"][b])
        if h in held or (h == ZERO and not held):
            continue
        bad = True
        # the program gave the block's durable content up: a size set
        # since cut the file to the block's start or below
        if db is not None and any(sizes[i] is not None and sizes[i] <= b * B
                                  for i in range(db + 1, K + 1)):
            continue
        # a promise broken if no call wrote the block after it was made
        # durable, or if it holds what it held before then (or zeros)
        if db is not None and not any(ops[i - 1]["wrote"] and ops[i - 1]["wrote"][0] == ident and
                                      ops[i - 1]["wrote"][1] <= b < ops[i - 1]["wrote"][2]
                                      for i in range(db + 1, K + 1)):
            promise = True
        at = content(db) if db is not None else None
        if at is not None and b < len(at["blocks"]) and at["blocks"][b] != ZERO and \
                (h == ZERO or any(content(i) is not None and b < len(content(i)["blocks"]) and
                                  content(i)["blocks"][b] == h for i in range(born, db))):
            promise = True
    if not bad:
        return "ok"
    return "promise" if promise else "exposure"


def durably_empty(trees, dur, globl, K, ident, path, dn, dw):
    def size(i):
        for t in trees[i].values():
            if t["id"] == ident:
                return t["size"]
        return None
    if dw is not None and size(dw) == 0:
        return True
    return dn is not None and (dw is None or dw < dn) and size(dn) == 0


def compare(model, logdump, marks, report, dumpdir):
    ops = json.load(open(model))
    acks, events, ends = parse_log(logdump, marks, len(ops))
    recs = op_records(ops, acks, events)
    end_rec = ends[0] if ends else None
    r = json.load(open(report))
    points = r["points"]
    ids = [p["id"] for p in points]
    trees = {}
    for name in os.listdir(dumpdir):
        trees[name] = json.load(open(os.path.join(dumpdir, name)))
    rep = {}
    for p in points:
        rep[p["id"]] = p["same_as"] or p["id"]
    tree_of = {}
    for pid in ids:
        key = pid.replace("/", "_")
        if key in trees:
            tree_of[rep[pid]] = trees[key]
    agree, diffs, skipped = 0, [], 0
    for p in points:
        if p["verdict"] in ("fs-corrupt", "unmountable", "not-checked"):
            continue
        found = tree_of.get(rep[p["id"]])
        if found is None:
            skipped += 1
            continue
        ref = judge_state(ops, recs, end_rec, p["moment_record"], found)
        got = {}
        for x in p["findings"]:
            if x["verdict"] in ("unmentioned", "older-version"):
                continue
            got[x["path"]] = "skip" if x["verdict"] == "not-judged" else \
                ("promise" if x.get("promise") else "exposure")
        for path, want in ref.items():
            have = got.get(path, "ok")
            if have == "skip":
                continue
            if have == want:
                agree += 1
            else:
                diffs.append((p["id"], p["moment_record"], path, "powercut", have, "reference", want))
    if diffs:
        for d in diffs[:10]:
            print("differ:", *d)
        sys.exit(1)
    print(agree)


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "dump":
        dump(sys.argv[2])
    else:
        compare(*sys.argv[2:7])
