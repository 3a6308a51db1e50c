#!/bin/busybox sh
# init.sh: the qemu guest's /init (lib/guest/vm.c builds it in; the build
# makes it a C string).  It reads /powercut.conf, shell assignments that
# vm.c writes: the modules to load, then either a script to run on disks
# already made (SCRIPT_MODE), or a filesystem to make on /dev/nbd0 (unless
# MADE: it starts as a base image), mount,
# run the workload on (traced or not) and mark as powercut run does.  It
# says what became of it on the console: POWERCUT-INIT first, the
# script's lines as POWERCUT-OUT, then POWERCUT-STATUS N.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
echo 1 > /proc/sys/kernel/printk
echo POWERCUT-INIT
if grep -q powercut.probe /proc/cmdline; then echo POWERCUT-PROBE-OK; poweroff -f; fi
. /powercut.conf
say () { echo "powercut-guest: $*"; }
finish () { echo "POWERCUT-STATUS $1"; sync; poweroff -f; }
for m in $MODULES; do
  case $m in nbd) insmod /lib/modules/nbd.ko nbds_max=$NBDS ;; *) insmod /lib/modules/$m.ko ;; esac
done
ip link set lo up; ip link set eth0 up; ip addr add 10.0.2.15/24 dev eth0
if [ -n "$SCRIPT_MODE" ]; then
  for d in $DISKS; do
    set -- $(echo "$d" | tr : ' ')
    say attaching /dev/nbd$1 as $2
    nbd-client 10.0.2.100 $3 /dev/nbd$1 -b 4096 -N '' -C "$CONNECTIONS" || finish 210
    export POWERCUT_DEV_$2=/dev/nbd$1
    [ "$4" = 0 ] || export POWERCUT_CONTROL_$2=tcp:10.0.2.100:$4
  done
  export POWERCUT=/bin/powercut; mkdir -p /host /run /var/tmp
  if [ -n "$OUTPUT" ]; then stty -F /dev/ttyS1 raw -echo || finish 218; export POWERCUT_OUT=/dev/ttyS1; fi
  set -o pipefail
  (cd /host && eval "/workload.sh $ARGS") 2>&1 |
    while IFS= read -r l || [ -n "$l" ]; do echo "POWERCUT-OUT $l"; done; st=$?
  set +o pipefail; sync
  for d in $DISKS; do nbd-client -d /dev/nbd${d%%:*} >/dev/null 2>&1; done
  echo "POWERCUT-SCRIPT $st"; finish 0
fi
say attaching /dev/nbd0 over $CONNECTIONS connection\(s\)
# a device that starts as a base image has its filesystem, made on a file
# (512-byte sectors, which XFS then has): no mkfs, and sectors that size
if [ -n "$MADE" ]; then BS=512; else BS=4096; fi
nbd-client 10.0.2.100 10809 /dev/nbd0 -b $BS -N '' -C "$CONNECTIONS" || finish 210
[ -n "$MADE" ] || mkfs.$FS -q $MKFS_FORCE $MKFS_OPTS /dev/nbd0 || finish 211
for s in $SYSCTLS; do echo "${s#*=}" > /proc/sys/$(echo "${s%%=*}" | tr . /) || finish 216; done
mkdir -p /mnt
if [ -n "$MOUNT_OPTS" ]; then mount -t $FS -o "$MOUNT_OPTS" /dev/nbd0 /mnt || finish 212
else mount -t $FS /dev/nbd0 /mnt || finish 212; fi
export POWERCUT_CONTROL=tcp:10.0.2.100:10810 POWERCUT_MNT=/mnt POWERCUT=/bin/powercut POWERCUT_ACKS
powercut mark mkfs --manifest /mnt --sync || finish 213
say running the workload
if [ -n "$TRACED" ]; then T='powercut trace --quiet --'; else T=; fi
if [ -x /workload.sh ]; then
  (cd /mnt && eval "$T /workload.sh $ARGS"); st=$?
else
  (cd /mnt && $T powercut workload "$WORKLOAD" --dir /mnt --seed "$SEED" --files "$FILES" --commit "$COMMIT" --seconds "$SECONDS"); st=$?
fi
[ $st = 0 ] && { powercut mark "$MARK_COMMAND_END" && sleep "$SETTLE" &&
  powercut mark "$MARK_SETTLE_END" || st=217; }
[ $st = 0 ] && [ -x /workload.sh ] && { powercut mark end --manifest /mnt --sync || st=214; }
cd /; umount /mnt || { [ $st = 0 ] && st=215; }
nbd-client -d /dev/nbd0
finish $st
