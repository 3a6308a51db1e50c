#!/usr/bin/env bash
# test-record-nbdinfo.sh: nbdinfo sees the export's size, flags and block sizes, and can list it.
. "${top_srcdir:-$(dirname "$0")/..}/tests/functions.sh"
requires nbdinfo

start_recorder --size 100M

run nbdinfo --json "$uri"
# nbdinfo connects and describes the export
assert_eq "$rc" 0 "nbdinfo: exit status (stderr: $err)"
info=$out
# key VALUE: the line of nbdinfo's JSON output for "key"
key () { sed -n "s/^[[:space:]]*\"$1\": *\\([^,]*\\),\\{0,1\\}\$/\\1/p" <<<"$info"; }

# the export has the size given to --size
assert_eq "$(key export-size)" 104857600 "export-size"
# the handshake is fixed newstyle
assert_eq "$(key protocol)" '"newstyle-fixed"' "protocol"
# structured replies were negotiated
assert_eq "$(key structured)" true "structured"
for flag in can_flush can_fua can_trim can_zero can_multi_conn; do
  # the export advertises what the kernel and qemu need
  assert_eq "$(key $flag)" true "$flag"
done
# the export is writable
assert_eq "$(key is_read_only)" false "is_read_only"
# requests are in 512-byte sectors
assert_eq "$(key block_size_minimum)" 512 "block_size_minimum"
# the preferred block size is a page
assert_eq "$(key block_size_preferred)" 4096 "block_size_preferred"
# large requests (32 MiB, the NBD default maximum) are allowed
assert_ge "$(key block_size_maximum)" 33554432 "block_size_maximum"

run nbdinfo --list --json "$uri"
# nbdinfo --list works (NBD_OPT_LIST, then NBD_OPT_INFO)
assert_eq "$rc" 0 "nbdinfo --list: exit status (stderr: $err)"
info=$out
# there is exactly one export, the default one
assert_eq "$(key export-name)" '""' "nbdinfo --list: export-name"
# and it is described too
assert_eq "$(key export-size)" 104857600 "nbdinfo --list: export-size"

run nbdinfo --size "$uri"
# the short form agrees
assert_eq "$out" 104857600 "nbdinfo --size"

# Several clients at once (multi-conn): four at a time.
pids=()
for i in 1 2 3 4; do
  timeout "$T" nbdinfo --size "$uri" >"$tmp/size.$i" & pids+=($!)
done
for i in 1 2 3 4; do
  st=0; wait "${pids[i-1]}" || st=$?
  # each concurrent nbdinfo succeeds
  assert_eq "$st:$(cat "$tmp/size.$i")" 0:104857600 "concurrent nbdinfo $i"
done

# A recorder started from a base image serves that image's size.
stop_recorder
head -c 3M /dev/urandom >"$tmp/base.img"
log=$tmp/log2 start_recorder --base "$tmp/base.img"
run nbdinfo --size "$uri"
# the base image's size is the export size
assert_eq "$out" 3145728 "nbdinfo --size with --base"
stop_recorder

read_log "$tmp/log"
# nbdinfo only reads: the first log has no records but its end
assert_eq "$(field records | cut -d' ' -f1)" 1 "records in $tmp/log"
# and it ended cleanly
assert_match "$(field end)" '^clean' "end of $tmp/log"
