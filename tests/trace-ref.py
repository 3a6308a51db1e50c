#!/usr/bin/env python3
# trace-ref.py: a small brute-force reference oracle for a traced program,
# verdict and fault, for tests/test-trace-reference.sh.
#
#   trace-ref.py gen SEED MODEL       (in the recorded filesystem, traced)
#       a random workload of whole 4 KiB blocks: creates, writes (plain,
#       O_SYNC, O_DIRECT|O_SYNC, through a mapping and msync'ed),
#       truncates, renames, unlinks, fsync and fdatasync of files,
#       fsync of directories, sync, acknowledgements; one change of a
#       file or name per operation.
#   trace-ref.py patterns MODEL [NAME]...   (likewise)
#       the corpus of program patterns below (every one, or those
#       named), each in a directory of its own: rewrites with O_TRUNC,
#       renames over a file, saves as sed, perl and vim do them,
#       scratch and temporary files, never-synced index and lock files
#       beside synced data, stores through a mapping, acknowledged
#       appends.
#   trace-ref.py list                 the patterns' names
#   trace-ref.py dump DIR             (as the --verify command)
#       the state's tree: every file's size and the hash of each block,
#       into DIR/POINT.
#   trace-ref.py dump-copies COPIES DIR
#       the same for each tree copied into COPIES/POINT (a --verify
#       command of cp alone starts faster than a Python for each state).
#   trace-ref.py compare MODEL LOG-DUMP MARKS REPORT DIR [TREES]
#       judges every crash state of REPORT (a check's JSON, its
#       acknowledgements the lines "ack K": check --acks '^ack ') by the
#       reference below and compares, path by path, with powercut's
#       findings: ok, exposure (nobody's), the program's (a durable
#       version it gave up), ack-lost (the program's: what it
#       acknowledged), or a broken promise (the filesystem's).  The
#       trees are DIR's dumps, named by the points of TREES (the --verify
#       run's report; default REPORT).  Prints how many (state, path)
#       pairs agree and how many of each class; exits 1 on differences.
#
# Every operation prints "op K" once done (the log's ACK events place the
# operations among the disk's records); an acknowledgement is an
# operation of its own that prints "ack K".
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
# block's start: a truncate, O_TRUNC); else it is the program's if it gave
# a durable version of the path up (doc/fault.md: renamed another file
# over it, unlinked it and made a new one by its next call, or cut it),
# else exposure.  Then what the program acknowledged: at the last "ack"
# by m, for a path whose file it ever synced (or synced everything while
# one was there), bound to a file then that it neither moves away later
# nor deletes by m: a state that the judgement above accepts, or finds
# only exposure in, but that does not fit with the acknowledgement taken
# as one more point where everything was durable, lost what was
# acknowledged: ack-lost.
import hashlib, json, mmap, os, random, re, sys

B = 4096


def bhash(data):
    return hashlib.sha1(data).hexdigest()[:16]


def blocks_of(data):
    return [bhash(data[i:i + B]) for i in range(0, len(data), B)]


# --------------------------------------------------------------------------
# The workload: a world of files whose every operation is recorded

class World:
    def __init__(self, model_path):
        self.model_path = model_path
        self.tree = {}              # path -> identity
        self.data = {}              # identity -> bytearray
        self.hib = {}               # identity -> 1 + the last block ever written
        self.nextid = 0
        self.ops = []
        self.maps = {}              # path -> (fd, mmap) of a store not unmapped

    def fill(self, k, b):
        tag = b"op%03d-blk%02d-" % (k, b % 100)
        return (tag * (B // len(tag) + 1))[:B]

    def record(self, kind, call, durable=None, wrote=None, **kw):
        self.ops.append(dict(kind=kind, call=call, durable=durable or [], wrote=wrote or [],
                             tree={p: {"id": i, "size": len(self.data[i]),
                                       "blocks": blocks_of(bytes(self.data[i]))}
                                   for p, i in self.tree.items()}, **kw))
        print("op %d" % len(self.ops), flush=True)

    def save(self):
        json.dump(self.ops, open(self.model_path, "w"))

    def mkdir(self, d):
        os.mkdir(d)
        self.record("mkdir", "mkdir", path=d)

    def create(self, p):
        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
        self.tree[p] = self.nextid
        self.data[self.nextid] = bytearray()
        self.nextid += 1
        self.record("create", "openat", path=p)

    def write(self, p, off, cnt, how="plain"):
        """cnt whole blocks from block off: plain, sync (O_SYNC) or
        direct (O_DIRECT|O_SYNC)."""
        i = self.tree[p]
        n = len(self.ops) + 1
        buf = b"".join(self.fill(n, off + j) for j in range(cnt))
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
        d = self.data[i]
        if off * B > len(d):
            d.extend(b"\0" * (off * B - len(d)))
        d[off * B:off * B + len(buf)] = buf
        dur = [] if how == "plain" else [dict(kind="range", id=i, first=off, last=off + cnt - 1,
                                              end=(off + cnt) * B)]
        self.hib[i] = max(self.hib.get(i, 0), off + cnt)
        self.record("write", "pwrite64", dur, [i, off, off + cnt], path=p)

    def open_trunc(self, p):
        """open(O_WRONLY|O_TRUNC) of a file there: made empty."""
        i = self.tree[p]
        os.close(os.open(p, os.O_WRONLY | os.O_TRUNC))
        old = len(self.data[i])
        del self.data[i][:]
        self.record("otrunc", "openat", path=p, old=old)

    def truncate(self, p, blocks):
        i = self.tree[p]
        size = blocks * B
        old = len(self.data[i])
        os.truncate(p, size)
        if size > old:
            self.data[i].extend(b"\0" * (size - old))
        else:
            del self.data[i][size:]
        # grown over blocks that had data once: they read as zeros now
        self.record("truncate", "truncate", None,
                    [i, old // B, min(size // B, self.hib.get(i, 0))] if size > old else None,
                    path=p)

    def msync_store(self, p, blk):
        """a block through a shared mapping, msync(MS_SYNC) of it"""
        i = self.tree[p]
        n = len(self.ops) + 1
        fd = os.open(p, os.O_RDWR)
        m = mmap.mmap(fd, len(self.data[i]))
        m[blk * B:(blk + 1) * B] = self.fill(n, blk)
        m.flush(blk * B, B)
        m.close()
        os.close(fd)
        self.data[i][blk * B:(blk + 1) * B] = self.fill(n, blk)
        self.hib[i] = max(self.hib.get(i, 0), blk + 1)
        self.record("msync", "msync", [dict(kind="range", id=i, first=blk, last=blk,
                                            end=(blk + 1) * B)], [i, blk, blk + 1], path=p)

    def map_store(self, p, blk):
        """a block through a shared mapping, not msync'd: seen when a
        line is printed or the mapping goes (unmap)"""
        i = self.tree[p]
        n = len(self.ops) + 1
        fd = os.open(p, os.O_RDWR)
        m = mmap.mmap(fd, len(self.data[i]))
        m[blk * B:(blk + 1) * B] = self.fill(n, blk)
        self.maps[p] = (fd, m)
        self.data[i][blk * B:(blk + 1) * B] = self.fill(n, blk)
        self.hib[i] = max(self.hib.get(i, 0), blk + 1)
        self.record("mapstore", "mmap", None, [i, blk, blk + 1], path=p)

    def unmap(self, p):
        fd, m = self.maps.pop(p)
        m.close()
        os.close(fd)
        self.record("unmap", "munmap", path=p)

    def rename(self, p, q):
        os.rename(p, q)
        gone = self.tree.pop(q, None)
        self.tree[q] = self.tree.pop(p)
        if gone is not None and gone not in self.tree.values():
            del self.data[gone]
        self.record("rename", "rename", path=p, to=q)

    def unlink(self, p):
        os.unlink(p)
        i = self.tree.pop(p)
        if i not in self.tree.values():
            del self.data[i]
        self.record("unlink", "unlink", path=p)

    def fsync(self, p, data_only=False):
        i = self.tree[p]
        fd = os.open(p, os.O_RDONLY)
        (os.fdatasync if data_only else os.fsync)(fd)
        os.close(fd)
        call = "fdatasync" if data_only else "fsync"
        self.record("sync-file", call, [dict(kind="whole", id=i)], path=p)

    def sync_range_wait(self, p):
        """sync_file_range waiting for the writes: durable by nothing, but a
        sign the program counts on the file"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(p, os.O_WRONLY)
        # SYNC_FILE_RANGE_WAIT_BEFORE | WRITE | WAIT_AFTER
        libc.sync_file_range(fd, ctypes.c_int64(0), ctypes.c_int64(0), 7)
        os.close(fd)
        self.record("sfr", "sync_file_range", [dict(kind="wait", id=self.tree[p])], path=p)

    def fsync_dir(self, d):
        fd = os.open(d, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
        self.record("sync-dir", "fsync", [dict(kind="names", dir="" if d == "." else d)])

    def sync(self):
        os.sync()
        self.record("sync", "sync", [dict(kind="global")])

    def ack(self):
        n = len(self.ops) + 1
        print("ack %d" % n, flush=True)
        self.record("ack", "ack")


def gen(seed, model_path):
    rnd = random.Random(seed)
    w = World(model_path)
    names = ["f0", "f1", "f2", "d/g0", "d/g1"]
    w.mkdir("d")
    for k in range(1, 41):
        files = sorted(w.tree)
        choice = rnd.random()
        if not files or choice < 0.12:
            p = rnd.choice(names)
            if p not in w.tree:
                w.create(p)
            continue
        p = rnd.choice(files)
        i = w.tree[p]
        if choice < 0.38:
            # a write of whole blocks, plain or synchronous
            size = len(w.data[i]) // B
            w.write(p, rnd.randrange(0, size + 2), rnd.randrange(1, 4),
                    rnd.choice(["plain", "plain", "sync", "direct"]))
        elif choice < 0.46 and len(w.data[i]) >= B:
            w.msync_store(p, rnd.randrange(0, len(w.data[i]) // B))
        elif choice < 0.54:
            w.truncate(p, rnd.randrange(0, len(w.data[i]) // B + 3))
        elif choice < 0.58:
            w.open_trunc(p)
        elif choice < 0.66:
            q = rnd.choice(names)
            if q != p:
                w.rename(p, q)
        elif choice < 0.70:
            w.unlink(p)
        elif choice < 0.80:
            w.fsync(p, rnd.random() < 0.5)
        elif choice < 0.88:
            w.fsync_dir(rnd.choice([".", "d"]))
        elif choice < 0.92:
            w.sync()
        else:
            w.ack()
    w.save()


# --------------------------------------------------------------------------
# The corpus: programs' patterns, each in its own directory D

def base(w, d, f="f", blocks=2):
    """f made and synced, data and name: the version a crash must keep"""
    p = d + "/" + f
    w.create(p)
    w.write(p, 0, blocks)
    w.fsync(p)
    w.fsync_dir(d)
    return p


def p_otrunc_bigger(w, d):
    p = base(w, d)
    w.open_trunc(p)
    w.write(p, 0, 4)


def p_otrunc_smaller(w, d):
    p = base(w, d, blocks=3)
    w.open_trunc(p)
    w.write(p, 0, 1)


def p_otrunc_same(w, d):
    p = base(w, d)
    w.open_trunc(p)
    w.write(p, 0, 2)


def p_otrunc_empty(w, d):
    p = base(w, d)
    w.open_trunc(p)


def p_otrunc_synced(w, d):
    p = base(w, d)
    w.open_trunc(p)
    w.write(p, 0, 3)
    w.fsync(p)


def p_otrunc_acked(w, d):
    p = base(w, d)
    w.open_trunc(p)
    w.write(p, 0, 3)
    w.ack()


def p_truncate_rewrite(w, d):
    p = base(w, d, blocks=3)
    w.truncate(p, 0)
    w.write(p, 0, 2)


def p_truncate_partial(w, d):
    p = base(w, d, blocks=4)
    w.truncate(p, 2)
    w.write(p, 2, 3)


def p_truncate_up(w, d):
    p = base(w, d)
    w.truncate(p, 4)


def p_rewrite_in_place(w, d):
    p = base(w, d)
    w.write(p, 0, 2)


def p_rewrite_in_place_synced(w, d):
    p = base(w, d)
    w.write(p, 0, 2)
    w.fsync(p)


def p_rewrite_in_place_acked(w, d):
    p = base(w, d)
    w.write(p, 0, 1)
    w.ack()


def p_append(w, d):
    p = base(w, d)
    w.write(p, 2, 2)


def p_append_fdatasync(w, d):
    p = base(w, d)
    w.write(p, 2, 1)
    w.fsync(p, data_only=True)


def p_append_then_otrunc(w, d):
    p = base(w, d)
    w.write(p, 2, 1)
    w.open_trunc(p)
    w.write(p, 0, 1)


def save_by_rename(w, d, tmp, p, sync_tmp=False, sync_dir=False, ack=False):
    w.create(tmp)
    w.write(tmp, 0, 2)
    if sync_tmp:
        w.fsync(tmp)
    w.rename(tmp, p)
    if sync_dir:
        w.fsync_dir(d)
    if ack:
        w.ack()


def p_rename_over(w, d):
    save_by_rename(w, d, d + "/f.tmp", base(w, d))


def p_rename_over_fsync(w, d):
    save_by_rename(w, d, d + "/f.tmp", base(w, d), sync_tmp=True)


def p_rename_over_fsync_dirsync(w, d):
    save_by_rename(w, d, d + "/f.tmp", base(w, d), sync_tmp=True, sync_dir=True)


def p_rename_over_acked(w, d):
    save_by_rename(w, d, d + "/f.tmp", base(w, d), sync_tmp=True, ack=True)


def p_rename_over_dirsync_acked(w, d):
    save_by_rename(w, d, d + "/f.tmp", base(w, d), sync_tmp=True, sync_dir=True, ack=True)


def p_sed_twice(w, d):
    p = base(w, d)
    save_by_rename(w, d, d + "/sedAAAA", p)
    save_by_rename(w, d, d + "/sedBBBB", p)


def p_sed_twice_other_fsync(w, d):
    p = base(w, d)
    save_by_rename(w, d, d + "/sedCCCC", p)
    o = d + "/other"
    w.create(o)
    w.write(o, 0, 1)
    w.fsync(o)
    save_by_rename(w, d, d + "/sedDDDD", p)


def p_perl_twice(w, d):
    p = base(w, d)
    save_by_rename(w, d, d + "/XXperl1", p)
    save_by_rename(w, d, d + "/XXperl2", p)


def vim_save(w, d, p, sync):
    """vim's backupcopy=no: the file renamed to f~, a new f written (and
    fsync'd, as vim does by default), the backup deleted"""
    w.rename(p, p + "~")
    w.create(p)
    w.write(p, 0, 2)
    if sync:
        w.fsync(p)
    w.unlink(p + "~")


def p_vim_twice(w, d):
    p = base(w, d)
    vim_save(w, d, p, True)
    vim_save(w, d, p, True)


def p_vim_nofsync_twice(w, d):
    p = base(w, d)
    vim_save(w, d, p, False)
    vim_save(w, d, p, False)


def p_unlink_recreate(w, d):
    p = base(w, d)
    w.unlink(p)
    w.create(p)
    w.write(p, 0, 2)


def p_unlink_recreate_later(w, d):
    p = base(w, d)
    w.unlink(p)
    o = d + "/other"
    w.create(o)
    w.create(p)
    w.write(p, 0, 2)


def p_unlink(w, d):
    w.unlink(base(w, d))


def p_moved_away(w, d):
    p = base(w, d)
    w.rename(p, d + "/kept")
    w.create(p)
    w.write(p, 0, 1)


def p_scratch_deleted(w, d):
    s = d + "/scratch"
    w.create(s)
    w.write(s, 0, 1)
    w.fsync(s)
    w.unlink(s)
    w.ack()


def p_scratch_deleted_after_ack(w, d):
    s = d + "/scratch"
    w.create(s)
    w.write(s, 0, 1)
    w.fsync(s)
    w.ack()
    w.unlink(s)


def p_temp_renamed_after_ack(w, d):
    # dpkg's updates/tmp.i: filled, acknowledged, synced, moved away
    t = d + "/tmp.i"
    w.create(t)
    w.write(t, 0, 1)
    w.ack()
    w.fsync(t)
    w.rename(t, d + "/0000")
    w.fsync_dir(d)


def p_index_never_synced(w, d):
    p = base(w, d, "data", 1)
    x = d + "/data.idx"
    w.create(x)
    w.write(x, 0, 1)
    w.write(p, 1, 1)
    w.ack()
    w.write(x, 0, 1)
    w.ack()


def p_lock_never_synced(w, d):
    p = base(w, d, "data", 1)
    x = d + "/lock"
    w.create(x)
    w.write(x, 0, 1)
    w.ack()
    w.write(p, 1, 1)
    w.fsync(p)
    w.ack()


def p_msync_acked(w, d):
    p = base(w, d)
    w.msync_store(p, 1)
    w.ack()


def p_map_acked(w, d):
    p = base(w, d)
    w.map_store(p, 1)
    w.ack()
    w.unmap(p)


def p_map_unacked(w, d):
    p = base(w, d)
    w.map_store(p, 0)
    w.unmap(p)


def p_ack_appends_synced_once(w, d):
    p = d + "/store"
    w.create(p)
    w.fsync(p)
    w.fsync_dir(d)
    for b in range(3):
        w.write(p, b, 1)
        w.ack()


def p_ack_appends_never_synced(w, d):
    p = d + "/store"
    w.create(p)
    for b in range(3):
        w.write(p, b, 1)
        w.ack()


def p_ack_after_fsync(w, d):
    p = base(w, d)
    w.write(p, 2, 1)
    w.fsync(p)
    w.ack()


def p_ack_before_fsync(w, d):
    p = base(w, d)
    w.write(p, 2, 1)
    w.ack()
    w.fsync(p)


def p_ack_after_fdatasync_new_file(w, d):
    p = d + "/new"
    w.create(p)
    w.write(p, 0, 1)
    w.fsync(p, data_only=True)
    w.ack()


def p_ack_sync_range_wait(w, d):
    p = d + "/sfr"
    w.create(p)
    w.write(p, 0, 1)
    w.sync_range_wait(p)
    w.ack()


def p_ack_osync(w, d):
    p = base(w, d, "o", 1)
    w.write(p, 1, 1, "sync")
    w.ack()


def p_ack_odirect(w, d):
    p = base(w, d, "o", 1)
    w.write(p, 1, 1, "direct")
    w.ack()


def p_ack_two_files_one_synced(w, d):
    a = base(w, d, "a", 1)
    b = base(w, d, "b", 1)
    w.write(a, 1, 1)
    w.write(b, 1, 1)
    w.fsync(a)
    w.ack()


def p_ack_then_replace(w, d):
    p = base(w, d)
    w.write(p, 2, 1)
    w.ack()
    save_by_rename(w, d, d + "/f.new", p)


PATTERNS = [(name[2:], fn) for name, fn in sorted(globals().items()) if name.startswith("p_")]


def patterns(model_path, names):
    w = World(model_path)
    chosen = [(n, fn) for n, fn in PATTERNS if not names or n in names]
    for n, _ in chosen:
        w.mkdir(n)
    w.fsync_dir(".")
    for n, fn in chosen:
        fn(w, n)
    w.save()


# --------------------------------------------------------------------------
# A state's tree, for --verify

def tree_of_dir(root):
    out = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "lost+found"]
        for f in files:
            p = os.path.join(top, f)
            content = open(p, "rb").read()
            out[os.path.normpath(os.path.relpath(p, root))] = {"size": len(content),
                                                               "blocks": blocks_of(content)}
    return out


def dump(outdir):
    json.dump(tree_of_dir("."),
              open(os.path.join(outdir, os.environ["POWERCUT_POINT"].replace("/", "_")), "w"))


def dump_copies(copies, outdir):
    for name in os.listdir(copies):
        json.dump(tree_of_dir(os.path.join(copies, name)), open(os.path.join(outdir, name), "w"))


# --------------------------------------------------------------------------
# The reference

ZERO = bhash(b"\0" * B)


def parse_log(dump_path, marks_path):
    """Each op's "op K" line's record, each acknowledgement's, the call
    events, and the end mark's record."""
    opl, ackl, events = {}, {}, []
    for line in open(dump_path):
        f = line.split()
        if len(f) < 5 or f[3] != "event":
            continue
        rec = int(f[0])
        if f[4] == "ack":
            m = re.match(r"(op|ack) (\d+)$", " ".join(f[7:]))
            if m:
                (opl if m.group(1) == "op" else ackl)[int(m.group(2))] = rec
            continue
        text = line.split(" tid=", 1)[1].split(" ", 1)[1]
        events.append((rec, f[4], text))
    ends = []
    for line in open(marks_path):
        m = re.match(r"\s+record (\d+) at .*: end \(", line)
        if m:
            ends.append(int(m.group(1)))
    return opl, ackl, events, ends


CALLS = {"openat": ("openat(",), "pwrite64": ("pwrite64(",), "msync": ("msync(",),
         "truncate": ("truncate(",), "rename": ("rename(", "renameat"),
         "unlink": ("unlink(", "unlinkat("), "fsync": ("fsync(",),
         "fdatasync": ("fdatasync(",), "sync": ("sync(",), "mkdir": ("mkdir(",),
         "mmap": ("mmap(",), "munmap": ("munmap(",), "sync_file_range": ("sync_file_range(",)}


def op_records(ops, opl, ackl, events):
    """(entry of the changing call, return of the promising call) per op,
    and whether another call came between it and the op before (for a
    process's next call)."""
    res, pos = [], 0
    for k, op in enumerate(ops, 1):
        lo, hi = opl.get(k - 1, -1), opl[k]
        while pos < len(events) and events[pos][0] <= lo:
            pos += 1
        mine = []
        q = pos
        while q < len(events) and events[q][0] < hi:
            mine.append(events[q])
            q += 1
        if op["kind"] == "ack":
            res.append((ackl[k], ackl[k], 0))
            continue
        pre = CALLS[op["call"]]

        def find(kind, pred):
            for rec, kd, text in mine:
                if kd == kind and pred(text):
                    return rec
            return None
        entry = find("entry", lambda t: t.startswith(pre))
        ret = find("exit", lambda t: t.startswith(pre))
        if op["kind"] == "msync":
            # the mapping wrote at some time after the mmap: the change is
            # seen from the mmap on
            entry = find("entry", lambda t: t.startswith("mmap("))
        assert entry is not None and ret is not None, (k, op["kind"], mine)
        # the calls of this op before its changing one
        before = sum(1 for rec, kd, _ in mine if kd == "entry" and rec < entry)
        res.append((entry, ret, before))
    return res


class Ref:
    """The reference over one workload: ops, each op's records."""

    def __init__(self, ops, recs, end_rec):
        self.ops, self.recs, self.end_rec = ops, recs, end_rec
        self.trees = [{}] + [op["tree"] for op in ops]      # trees[i]: after op i
        self.byid = [{t["id"]: t for t in tr.values()} for tr in self.trees]
        self.n = len(ops)
        # each path's bindings, in op order: [(op, id or None)]
        self.binds = {}
        for i in range(1, self.n + 1):
            prev, cur = self.trees[i - 1], self.trees[i]
            for p in set(prev) | set(cur):
                a = prev[p]["id"] if p in prev else None
                b = cur[p]["id"] if p in cur else None
                if a != b:
                    self.binds.setdefault(p, []).append((i, b))
        self.synced_ids = {d["id"] for op in ops for d in op["durable"] if "id" in d}
        self.global_ops = [k for k, op in enumerate(ops, 1)
                           if any(d["kind"] == "global" for d in op["durable"])]

    # -- what op k of the world says
    def content(self, i, ident):
        return self.byid[i].get(ident)

    def sizes(self, K, ident):
        return [self.byid[i][ident]["size"] if ident in self.byid[i] else None
                for i in range(0, K + 1)]

    def next_call(self, a, b):
        """is op b the process's next call after op a (acknowledgements
        and other ops that make no call between them are no calls)?"""
        for k in range(a + 1, b):
            if self.ops[k - 1]["kind"] != "ack":
                return False
        return self.recs[b - 1][2] == 0

    def synced_path(self, p):
        """does the program treat p as durable data: a file ever bound to
        it synced (a call, any time), or everything synced while one was?"""
        bl = self.binds.get(p, [])
        for j, (s, y) in enumerate(bl):
            if y is None:
                continue
            if y in self.synced_ids:
                return True
            e = bl[j + 1][0] if j + 1 < len(bl) else self.n + 1
            if any(s < g < e for g in self.global_ops):
                return True
        return False


class State:
    """One crash state of moment m, with one more durable point (floor,
    an op: what the program had at its acknowledgement) or none."""

    def __init__(self, ref, m, floor=None):
        self.r = ref
        ops, recs = ref.ops, ref.recs
        self.K = 0
        for k in range(1, ref.n + 1):
            if recs[k - 1][0] <= m:
                self.K = k
        self.dur = [(k, d) for k in range(1, ref.n + 1) for d in ops[k - 1]["durable"]
                    if recs[k - 1][1] <= m and d["kind"] != "wait"]
        self.globl = [k for k, d in self.dur if d["kind"] == "global"]
        if ref.end_rec is not None and ref.end_rec <= m:
            self.globl.append(ref.n)
        if floor is not None:
            self.globl.append(floor)

    def names_durable(self, p):
        d = p.rsplit("/", 1)[0] if "/" in p else ""
        return [k for k, x in self.dur if x["kind"] == "names" and x["dir"] == d] + self.globl

    def whole(self, ident, sizes):
        K = self.K
        w = [k for k, d in self.dur if d["kind"] == "whole" and d["id"] == ident and k <= K] + \
            [k for k in self.globl if k <= K and sizes[k] is not None]
        return max(w) if w else None

    def ranges(self, ident):
        return [(k, d) for k, d in self.dur if d["kind"] == "range" and d["id"] == ident and
                k <= self.K]

    def judge(self, found):
        """{path: (class, id judged)}: class ok, exposure or promise"""
        r, K = self.r, self.K
        out = {}
        paths = set(found) | {p for i in range(K + 1) for p in r.trees[i]}
        for p in sorted(paths):
            nd = self.names_durable(p)
            dn = max(nd) if nd else None
            window = range(dn if dn is not None else 0, K + 1)
            binds = [r.trees[i][p]["id"] if p in r.trees[i] else None for i in window]
            if dn is None:
                binds.append(None)
            f = found.get(p)
            if f is None:
                out[p] = ("ok" if None in binds else "promise", None)
                continue
            cands = [b for b in binds if b is not None]
            if not cands:
                # where the name was durably gone; or a name not yet bound
                out[p] = ("promise" if dn is not None else "ok", None)
                continue
            newest = r.trees[K][p]["id"] if p in r.trees[K] else None
            if newest is not None and f["size"] == 0:
                z = self.zero_length(newest, dn)
                if z:
                    out[p] = (z, newest)
                    continue
            best = None
            for ident in dict.fromkeys(cands):
                c = self.judge_file(ident, f)
                if c == "ok":
                    best = ("ok", ident)
                    break
                if ident == newest or best is None:
                    best = (c, ident)
            out[p] = best
        return out

    def need(self, ranges, sizes):
        n = 0
        for k, d in ranges:
            n = max(n, min([d["end"], sizes[k]] + [sizes[i] for i in range(k + 1, self.K + 1)
                                                   if sizes[i] is not None]))
        return n

    def durably_empty(self, ident, dn, dw):
        r = self.r
        size = lambda i: r.byid[i][ident]["size"] if ident in r.byid[i] else None
        if dw is not None and size(dw) == 0:
            return True
        return dn is not None and (dw is None or dw < dn) and size(dn) == 0

    def zero_length(self, ident, dn):
        """an empty file where the program's last version had data"""
        K = self.K
        sizes = self.r.sizes(K, ident)
        if not sizes[K]:
            return None
        dw = self.whole(ident, sizes)
        if self.durably_empty(ident, dn, dw):
            return None
        last_change = max(i for i in range(0, K + 1) if sizes[i] is not None and
                          (i == 0 or sizes[i - 1] != sizes[i]))
        promise = self.need(self.ranges(ident), sizes) > 0 or \
            (dw is not None and (last_change <= dw or
                                 min(x for x in sizes[dw:K + 1] if x is not None) > 0))
        return "promise" if promise else "exposure"

    def judge_file(self, ident, f):
        r, K = self.r, self.K
        content = lambda i: r.byid[i].get(ident)
        born = min(i for i in range(0, K + 1) if content(i) is not None)
        sizes = r.sizes(K, ident)
        dw = self.whole(ident, sizes)
        ranges = self.ranges(ident)
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
        if f["size"] < self.need(ranges, sizes):
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
            if db is not None and not any(r.ops[i - 1]["wrote"] and r.ops[i - 1]["wrote"][0] == ident and
                                          r.ops[i - 1]["wrote"][1] <= b < r.ops[i - 1]["wrote"][2]
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

    def gave_up(self, p, n):
        """did the program give up a durable version of p (found as file
        n, which lost data never made durable): another file bound over
        it, or it unlinked and made anew by its next call, or cut since?"""
        r, K = self.r, self.K
        bl = [(s, y) for s, y in r.binds.get(p, []) if s <= K]
        nd = self.names_durable(p)
        for j, (s, y) in enumerate(bl):
            after = j + 1 < len(bl)
            end = bl[j + 1][0] - 1 if after else K
            if y is None:
                continue
            sizes = r.sizes(K, y)
            born = min(i for i in range(0, K + 1) if sizes[i] is not None)
            w = [k for k, d in self.dur if d["kind"] == "whole" and d["id"] == y and k <= end] + \
                [k for k in self.globl if born <= k <= end]
            if not w:
                continue
            dd = max(w)
            named = min([k for k in nd if k >= s], default=None)
            if after and y != n and (named is None or named > end):
                continue
            if named is None or named > end:
                named = 0
            if after and y != n:
                s2, y2 = bl[j + 1]
                if any(t["id"] == y for q, t in r.trees[s2].items() if q != p):
                    continue            # moved away
                if y2 is None and not (j + 2 < len(bl) and bl[j + 2][1] is not None and
                                       r.next_call(s2, bl[j + 2][0])):
                    continue            # deleted, not replaced by the next call
                return True
            if not after and y == n:
                at = max(dd, named)
                was = sizes[at]
                if any(sizes[k] is not None and sizes[k] < was for k in range(at + 1, K + 1)):
                    return True
        return False


def classify(ref, m, found, acked):
    """The reference's class of every path at a state of moment m: ok,
    exposure, program, ack (ack-lost) or promise.  acked: the op of the
    last acknowledgement by m, or None."""
    st = State(ref, m)
    out = {}
    main = st.judge(found)
    older = State(ref, m, acked).judge(found) if acked is not None else None
    for p, (c, ident) in main.items():
        if c == "exposure" and ident is not None and st.gave_up(p, ident):
            c = "program"
        if c in ("ok", "exposure") and older is not None and older.get(p, ("ok",))[0] != "ok" \
                and ref.synced_path(p) and kept_at(ref, p, acked, st.K):
            c = "ack"
        out[p] = c
    return out


def kept_at(ref, p, floor, K):
    """was p bound to a file at floor (the acknowledgement) that the program
    neither moves from p later nor deletes by K (without a new file by its
    next call)?"""
    bl = ref.binds.get(p, [])
    at = None
    after = None
    for j, (s, y) in enumerate(bl):
        if s <= floor:
            at = y
        elif after is None:
            after = j
    if at is None:
        return False
    if after is not None and bl[after][1] is None:
        s2 = bl[after][0]
        if any(t["id"] == at for q, t in ref.trees[s2].items() if q != p):
            return False                # moved away: a temporary name
        if s2 <= K and not (after + 1 < len(bl) and bl[after + 1][1] is not None and
                            ref.next_call(s2, bl[after + 1][0])):
            return False                # deleted by the state's moment
    return True


def powercut_class(f):
    if f["verdict"] == "ack-lost":
        return "ack"
    if f.get("fault") == "filesystem" or f.get("promise"):
        return "promise"
    if f.get("fault") == "program":
        return "program"
    return "exposure"


def compare(model, logdump, marks, report, dumpdir, trees_report=None):
    ops = json.load(open(model))
    opl, ackl, events, ends = parse_log(logdump, marks)
    recs = op_records(ops, opl, ackl, events)
    ref = Ref(ops, recs, ends[0] if ends else None)
    ack_ops = sorted((recs[k - 1][0], k) for k, op in enumerate(ops, 1) if op["kind"] == "ack")
    r = json.load(open(report))
    tr = json.load(open(trees_report or report))
    dumps = {name: json.load(open(os.path.join(dumpdir, name))) for name in os.listdir(dumpdir)}
    tree_of = {}
    for p in tr["points"]:
        for key in (p["id"], p["same_as"]):
            if key and key.replace("/", "_") in dumps:
                tree_of.setdefault(p["id"], dumps[key.replace("/", "_")])
    # points that share an image share a tree, whatever else they share
    by_image = {}
    for p in tr["points"]:
        if p["id"] in tree_of:
            by_image[p["same_as"] or p["id"]] = tree_of[p["id"]]
    for p in tr["points"]:
        if p["id"] not in tree_of and (p["same_as"] or p["id"]) in by_image:
            tree_of[p["id"]] = by_image[p["same_as"] or p["id"]]
    agree, diffs, classes = 0, [], {}
    for p in r["points"]:
        if p["verdict"] in ("fs-corrupt", "unmountable", "not-checked"):
            continue
        found = tree_of.get(p["id"])
        if found is None:
            continue
        m = p["moment_record"]
        acked = None
        for rec, k in ack_ops:
            if rec <= m:
                acked = k
        want = classify(ref, m, found, acked)
        got = {}
        for x in p["findings"]:
            if x["verdict"] in ("unmentioned", "older-version"):
                continue
            got[x["path"]] = "skip" if x["verdict"] == "not-judged" else powercut_class(x)
        for path, w in want.items():
            have = got.get(path, "ok")
            if have == "skip":
                continue
            classes[w] = classes.get(w, 0) + 1
            if have == w:
                agree += 1
            else:
                diffs.append((p["id"], m, path, "powercut", have, "reference", w))
        for path in got:
            if path not in want and got[path] != "skip":
                diffs.append((p["id"], m, path, "powercut", got[path], "reference", "unknown"))
    if diffs:
        for d in diffs[:20]:
            print("differ:", *d)
        print("%d differences" % len(diffs))
        sys.exit(1)
    print(agree, " ".join("%s=%d" % kv for kv in sorted(classes.items())))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), sys.argv[3])
    elif sys.argv[1] == "patterns":
        patterns(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "list":
        print("\n".join(n for n, _ in PATTERNS))
    elif sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif sys.argv[1] == "dump-copies":
        dump_copies(sys.argv[2], sys.argv[3])
    else:
        compare(*sys.argv[2:8])
