#!/bin/sh
# contrib/apps/raid1/workload.sh: runs in the qemu guest (powercut vm) on
# two recorded disks, $POWERCUT_DEV_a and $POWERCUT_DEV_b: an md RAID-1
# over both (mdadm, metadata 1.2, no write-intent bitmap), ext4 on it,
# then FILES (the first argument, default 6) numbered files of 64 KiB
# each, written and fsync'ed (the second argument "no": not fsync'ed,
# the marks claiming what was not asked; a third argument: ext4's mount
# options), with the mark file-N in disk
# a's log after each.  The marks "mkfs" (after mounting) and "end" (after
# the array is stopped) frame it.  fsync on ext4 over md returns once both
# legs acknowledged the data and the journal commit (a flush on each):
# after a power cut, every file whose mark was placed must be whole.
set -eu
n=${1:-6}
sync_files=${2:-yes}
opts=${3:-}
mark () { powercut mark --control "$POWERCUT_CONTROL_a" "$1"; }
mkdir -p /run/mdadm /etc/mdadm /mnt
mdadm --create /dev/md0 --run --quiet --level=1 --raid-devices=2 --metadata=1.2 \
      --assume-clean --bitmap=none "$POWERCUT_DEV_a" "$POWERCUT_DEV_b"
mkfs.ext4 -q -F -b 4096 /dev/md0
mount -t ext4 ${opts:+-o "$opts"} /dev/md0 /mnt
mark mkfs
i=1
while [ "$i" -le "$n" ]; do
  if [ "$sync_files" = no ]; then conv=notrunc; else conv=fsync; fi
  yes "powercut raid1 file $i" | head -c 65536 | dd of=/mnt/f$i bs=4096 conv=$conv 2>/dev/null
  mark "file-$i"
  i=$((i + 1))
done
umount /mnt
mdadm --stop --quiet /dev/md0
mark end
