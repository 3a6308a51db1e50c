#!/usr/bin/env bash
# trace-blocks.sh: a known-bug script run with no powercut in the way, to
# confirm what powercut reported by a second method.  The filesystem is
# made on a loop device over a sparse file (direct I/O, so the loop
# device's requests are the filesystem's own), the kernel's block
# tracepoints are enabled in a tracefs instance of this run's own,
# filtered on that device, and the script runs in the mounted filesystem
# (POWERCUT_MNT, as powercut run gives it).  A line the script writes to
# $TRACE_MARK, if it writes any, marks a step in the listing.
#
# It lists every write and flush request the device completed while the
# script ran, in order, and ends with what a power cut right after the
# script returned keeps: a write is durable once a flush issued after it
# completed has completed (the loop device has a volatile write cache and
# no FUA: a FUA write shows as write then flush).  With -f, the writes
# that matter are those of a file's data (its blocks, by FIEMAP, when the
# script returned): the script's last call promised them durable (a
# sync, an fsync), so such a write without a flush after it is data the
# kernel said was durable and was not.  (Without -f every write counts,
# and metadata a journal already holds, written back after its commit,
# shows too.)
#
# usage: trace-blocks.sh [-s SIZE] [-o MKFS-OPTION]... [-f FILE]... FSTYPE SCRIPT
#   -s SIZE   the device's size (default 512M; XFS needs 300M)
#   -o OPT    an option for mkfs (repeatable), e.g. -o -O -o fast_commit
#   -f FILE   a file the script makes durable, relative to the filesystem
# Exits 0 if every write that counts was flushed when the script
# returned, 1 if one was not, 2 on an error.  Needs root, tracefs,
# losetup, filefrag and mkfs.FSTYPE.
set -euo pipefail
usage () { echo "usage: $0 [-s SIZE] [-o MKFS-OPTION]... [-f FILE]... FSTYPE SCRIPT" >&2; exit 2; }
size=512M
mkfs_opts=() files=()
while getopts s:o:f:h o; do
  case $o in s) size=$OPTARG ;; o) mkfs_opts+=("$OPTARG") ;; f) files+=("$OPTARG") ;; *) usage ;; esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
fstype=$1
script=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
[ -f "$script" ] || { echo "$0: $2: no such script" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "$0: needs root" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/trace-blocks.XXXXXX")
loop='' mnt=$work/mnt tfs=$work/tracefs inst=''
cleanup () {
  set +e
  [ -z "$inst" ] || { echo 0 >"$inst/tracing_on"; rmdir "$inst"; }
  mountpoint -q "$tfs" && umount "$tfs"
  mountpoint -q "$mnt" && umount "$mnt"
  [ -z "$loop" ] || losetup -d "$loop"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM HUP

truncate -s "$size" "$work/disk"
loop=$(losetup --direct-io=on -f --show "$work/disk")
case $fstype in
  xfs|btrfs) mkfs_force=-f ;;
  ext*) mkfs_force=-F ;;
  *) mkfs_force='' ;;
esac
"mkfs.$fstype" -q $mkfs_force "${mkfs_opts[@]}" "$loop" >/dev/null
mkdir "$mnt" "$tfs"
mount -t "$fstype" "$loop" "$mnt"

mount -t tracefs nodev "$tfs"
inst=$tfs/instances/powercut-$$
mkdir "$inst"
major=$((16#$(stat -c %t "$loop"))) minor=$((16#$(stat -c %T "$loop")))
for e in block_rq_issue block_rq_complete; do
  echo "dev == $(( (major << 20) | minor ))" >"$inst/events/block/$e/filter"
  echo 1 >"$inst/events/block/$e/enable"
done
echo 4096 >"$inst/buffer_size_kb"
echo 1 >"$inst/tracing_on"

echo "script: start" >"$inst/trace_marker"
st=0
( cd "$mnt" && POWERCUT_MNT=$mnt TRACE_MARK=$inst/trace_marker "$script" ) || st=$?
echo "script: returned" >"$inst/trace_marker"
echo 0 >"$inst/tracing_on"
[ $st -eq 0 ] || { echo "$0: $(basename "$script") exited $st" >&2; exit 2; }

# the files' data, as "first last name" lines of 512-byte sectors
ranges=''
for f in "${files[@]}"; do
  [ -f "$mnt/$f" ] || { echo "$0: $f: not a file in the filesystem" >&2; exit 2; }
  r=$(filefrag -b512 -e "$mnt/$f" | awk -v n="$f" -F'[:. ]+' '
    /^ *[0-9]+: / { print $5, $6, n }') || true
  [ -n "$r" ] || { echo "$0: $f: no blocks (filefrag)" >&2; exit 2; }
  ranges+=$r$'\n'
done

echo "$fstype on $loop (Linux $(uname -r)), $(basename "$script"):"
# the block layer's rwbs: a write has a W, a flush request is F with no
# W (a leading F on a write: its preflush, done before it).  A flush
# covers the writes that had completed when it was issued, once it too
# has completed (flushes complete in the order they were issued here).
awk -v ranges="$ranges" -v only=${#files[@]} '
  BEGIN { nr = split(ranges, line, "\n")
    for (i = 1; i <= nr; i++) if (split(line[i], f, " ") == 3) { nd++; lo[nd] = f[1]; hi[nd] = f[2]; who[nd] = f[3] } }
  function whose(s, n,   i) {
    for (i = 1; i <= nd; i++) if (s <= hi[i] && s + n - 1 >= lo[i]) return who[i]
    return "" }
  / tracing_mark_write: / { sub(/.* tracing_mark_write: /, ""); print "  -- " $0; next }
  / block_rq_(issue|complete): / {
    issue = ($0 ~ / block_rq_issue: /)
    sub(/.* block_rq_(issue|complete): /, ""); rwbs = $2
    if (rwbs ~ /W/) {
      if (issue || $6 == 0) next      # 0: a flush sequence'"'"'s end
      else {
        nw++; sector[nw] = $4; len[nw] = $6
        w = whose($4, $6)
        counts[nw] = (!only || w != "")
        printf "  write  %-4s sector %s + %s%s\n", rwbs, $4, $6, (w != "" ? "  (" w "'"'"'s data)" : "")
        if (rwbs ~ /^F/) for (i = 1; i < nw; i++) durable[i] = 1
      }
    } else if (rwbs ~ /^F/) {
      if (issue) { queue[++qtail] = nw; next }
      upto = queue[++qhead]; nf++
      printf "  flush  %-4s (covers the %d write%s completed before it was issued)\n", rwbs, upto, upto == 1 ? "" : "s"
      for (i = 1; i <= upto; i++) durable[i] = 1
    }
  }
  END {
    left = 0; sectors = 0
    for (i = 1; i <= nw; i++) if (!durable[i] && counts[i]) { left++; sectors += len[i] }
    printf "%d writes, %d flushes; ", nw, nf
    what = (only ? "writes of the files'"'"' data" : "writes")
    if (left) {
      printf "when the script returned, %d %s (%d sectors) had no flush after %s\n", left,
        left == 1 ? (only ? "write of the files'"'"' data" : "write") : what, sectors, left == 1 ? "it" : "them"
      exit 1
    }
    print "every one of the " what " was flushed when the script returned"
  }' "$inst/trace" || exit 1
