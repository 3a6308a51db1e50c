#!/bin/sh
# contrib/apps/raid1/check.sh DIR [FILES]: runs in the qemu guest (powercut vm,
# with DIR, the device set a.pclog and b.pclog, copied in): at every
# instant of one power cut (powercut log --instants), both legs are
# rebuilt (powercut replay), assembled as mdadm does at boot (--assemble
# --run: the legs whose superblocks agree, degraded if one is stale),
# resynced, the ext4 on the array recovered (e2fsck -E journal_only) and
# checked (e2fsck -fn), mounted read-only, and every file the marks say
# was fsync'ed before the cut compared with what was written.  One line
# per instant from the mark "mkfs" on:
#   INSTANT legs=same|differ events=A/B array=[UU]|[U_]|[_U]|none fsck=clean|errors files=K/N VERDICT
# VERDICT is ok, corrupt (no array, or e2fsck finds errors) or lost (a
# fsync'ed file missing or different); then a summary line.  Exits 0 when
# every instant is ok, 1 when one is not, 2 when it cannot check.
set -u
dir=${1:?usage: check.sh DIR [FILES]}
nfiles=${2:-6}
st=/tmp/state
# diffutils' cmp when it came along (run.sh brings it): busybox's reads a
# byte at a time, and comparing the legs took most of each instant's time
cmp=cmp
[ -x /bin/cmp ] && [ ! -L /bin/cmp ] && cmp=/bin/cmp
mkdir -p /run/mdadm /etc/mdadm /mnt "$st"
powercut log --instants "$dir" > /tmp/instants || exit 2
total=0 ok=0 differ=0 corrupt=0 lost=0 degraded=0
while read -r inst _t rest; do
  marka=; na=
  for kv in $rest; do
    case $kv in a=*) v=${kv#a=}; na=${v%%/*}; marka=${v#*/} ;; esac
  done
  [ "$marka" != - ] || continue         # before the filesystem was made
  rm -f "$st"/*.img
  powercut replay "$dir" --at "$inst" -o "$st" >/dev/null || { echo "$inst: replay failed"; exit 2; }
  off=$(mdadm --examine "$st/a.img" | sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p')
  ea=$(mdadm --examine "$st/a.img" | sed -n 's/.*Events : \([0-9]*\).*/\1/p')
  eb=$(mdadm --examine "$st/b.img" | sed -n 's/.*Events : \([0-9]*\).*/\1/p')
  [ -n "$off" ] || { echo "$inst: no md superblock on leg a"; exit 2; }
  if $cmp -s "$st/a.img" "$st/b.img" $((off * 512)) $((off * 512)); then legs=same
  else legs=differ; differ=$((differ + 1)); fi
  la=/dev/loop0 lb=/dev/loop1
  losetup "$la" "$st/a.img" && losetup "$lb" "$st/b.img" || exit 2
  array=none fsck=- files=-
  verdict=corrupt
  if mdadm --assemble --run --quiet /dev/md0 "$la" "$lb" 2>/tmp/assemble; then
    array=$(sed -n 's/.*blocks super 1.2 \[[0-9]*\/[0-9]*\] \(\[[U_]*\]\).*/\1/p' /proc/mdstat)
    mdadm --wait /dev/md0 >/dev/null 2>&1 || true
    [ "$array" = "[UU]" ] || degraded=$((degraded + 1))
    e2fsck -E journal_only -y /dev/md0 >/tmp/fsck 2>&1
    if e2fsck -fn /dev/md0 >/tmp/fsck 2>&1; then
      fsck=clean
      mount -t ext4 -o ro /dev/md0 /mnt || exit 2
      want=0
      case $marka in file-*) want=${marka#file-} ;; end) want=$nfiles ;; esac
      good=0 i=1
      while [ "$i" -le "$want" ]; do
        yes "powercut raid1 file $i" | head -c 65536 | cmp -s - "/mnt/f$i" && good=$((good + 1))
        i=$((i + 1))
      done
      umount /mnt
      files=$good/$want
      if [ "$good" = "$want" ]; then verdict=ok; else verdict=lost; fi
    else
      fsck=errors
      sed -n '1,3p' /tmp/fsck | sed "s/^/$inst: e2fsck: /"
    fi
    mdadm --stop --quiet /dev/md0
  else
    sed "s/^/$inst: mdadm: /" /tmp/assemble
    mdadm --stop --quiet /dev/md0 2>/dev/null   # an inactive array holds the loops
  fi
  losetup -d "$la"; losetup -d "$lb"
  echo "$inst legs=$legs events=$ea/$eb array=$array fsck=$fsck files=$files $verdict"
  total=$((total + 1))
  case $verdict in ok) ok=$((ok + 1)) ;; lost) lost=$((lost + 1)) ;; *) corrupt=$((corrupt + 1)) ;; esac
done < /tmp/instants
echo "summary: $total instants, $differ with the legs differing, $degraded assembled degraded; $ok ok, $corrupt corrupt, $lost lost"
[ "$total" -gt 0 ] || exit 2
[ "$ok" = "$total" ]
