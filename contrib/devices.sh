#!/usr/bin/env bash
# devices.sh: record a command on several devices at once, a device set.
# usage: devices.sh DIR NAME:SIZE[:MKFS-OPTIONS]... -- COMMAND [ARG]...
# For each NAME, a recorder (powercut record) writes DIR/NAME.pclog; its
# disk is attached through nbdfuse and a loop device, made ext4 (mkfs.ext4
# -b 4096 and MKFS-OPTIONS, spaces as commas) and mounted on DIR/mnt/NAME
# (with the options in DEVICES_MOUNT_OPTS, if any); the mark "mkfs" goes into each log.  COMMAND
# runs with POWERCUT (the program), POWERCUT_MNT_NAME and
# POWERCUT_CONTROL_NAME (NAME's mount point and control socket) in its
# environment.  Then everything is taken down again, whatever happened;
# check the set with "powercut check DIR".  Needs root, nbdfuse, losetup,
# mkfs.ext4.  POWERCUT names the program (default: powercut in PATH).
# Exits as COMMAND did, or 2 if the devices could not be set up.
set -euo pipefail
usage () { echo "usage: $0 DIR NAME:SIZE[:MKFS-OPTIONS]... -- COMMAND [ARG]..." >&2; exit 2; }
[ $# -ge 3 ] || usage
dir=$1; shift
specs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do specs+=("$1"); shift; done
[ $# -ge 2 ] && [ ${#specs[@]} -ge 1 ] || usage
shift
pc=${POWERCUT:-$(command -v powercut || true)}
[ -n "$pc" ] || { echo "$0: no powercut in PATH (or give POWERCUT)" >&2; exit 2; }
export POWERCUT=$pc
mkdir -p "$dir/mnt"
run=$(mktemp -d)
names=() ; declare -A rec fusepid loopdev
down () {
  local n i
  for n in "${names[@]}"; do
    mountpoint -q "$dir/mnt/$n" && { umount "$dir/mnt/$n" || umount -l "$dir/mnt/$n"; }
    [ -z "${loopdev[$n]:-}" ] || losetup -d "${loopdev[$n]}" || true
    for (( i = 0; i < 50; i++ )); do
      mountpoint -q "$run/fuse-$n" || break
      fusermount3 -u "$run/fuse-$n" 2>/dev/null && break
      sleep 0.1
    done
    if [ -n "${rec[$n]:-}" ] && kill -0 "${rec[$n]}" 2>/dev/null; then
      "$pc" stop --control "$run/$n.ctl" >/dev/null 2>&1 || kill -TERM "${rec[$n]}" 2>/dev/null || true
    fi
  done
  rm -rf "$run"
}
trap down EXIT
trap 'exit 130' INT TERM
for s in "${specs[@]}"; do
  IFS=: read -r n size opts <<<"$s"
  [[ "$n" =~ ^[A-Za-z0-9_]+$ ]] && [ -n "$size" ] || { echo "$0: $s: not NAME:SIZE[:MKFS-OPTIONS]" >&2; exit 2; }
  names+=("$n")
  "$pc" record --log "$dir/$n.pclog" --socket "$run/$n.sock" --control "$run/$n.ctl" \
        --pidfile "$run/$n.pid" --size "$size" || exit 2
  rec[$n]=$(cat "$run/$n.pid")
  mkdir "$run/fuse-$n" "$dir/mnt/$n"
  nbdfuse -P "$run/fuse-$n.pid" "$run/fuse-$n" --unix "$run/$n.sock" &
  for (( i = 0; i < 100; i++ )); do [ -s "$run/fuse-$n.pid" ] && break; sleep 0.1; done
  loopdev[$n]=$(losetup -f --show "$run/fuse-$n/nbd") || exit 2
  # shellcheck disable=SC2086
  mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 ${opts//,/ } "${loopdev[$n]}" || exit 2
  mount ${DEVICES_MOUNT_OPTS:+-o "$DEVICES_MOUNT_OPTS"} "${loopdev[$n]}" "$dir/mnt/$n" || exit 2
  "$pc" mark --control "$run/$n.ctl" mkfs || exit 2
  export "POWERCUT_MNT_$n=$dir/mnt/$n" "POWERCUT_CONTROL_$n=$run/$n.ctl"
done
st=0
"$@" || st=$?
sync
exit "$st"
