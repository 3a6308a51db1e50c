#!/bin/sh
# contrib/apps/raid1/run.sh OUTDIR: md RAID-1 over two recorded disks, one
# power cut, every instant checked; in qemu guests (powercut vm), as the
# host kernel may have no md driver.  Records workload.sh on two 64 MiB
# disks a and b into the device set OUTDIR/rec (a.pclog, b.pclog), then
# boots a guest again to run check.sh on it; its report goes to
# OUTDIR/check.txt and standard output.  RAID1_SIZE is each disk's size
# (default 64M: the replay of each instant reads both), RAID1_FILES (default 6),
# RAID1_FSYNC (yes, no) and RAID1_MOUNT_OPTS (ext4's) go to the workload.  POWERCUT names the program
# (default: powercut in PATH).  Needs root, qemu-system-x86, mdadm and a
# kernel in /boot.  Exits as check.sh did (0: every instant ok), or 2.
set -eu
out=${1:?usage: run.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
pc=${POWERCUT:-$(command -v powercut || true)}
[ -n "$pc" ] || { echo "$0: no powercut in PATH (or give POWERCUT)" >&2; exit 2; }
files=${RAID1_FILES:-6}
mkdir -p "$out"
rm -rf "$out/rec"
mkdir "$out/rec"
run=$(mktemp -d)
down () {
  for n in a b; do
    if [ -s "$run/$n.pid" ] && kill -0 "$(cat "$run/$n.pid")" 2>/dev/null; then
      "$pc" stop --control "$run/$n.ctl" >/dev/null 2>&1 || kill -TERM "$(cat "$run/$n.pid")" 2>/dev/null || true
    fi
  done
  rm -rf "$run"
}
trap down EXIT
trap 'exit 130' INT TERM
for n in a b; do
  "$pc" record --log "$out/rec/$n.pclog" --socket "$run/$n.sock" --control "$run/$n.ctl" \
        --pidfile "$run/$n.pid" --size "${RAID1_SIZE:-64M}" || exit 2
done
"$pc" vm --disk "a:$run/a.sock:$run/a.ctl" --disk "b:$run/b.sock:$run/b.ctl" \
      --module raid1 --program mdadm --console "$out/record-console.txt" \
      "$here/workload.sh" "$files" "${RAID1_FSYNC:-yes}" "${RAID1_MOUNT_OPTS:-}" || { echo "$0: the recording failed" >&2; exit 2; }
for n in a b; do "$pc" stop --control "$run/$n.ctl" >/dev/null || exit 2; done
st=0
"$pc" vm --copy "$out/rec" --module raid1 --module loop --program mdadm --program e2fsck --program cmp \
      --memory 1024 --timeout 1800 --console "$out/check-console.txt" \
      "$here/check.sh" rec "$files" > "$out/check.txt" || st=$?
cat "$out/check.txt"
[ "$st" -le 2 ] || { echo "$0: the check could not run (status $st; console: $out/check-console.txt)" >&2; exit 2; }
exit "$st"
