#!/usr/bin/env python3
# nbd-badclient.py: an NBD client that misbehaves on purpose, to test that the recorder answers with NBD errors and keeps serving.
#
# usage: nbd-badclient.py SOCKET CASE...
#
# Each CASE opens its own connection to the server on the Unix SOCKET, does
# one kind of wrong thing and checks the server's answer (doc/proto.md of the
# NBD project, fixed newstyle).  Exit status 0 when every case saw what it
# expected, 1 (with the reason on stderr) when one did not.  Standard library
# only.  "ok" is a well-behaved session: write, read back, flush.
import socket
import struct
import sys
import threading

NBD_MAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
REP_MAGIC = 0x0003E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
STRUCTURED_REPLY_MAGIC = 0x668E33EF

FLAG_FIXED_NEWSTYLE = 1
FLAG_NO_ZEROES = 2

OPT_EXPORT_NAME = 1
OPT_ABORT = 2
OPT_LIST = 3
OPT_INFO = 6
OPT_GO = 7
OPT_STRUCTURED_REPLY = 8

REP_ACK = 1
REP_INFO = 3
REP_ERR_UNSUP = 2**31 + 1
REP_ERR_INVALID = 2**31 + 3
REP_ERR_TOO_BIG = 2**31 + 9

INFO_EXPORT = 0

CMD_READ = 0
CMD_WRITE = 1
CMD_DISC = 2
CMD_FLUSH = 3
CMD_TRIM = 4
CMD_CACHE = 5
CMD_WRITE_ZEROES = 6
CMD_BLOCK_STATUS = 7

REPLY_TYPE_NONE = 0
REPLY_TYPE_OFFSET_DATA = 1
REPLY_TYPE_ERROR = 2**15 + 1

EINVAL = 22
EOVERFLOW = 75

TIMEOUT = 30          # seconds for any one answer
# Where the cases that write may write (the test reads the log for these).
OK_OFFSET = 1 << 20           # "ok" writes 4 KiB here
DISC_OFFSET = 2 << 20         # "write-disc" writes 4 KiB here
CUT_OFFSET = 3 << 20          # "write-cut" sends part of a 64 KiB write here
PIPELINE_OFFSET = 4 << 20     # "pipeline" writes 4 KiB blocks from here
PIPELINE_COUNT = 600
ABANDON_OFFSET = 8 << 20      # "write-abandon" writes 4 KiB blocks from here


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Conn:
    """One connection; the handshake methods leave it in transmission."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(TIMEOUT)
        self.s.connect(path)
        self.size = None
        self.structured = False
        self.handle = 0

    def close(self):
        self.s.close()

    def send(self, data):
        self.s.sendall(data)

    def recv(self, n, what):
        buf = b""
        while len(buf) < n:
            try:
                chunk = self.s.recv(n - len(buf))
            except socket.timeout:
                raise Failure("%s: no answer in %d s" % (what, TIMEOUT))
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise Failure("%s: the server closed the connection after %d of %d bytes"
                              % (what, len(buf), n))
            buf += chunk
        return buf

    def expect_closed(self, what):
        """The server must close the connection (EOF) without sending more."""
        try:
            data = self.s.recv(4096)
        except socket.timeout:
            raise Failure("%s: the server kept the connection open for %d s" % (what, TIMEOUT))
        except ConnectionResetError:
            data = b""
        expect(data == b"", "%s: expected the server to close, got %r" % (what, data[:64]))

    # --- handshake -------------------------------------------------------

    def greeting(self):
        magic, opt, hflags = struct.unpack(">QQH", self.recv(18, "greeting"))
        expect(magic == NBD_MAGIC and opt == IHAVEOPT,
               "greeting: bad magic %#x %#x" % (magic, opt))
        expect(hflags & FLAG_FIXED_NEWSTYLE, "greeting: no fixed newstyle flag (%#x)" % hflags)
        return hflags

    def start(self, no_zeroes=True):
        hflags = self.greeting()
        flags = FLAG_FIXED_NEWSTYLE
        if no_zeroes and hflags & FLAG_NO_ZEROES:
            flags |= FLAG_NO_ZEROES
        self.send(struct.pack(">I", flags))

    def option(self, opt, data=b""):
        self.send(struct.pack(">QII", IHAVEOPT, opt, len(data)) + data)

    def reply(self, opt, what):
        magic, ropt, rtype, rlen = struct.unpack(">QIII", self.recv(20, what))
        expect(magic == REP_MAGIC, "%s: bad option reply magic %#x" % (what, magic))
        expect(ropt == opt, "%s: reply to option %d, expected %d" % (what, ropt, opt))
        expect(rlen <= 1 << 20, "%s: reply of %d bytes" % (what, rlen))
        return rtype, self.recv(rlen, what) if rlen else b""

    def go(self, structured=False):
        if structured:
            self.option(OPT_STRUCTURED_REPLY)
            rtype, _ = self.reply(OPT_STRUCTURED_REPLY, "NBD_OPT_STRUCTURED_REPLY")
            expect(rtype == REP_ACK, "NBD_OPT_STRUCTURED_REPLY: reply type %#x" % rtype)
            self.structured = True
        self.option(OPT_GO, struct.pack(">IH", 0, 0))
        while True:
            rtype, data = self.reply(OPT_GO, "NBD_OPT_GO")
            if rtype == REP_ACK:
                break
            expect(rtype == REP_INFO, "NBD_OPT_GO: reply type %#x" % rtype)
            if struct.unpack(">H", data[:2])[0] == INFO_EXPORT:
                self.size, self.tflags = struct.unpack(">QH", data[2:12])
        expect(self.size is not None, "NBD_OPT_GO: no NBD_INFO_EXPORT")

    def connect(self, structured=False):
        self.start()
        self.go(structured)
        return self

    # --- transmission ----------------------------------------------------

    def request(self, cmd, offset=0, length=0, data=b"", flags=0, magic=REQUEST_MAGIC):
        self.handle += 1
        self.send(struct.pack(">IHHQQI", magic, flags, cmd, self.handle, offset, length) + data)
        return self.handle

    def simple_reply(self, what):
        magic, error, handle = struct.unpack(">IIQ", self.recv(16, what))
        expect(magic == SIMPLE_REPLY_MAGIC, "%s: bad reply magic %#x" % (what, magic))
        return error, handle

    def read_reply(self, handle, offset, length, what):
        """Returns (error, data) of a read, simple or structured."""
        if not self.structured:
            error, h = self.simple_reply(what)
            expect(h == handle, "%s: reply for handle %d, expected %d" % (what, h, handle))
            return error, self.recv(length, what) if error == 0 else b""
        data = bytearray(length)
        error = 0
        while True:
            magic, flags, rtype, h, plen = struct.unpack(">IHHQI", self.recv(20, what))
            expect(magic == STRUCTURED_REPLY_MAGIC,
                   "%s: bad structured reply magic %#x" % (what, magic))
            expect(h == handle, "%s: reply for handle %d, expected %d" % (what, h, handle))
            payload = self.recv(plen, what) if plen else b""
            if rtype == REPLY_TYPE_OFFSET_DATA:
                off = struct.unpack(">Q", payload[:8])[0] - offset
                expect(0 <= off and off + plen - 8 <= length,
                       "%s: data chunk outside the request" % what)
                data[off:off + plen - 8] = payload[8:]
            elif rtype == REPLY_TYPE_ERROR:
                error = struct.unpack(">I", payload[:4])[0]
            else:
                expect(rtype == REPLY_TYPE_NONE, "%s: chunk type %#x" % (what, rtype))
            if flags & 1:
                return error, bytes(data) if error == 0 else b""

    def read(self, offset, length, what="read"):
        h = self.request(CMD_READ, offset, length)
        return self.read_reply(h, offset, length, what)

    def simple(self, cmd, offset=0, length=0, data=b"", flags=0, what="request"):
        h = self.request(cmd, offset, length, data, flags)
        error, rh = self.simple_reply(what)
        expect(rh == h, "%s: reply for handle %d, expected %d" % (what, rh, h))
        return error

    def disconnect(self):
        self.request(CMD_DISC)
        self.close()


def pattern(byte, length):
    return bytes([byte]) * length


def check_working(c, what):
    """The connection still works: a valid read is answered with its data."""
    error, data = c.read(0, 4096, what + ", then a valid read")
    expect(error == 0, "%s: a following valid read failed with error %d" % (what, error))
    expect(len(data) == 4096, "%s: a following valid read returned %d bytes" % (what, len(data)))


# --- the cases ---------------------------------------------------------------

def case_ok(path):
    c = Conn(path).connect()
    expect(c.tflags & 1, "transmission flags %#x lack HAS_FLAGS" % c.tflags)
    data = pattern(0x5A, 4096)
    error = c.simple(CMD_WRITE, OK_OFFSET, 4096, data, what="write")
    expect(error == 0, "write: error %d" % error)
    error, got = c.read(OK_OFFSET, 4096)
    expect(error == 0 and got == data, "read back: error %d, data %r..." % (error, got[:8]))
    error = c.simple(CMD_FLUSH, what="flush")
    expect(error == 0, "flush: error %d" % error)
    c.disconnect()


def case_bad_flags(path):
    # Garbage where the client flags belong: unknown bits.
    c = Conn(path)
    c.greeting()
    c.send(b"\xde\xad\xbe\xef" + b"garbage that is no option at all" * 4)
    c.expect_closed("garbage client flags")
    c.close()


def case_bad_opt_magic(path):
    c = Conn(path)
    c.start()
    c.send(struct.pack(">QII", 0x4241444D41474943, OPT_GO, 6) + struct.pack(">IH", 0, 0))
    c.expect_closed("bad option magic")
    c.close()


def case_unknown_opt(path):
    c = Conn(path)
    c.start()
    c.option(0x4242, b"some data for an option nobody knows")
    rtype, _ = c.reply(0x4242, "unknown option")
    expect(rtype == REP_ERR_UNSUP, "unknown option: reply type %#x, expected NBD_REP_ERR_UNSUP" % rtype)
    # The negotiation goes on after the error.
    c.option(OPT_LIST, b"junk")
    rtype, _ = c.reply(OPT_LIST, "NBD_OPT_LIST with data")
    expect(rtype == REP_ERR_INVALID, "NBD_OPT_LIST with data: reply type %#x" % rtype)
    c.option(OPT_GO, b"\0\0")
    rtype, _ = c.reply(OPT_GO, "short NBD_OPT_GO")
    expect(rtype == REP_ERR_INVALID, "short NBD_OPT_GO: reply type %#x" % rtype)
    c.option(OPT_GO, struct.pack(">I", 100) + b"x" * 10 + b"\0\0")
    rtype, _ = c.reply(OPT_GO, "NBD_OPT_GO with a name longer than its data")
    expect(rtype == REP_ERR_INVALID, "NBD_OPT_GO with a bad name length: reply type %#x" % rtype)
    c.go()
    check_working(c, "after bad options")
    c.disconnect()


def case_long_opt(path):
    # An option far longer than any the server takes: it says so (or hangs
    # up) but must not try to buffer it.  We send all of it, then go on.
    c = Conn(path)
    c.start()
    length = 4 << 20
    c.send(struct.pack(">QII", IHAVEOPT, OPT_INFO, length))
    chunk = b"\xff" * 65536
    for _ in range(length // len(chunk)):
        c.send(chunk)
    rtype, _ = c.reply(OPT_INFO, "over-long option")
    expect(rtype == REP_ERR_TOO_BIG, "over-long option: reply type %#x, expected NBD_REP_ERR_TOO_BIG" % rtype)
    c.go()
    check_working(c, "after an over-long option")
    c.disconnect()


def case_long_export_name(path):
    # NBD_OPT_EXPORT_NAME cannot be answered with an error: a name of
    # 1 GiB must make the server hang up at once.
    c = Conn(path)
    c.start()
    c.send(struct.pack(">QII", IHAVEOPT, OPT_EXPORT_NAME, 1 << 30) + b"x" * 1000)
    c.expect_closed("1 GiB export name")
    c.close()


def case_export_name_cut(path):
    # NBD_OPT_EXPORT_NAME announcing 100 bytes, the client leaves after 10.
    c = Conn(path)
    c.start()
    c.send(struct.pack(">QII", IHAVEOPT, OPT_EXPORT_NAME, 100) + b"0123456789")
    c.close()


def case_option_cut(path):
    # Half an option header, then the client leaves.
    c = Conn(path)
    c.start()
    c.send(struct.pack(">Q", IHAVEOPT) + b"\0\0")
    c.close()


def case_export_name(path):
    # The old way in: NBD_OPT_EXPORT_NAME, with and without the 124 zeroes.
    for no_zeroes in (True, False):
        c = Conn(path)
        c.start(no_zeroes=no_zeroes)
        c.option(OPT_EXPORT_NAME, b"any-name")
        size, flags = struct.unpack(">QH", c.recv(10, "NBD_OPT_EXPORT_NAME"))
        if not no_zeroes:
            expect(c.recv(124, "NBD_OPT_EXPORT_NAME zeroes") == b"\0" * 124,
                   "NBD_OPT_EXPORT_NAME: reserved bytes are not zero")
        expect(size > 0 and flags & 1, "NBD_OPT_EXPORT_NAME: size %d flags %#x" % (size, flags))
        check_working(c, "NBD_OPT_EXPORT_NAME (no_zeroes=%s)" % no_zeroes)
        c.disconnect()


def case_abort(path):
    c = Conn(path)
    c.start()
    c.option(OPT_ABORT)
    rtype, _ = c.reply(OPT_ABORT, "NBD_OPT_ABORT")
    expect(rtype == REP_ACK, "NBD_OPT_ABORT: reply type %#x" % rtype)
    c.expect_closed("NBD_OPT_ABORT")
    c.close()


def case_bad_request_magic(path):
    c = Conn(path).connect()
    c.request(CMD_READ, 0, 4096, magic=0x12345678)
    c.expect_closed("bad request magic")
    c.close()


def case_read_out_of_range(path, structured=False):
    c = Conn(path).connect(structured)
    size = c.size
    for off, length in ((size, 4096), (size - 512, 1024), (2**63, 512),
                        (2**64 - 512, 1024), (0, size + 512)):
        error, _ = c.read(off, length, "read at %d+%d" % (off, length))
        expect(error == EINVAL, "read at %d+%d beyond the end (%d): error %d, expected EINVAL"
               % (off, length, size, error))
    error, data = c.read(size - 4096, 4096, "read of the last 4 KiB")
    expect(error == 0 and len(data) == 4096, "read of the last 4 KiB: error %d" % error)
    check_working(c, "out-of-range reads")
    c.disconnect()


def case_read_out_of_range_structured(path):
    case_read_out_of_range(path, structured=True)


def case_write_out_of_range(path):
    # The payloads are made of valid-looking read requests: a server that
    # did not consume them would answer reads nobody asked for.
    c = Conn(path).connect()
    size = c.size
    fake = struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_READ, 999999, 0, 4) + b"\0" * 4
    for off, length in ((size, 65536), (size - 512, 1024), (2**64 - 512, 1024)):
        payload = (fake * (length // len(fake) + 1))[:length]
        error = c.simple(CMD_WRITE, off, length, payload, what="write at %d+%d" % (off, length))
        expect(error == EINVAL, "write at %d+%d beyond the end (%d): error %d, expected EINVAL"
               % (off, length, size, error))
    for cmd, name in ((CMD_TRIM, "trim"), (CMD_WRITE_ZEROES, "write-zeroes")):
        error = c.simple(cmd, size - 4096, 8192, what=name)
        expect(error == EINVAL, "%s beyond the end: error %d, expected EINVAL" % (name, error))
    check_working(c, "out-of-range writes")
    c.disconnect()


def case_misaligned(path):
    c = Conn(path).connect()
    for off, length in ((1, 512), (512, 100), (4095, 4097)):
        error, _ = c.read(off, length, "misaligned read %d+%d" % (off, length))
        expect(error == EINVAL, "misaligned read %d+%d: error %d, expected EINVAL" % (off, length, error))
        error = c.simple(CMD_WRITE, off, length, pattern(0xEE, length),
                         what="misaligned write %d+%d" % (off, length))
        expect(error == EINVAL, "misaligned write %d+%d: error %d, expected EINVAL" % (off, length, error))
        for cmd, name in ((CMD_TRIM, "trim"), (CMD_WRITE_ZEROES, "write-zeroes")):
            error = c.simple(cmd, off, length, what="misaligned %s" % name)
            expect(error == EINVAL, "misaligned %s %d+%d: error %d, expected EINVAL"
                   % (name, off, length, error))
    check_working(c, "misaligned requests")
    c.disconnect()


def case_zero_length(path):
    # Zero-length requests: harmless, answered (no-op or EINVAL), never a hang.
    c = Conn(path).connect()
    for cmd, name in ((CMD_WRITE, "write"), (CMD_TRIM, "trim"), (CMD_WRITE_ZEROES, "write-zeroes")):
        error = c.simple(cmd, 0, 0, what="zero-length %s" % name)
        expect(error in (0, EINVAL), "zero-length %s: error %d" % (name, error))
    check_working(c, "zero-length requests")
    c.disconnect()


def case_unknown_cmd(path):
    c = Conn(path).connect()
    for cmd in (42, 0xFFFF, CMD_CACHE, CMD_BLOCK_STATUS):
        error = c.simple(cmd, 0, 4096, what="command %d" % cmd)
        expect(error == EINVAL, "command %d: error %d, expected EINVAL" % (cmd, error))
    check_working(c, "unknown commands")
    c.disconnect()


def case_huge_write(path):
    # A write beyond the maximum payload: the server may hang up rather than
    # read 1 GiB, or refuse it; it must not wait for the payload forever.
    c = Conn(path).connect()
    c.request(CMD_WRITE, 0, 1 << 30)
    try:
        data = c.s.recv(16)
    except socket.timeout:
        raise Failure("1 GiB write: no answer and no hang-up in %d s" % TIMEOUT)
    except ConnectionResetError:
        data = b""
    if data:
        error = struct.unpack(">I", data[4:8])[0] if len(data) >= 8 else 0
        expect(error in (EINVAL, EOVERFLOW), "1 GiB write: error %d" % error)
    c.close()


def case_write_cut(path):
    # The client disconnects in the middle of a write's payload.
    c = Conn(path).connect()
    c.request(CMD_WRITE, CUT_OFFSET, 65536, pattern(0xCC, 1000))
    c.close()


def case_write_disc(path):
    # A write and NBD_CMD_DISC sent together: the write is still done.
    c = Conn(path).connect()
    h = c.request(CMD_WRITE, DISC_OFFSET, 4096, pattern(0xD1, 4096))
    c.request(CMD_DISC)
    # Either the write's reply or a hang-up; the data is checked below.
    try:
        c.s.recv(16)
    except (socket.timeout, ConnectionResetError):
        pass
    c.close()
    c = Conn(path).connect()
    error, data = c.read(DISC_OFFSET, 4096)
    expect(error == 0 and data == pattern(0xD1, 4096),
           "a write followed by NBD_CMD_DISC was not done (error %d, data %r...)" % (error, data[:8]))
    c.disconnect()


def case_write_abandon(path):
    # Writes and a flush in flight, and the client leaves without reading
    # a single reply: the server must finish them and drop the connection.
    c = Conn(path).connect()
    for i in range(100):
        c.request(CMD_WRITE, ABANDON_OFFSET + i * 4096, 4096, pattern(0xAB, 4096))
    c.request(CMD_FLUSH)
    c.close()


def case_pipeline(path):
    # Many requests in flight at once, more than a server queues per
    # connection: sent from a thread while the replies are read here.
    c = Conn(path).connect()

    def sender():
        try:
            for i in range(PIPELINE_COUNT):
                c.request(CMD_WRITE, PIPELINE_OFFSET + i * 4096, 4096,
                          pattern(i % 251 + 1, 4096))
            c.request(CMD_FLUSH)
        except OSError:
            pass

    t = threading.Thread(target=sender)
    t.start()
    try:
        for _ in range(PIPELINE_COUNT + 1):
            error, _ = c.simple_reply("pipelined request")
            expect(error == 0, "pipelined request: error %d" % error)
    except Exception:
        c.s.shutdown(socket.SHUT_RDWR)     # unblocks the sender
        raise
    finally:
        t.join()
    for i in (0, PIPELINE_COUNT // 2, PIPELINE_COUNT - 1):
        error, data = c.read(PIPELINE_OFFSET + i * 4096, 4096)
        expect(error == 0 and data == pattern(i % 251 + 1, 4096),
               "pipelined write %d reads back wrong" % i)
    c.disconnect()


CASES = {name[5:].replace("_", "-"): fn for name, fn in globals().items()
         if name.startswith("case_")}


def main():
    if len(sys.argv) < 3 or any(a not in CASES for a in sys.argv[2:]):
        sys.stderr.write("usage: nbd-badclient.py SOCKET CASE...\ncases: %s\n"
                         % " ".join(sorted(CASES)))
        return 2
    for name in sys.argv[2:]:
        try:
            CASES[name](sys.argv[1])
        except Failure as e:
            sys.stderr.write("nbd-badclient: %s: %s\n" % (name, e))
            return 1
        except OSError as e:
            sys.stderr.write("nbd-badclient: %s: %s\n" % (name, e))
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
