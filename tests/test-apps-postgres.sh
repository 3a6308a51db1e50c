#!/usr/bin/env bash
# test-apps-postgres.sh: PostgreSQL with pg_wal on a filesystem of its
# own, the two disks recorded as one device set (contrib/devices.sh), the
# workload contrib/apps/postgres commits numbered transactions with a mark
# after each COMMIT returns, and powercut check DIR --verify starts the
# server on both recovered trees at every instant from the table's
# creation on.  With the defaults (fsync on, synchronous_commit on) every
# instant is consistent and keeps every acknowledged transaction; with the
# WAL disk's writes after an acknowledged transaction lost (zeroed in its
# log), the checker finds acknowledged transactions gone and says so.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 fusermount3 runuser python3
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bindir" ] && [ -x "$bindir/initdb" ] && id postgres >/dev/null 2>&1 || {
  echo "$0: test skipped: PostgreSQL (Debian's postgresql) is not installed"
  exit 77
}
app=$top_srcdir/contrib/apps/postgres
export POWERCUT
# the server runs as postgres: it must reach the mount points under $tmp
chmod 711 "$tmp"

# 1. The defaults: every instant consistent, nothing acknowledged lost.
run env PG_TX=4 "$top_srcdir/contrib/devices.sh" "$tmp/pg" data:256M wal:128M -- "$app/workload.sh"
assert_eq "$rc" 0 "recording (out: $out; stderr: $err)"
assert_eq "$(ls "$tmp/pg" | grep -c '\.pclog$')" 2 "two logs, one set"
host_done       # the checks export trees by libext2fs: no mount, no loop device
run powercut check "$tmp/pg" --from created --verify "$app/check.sh" --json "$tmp/pg.json"
assert_eq "$rc" 0 "check --verify (out: $out; stderr: $err)"
python3 - "$tmp/pg.json" <<'PY' || fail "the instants of the defaults"
import json, sys
r = json.load(open(sys.argv[1]))
x = r["instants"]
assert len(x) >= 10, len(x)
# the server started and read the table at every instant
assert all(i.get("app") == "ok" for i in x), [i for i in x if i.get("app") != "ok"][:3]
assert [d["name"] for d in r["devices"]] == ["data", "wal"]
PY

# 2. The WAL disk loses the WAL pages it wrote after tx-2 was acknowledged
# (zeroed in its log): the instants after tx-3's mark lose
# acknowledged transactions, and the checker says so.
cp -r "$tmp/pg" "$tmp/lost"
rm -rf "$tmp/lost/mnt"
edits=$(python3 - "$tmp/lost" "$POWERCUT" <<'PY'
import struct, subprocess, sys
d, pc = sys.argv[1:3]
def mono(path):
    return struct.unpack_from("<Q", open(path, "rb").read(256), 200)[0]
dump = subprocess.run([pc, "log", "--dump", d + "/data.pclog"], capture_output=True, text=True).stdout
t = [float(l.split()[1]) for l in dump.splitlines() if " mark name=tx-2 " in l + " "][0]
at = mono(d + "/data.pclog") + int(t * 1e9)
data, wm = open(d + "/wal.pclog", "rb").read(), mono(d + "/wal.pclog")
off = 256
while off + 56 <= len(data):
    typ, = struct.unpack_from("<H", data, off + 4)
    seq, = struct.unpack_from("<Q", data, off + 8)
    datalen, = struct.unpack_from("<I", data, off + 28)
    tm, = struct.unpack_from("<Q", data, off + 32)
    # WAL pages (xlp_magic 0xD110 of PostgreSQL 15 at their start)
    if typ == 1 and wm + tm > at and data[off + 56:off + 58] == b"\x10\xd1":
        print(seq, datalen)
    off += 56 + datalen
PY
)
assert_match "$edits" '^[0-9]+ [0-9]+' "the WAL disk's writes after tx-2"
while read -r seq len; do
  "$top_builddir/tests/log-edit" "$tmp/lost/wal.pclog" zero "$seq" 0 "$len" || fail "log-edit"
done <<<"$edits"
run powercut check "$tmp/lost" --from created --verify "$app/check.sh" --json "$tmp/lost.json"
assert_eq "$rc" 1 "check --verify of the lost WAL (stderr: $err)"
assert_match "$out" 'lost: [0-9]+ of [0-9]+ acknowledged transactions' "what the checker says"
python3 - "$tmp/lost.json" <<'PY' || fail "the instants that lost acknowledged transactions"
import json, sys
r = json.load(open(sys.argv[1]))
bad = [i for i in r["instants"] if i.get("app") == "app-invalid"]
assert bad and all(i["promise"] and "lost:" in i["evidence"] for i in bad)
PY
# nothing of the devices is left behind
assert_eq "$(losetup -a | grep -c "$tmp" || true)" 0 "loop devices left"
