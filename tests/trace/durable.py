#!/usr/bin/env python3
# durable.py SOURCE: makes one block of a file durable by SOURCE, then
# writes another file it never syncs.  Run traced by powercut run (in the
# mounted filesystem).  The block holds "D:SOURCE" padded to 16 bytes, 256
# times, so a test can find (and zero) it in the log.
#   fsync fdatasync osync odsync rwf_sync rwf_dsync msync sync syncfs:
#       the file f's block
#   mark: the file f declared durable by a mark (powercut mark --durable),
#       not synced
#   dir: the name d/entry (the file synced, then its directory)
import ctypes
import mmap
import os
import subprocess
import sys

src = sys.argv[1]
unit = ("D:" + src).ljust(16, ".").encode()
block = unit * 256

flags = os.O_WRONLY | os.O_CREAT
if src == "osync":
    flags |= os.O_SYNC
elif src == "odsync":
    flags |= os.O_DSYNC
if src == "msync":
    fd = os.open("f", os.O_RDWR | os.O_CREAT, 0o644)
    os.ftruncate(fd, len(block))
    with mmap.mmap(fd, len(block), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE) as m:
        m[:] = block
        m.flush()                       # msync(MS_SYNC)
    os.close(fd)
elif src == "dir":
    os.mkdir("d")
    os.sync()
    fd = os.open("d/entry", flags, 0o644)
    os.write(fd, block)
    os.fsync(fd)
    os.close(fd)
    dfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(dfd)
    os.close(dfd)
else:
    fd = os.open("f", flags, 0o644)
    if src in ("rwf_sync", "rwf_dsync"):
        os.pwritev(fd, [block], 0, os.RWF_SYNC if src == "rwf_sync" else os.RWF_DSYNC)
    else:
        os.write(fd, block)
    if src == "fsync":
        os.fsync(fd)
    elif src == "fdatasync":
        os.fdatasync(fd)
    elif src == "sync":
        os.sync()
    elif src == "mark":
        subprocess.run([os.environ["POWERCUT"], "mark", "declared", "--manifest",
                        os.environ["POWERCUT_MNT"], "--durable", "f"],
                       check=True)
    elif src == "syncfs":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syncfs(fd) != 0:
            sys.exit("syncfs: " + os.strerror(ctypes.get_errno()))
    os.close(fd)

# data never synced: exposure, not a promise
with open("exposed", "wb") as f:
    f.write(b"never synced\n" * 100)
