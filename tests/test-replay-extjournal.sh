#!/usr/bin/env bash
# test-replay-extjournal.sh: ext4 with its journal on a second device, one
# power cut for both.  Two recorders (fs and jnl, one directory: a device
# set), each attached through nbdfuse and a loop device; mke2fs makes jnl
# an external journal and fs an ext4 that uses it; the kernel mounts it
# (default options) and a workload writes, renames, fsyncs and deletes.
# Then at every flush and FUA record of either device after mkfs,
# "powercut replay DIR --at NAME:N" builds both images of that instant;
# e2fsck recovers fs with the journal of that same instant, and must find
# it clean; powercut check of the set says the same (also in shards,
# merged), and --verify gets the tree recovered with that journal;
# replay --recovered refuses such a pair.  With the root inode
# zeroed in the filesystem's log, check fails exactly the instants where a
# rebuild with e2fsck -j finds errors.
source "$top_srcdir/tests/functions.sh"
requires_root
requires nbdfuse losetup mkfs.ext4 mke2fs e2fsck debugfs fusermount3 python3

set_dir=$tmp/set
mnt=$tmp/mnt
mkdir "$set_dir" "$mnt"
declare -A pid fuse_pid loopdev
stop_all () {
  local d i
  mountpoint -q "$mnt" && { timeout "$T" umount "$mnt" || umount -l "$mnt"; }
  for d in fs jnl; do
    [ -z "${loopdev[$d]}" ] || losetup -d "${loopdev[$d]}" 2>/dev/null || true
    for (( i = 0; i < 50; i++ )); do
      mountpoint -q "$tmp/fuse-$d" || break
      fusermount3 -u "$tmp/fuse-$d" 2>/dev/null && break
      sleep 0.1
    done
    [ -z "${fuse_pid[$d]}" ] || ! alive "${fuse_pid[$d]}" || kill "${fuse_pid[$d]}" 2>/dev/null || true
    [ -z "${pid[$d]}" ] || ! alive "${pid[$d]}" || kill -TERM "${pid[$d]}" 2>/dev/null || true
  done
  return 0
}
cleanup_fn stop_all

for d in fs jnl; do
  size=32M
  [ "$d" = jnl ] && size=8M
  run powercut record --log "$set_dir/$d.pclog" --socket "$tmp/$d.sock" \
      --control "$tmp/$d.ctl" --pidfile "$tmp/$d.pid" --size "$size"
  assert_eq "$rc" 0 "powercut record $d (stderr: $err)"
  pid[$d]=$(cat "$tmp/$d.pid")
  mkdir "$tmp/fuse-$d"
  timeout "$T" nbdfuse -P "$tmp/fuse-$d.pid" "$tmp/fuse-$d" --unix "$tmp/$d.sock" &
  fuse_pid[$d]=$!
  wait_until "$T" test -s "$tmp/fuse-$d.pid"
  loopdev[$d]=$(timeout "$T" losetup -f --show "$tmp/fuse-$d/nbd")
  assert_match "${loopdev[$d]}" '^/dev/loop[0-9]+$' "losetup $d"
done

run mke2fs -q -F -O journal_dev -b 4096 "${loopdev[jnl]}"
assert_eq "$rc" 0 "mke2fs journal_dev (stderr: $err)"
run mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0 -J device="${loopdev[jnl]}" "${loopdev[fs]}"
assert_eq "$rc" 0 "mkfs.ext4 -J device= (stderr: $err)"
timeout "$T" mount -o journal_path="${loopdev[jnl]}" "${loopdev[fs]}" "$mnt" ||
  fail "mount with the external journal"
for d in fs jnl; do
  run powercut mark --control "$tmp/$d.ctl" mkfs
  assert_eq "$rc" 0 "mark mkfs on $d (stderr: $err)"
done

# The workload: files written and fsynced, renamed over, deleted.
for i in $(seq 0 11); do
  head -c $(( (i + 1) * 3000 )) /dev/urandom >"$mnt/f$i.tmp"
  sync "$mnt/f$i.tmp"
  mv "$mnt/f$i.tmp" "$mnt/f$(( i % 4 ))"
  [ $(( i % 3 )) != 2 ] || rm -f "$mnt/f$(( (i + 1) % 4 ))"
  mkdir -p "$mnt/d$(( i % 2 ))/e$i"
done
sync
timeout "$T" umount "$mnt" || fail "umount"
for d in fs jnl; do
  losetup -d "${loopdev[$d]}"; loopdev[$d]=
done
stop_all
for d in fs jnl; do
  wait_until "$T" eval "! alive ${pid[$d]}"
done

# Every flush and FUA record after mkfs of either device: both images of
# that instant, recovered together and checked.
points=$(for d in fs jnl; do
  powercut log --dump "$set_dir/$d.pclog" |
    awk -v d="$d" '$4 == "mark" && $5 == "name=mkfs" { on = 1 }
                   on && ($4 == "flush" || / fua/) { print d ":" $1 }'
done)
n=0 recovered=0
for p in $points; do
  run powercut replay "$set_dir" --at "$p" -o "$tmp/out"
  assert_eq "$rc" 0 "replay --at $p (stderr: $err)"
  # recovery with that instant's journal, as a reboot would
  run e2fsck -y -E journal_only -j "$tmp/out/jnl.img" "$tmp/out/fs.img"
  [ "$rc" -le 1 ] || fail "$p: e2fsck -E journal_only: exit $rc ($out $err)"
  ! grep -q 'recovering journal' <<<"$out$err" || recovered=$((recovered + 1))
  run e2fsck -fn -j "$tmp/out/jnl.img" "$tmp/out/fs.img"
  assert_eq "$rc" 0 "$p: e2fsck -fn after recovery ($out $err)"
  n=$((n + 1))
done
# replay --recovered does not replay a journal kept on another device:
# refused, one line, no image
run powercut replay "$set_dir" --at "$p" -o "$tmp/rec" --recovered
assert_eq "$rc" 2 "--recovered of a filesystem with an external journal: exit status ($err)"
assert_eq "$(wc -l <<<"$err")" 1 "--recovered with an external journal: lines of stderr: $err"
assert_match "$err" "^powercut replay: --at $p: device (fs: its journal is on another device|jnl: it is the journal of a filesystem on another device)" \
  "--recovered with an external journal: message"
assert_eq "$(ls -A "$tmp/rec" | wc -l)" 0 "files a refused --recovered left"
# powercut check of the set judges the filesystem at each instant with the
# journal of that instant: clean everywhere, as above
run powercut check "$set_dir" --json "$tmp/set.json"
assert_eq "$rc" 0 "check of the set (out: $out; stderr: $err)"
assert_match "$out" 'its journal on jnl: judged with it' "the report names the pair"
python3 - "$tmp/set.json" <<'PY' || fail "the set's instants"
import json, sys
r = json.load(open(sys.argv[1]))
x = r["instants"]
assert len(x) >= 20 and all(i["verdict"] == "ok" and i["devices"]["fs"]["journal_on"] == "jnl"
                            for i in x), x[:2]
PY
# --verify: the checker gets the filesystem's tree recovered with the
# journal of the same instant (and no tree for the journal device); what
# it lists equals a rebuild by hand (replay, e2fsck -j, debugfs rdump).
mkdir "$tmp/lists"
cat >"$tmp/list.sh" <<SH
#!/bin/sh
[ -z "\${POWERCUT_ROOT_jnl:-}" ] || { echo "corrupt: a tree for the journal device"; exit 2; }
cd "\$POWERCUT_ROOT_fs" || exit 2
find . -type f | sort | xargs -r md5sum >"$tmp/lists/\$POWERCUT_INSTANT"
SH
chmod +x "$tmp/list.sh"
run powercut check "$set_dir" --verify "$tmp/list.sh" --json "$tmp/verify.json"
assert_eq "$rc" 0 "check --verify with an external journal (out: $out; stderr: $err)"
python3 - "$tmp/verify.json" <<'PY' || fail "--verify at every instant"
import json, sys
x = json.load(open(sys.argv[1]))["instants"]
assert len(x) >= 20 and all(i.get("app") == "ok" for i in x), [i for i in x if i.get("app") != "ok"][:2]
PY
nl=0
for f in "$tmp"/lists/*; do
  id=${f##*/}
  nl=$((nl + 1))
  [ $((nl % 4)) = 1 ] || continue       # a quarter of them, rebuilt by hand
  rm -rf "$tmp/o" "$tmp/t"
  powercut replay "$set_dir" --at "$id" -o "$tmp/o" >/dev/null || fail "replay $id"
  e2fsck -y -E journal_only -j "$tmp/o/jnl.img" "$tmp/o/fs.img" >/dev/null 2>&1
  mkdir "$tmp/t"
  debugfs -R "rdump / $tmp/t" "$tmp/o/fs.img" >/dev/null 2>&1 || fail "rdump $id"
  want=$(cd "$tmp/t" && find . -type f ! -path './lost+found/*' | sort | xargs -r md5sum)
  assert_eq "$(grep -v '^[^ ]*  ./lost+found/' "$f")" "$want" "$id: the checker's tree"
done
assert_ge "$nl" 20 "instants the checker listed"

# The filesystem's root inode zeroed in its log (every write of its
# block): where that reaches a state the journal does not mend, check
# fails the instant, and exactly there does a rebuild (replay, then
# e2fsck -j) find errors.
cp -r "$set_dir" "$tmp/bad"
run powercut replay "$set_dir/fs.pclog" --at end -o "$tmp/fs-end.img"
blk=$(debugfs -R 'imap <2>' "$tmp/fs-end.img" 2>/dev/null | sed -n 's/.*located at block \([0-9]*\),.*/\1/p')
assert_match "$blk" '^[0-9]+$' "the root inode's block"
while read -r seq o; do
  "$top_builddir/tests/log-edit" "$tmp/bad/fs.pclog" zero "$seq" "$o" 4096 || fail "log-edit"
done < <(writes_over "$tmp/bad/fs.pclog" "$blk")
run powercut check "$tmp/bad" --json "$tmp/bad.json"
assert_eq "$rc" 1 "check of the damaged set (stderr: $err)"
# in two shards, merged: the same instants, pairs judged by their owners
for i in 0 1; do
  run powercut check "$tmp/bad" --shard "$i/2" --json "$tmp/bad-$i.json" -q
  assert_match "$rc" '^[01]$' "shard $i of the damaged set ($err)"
done
run powercut merge -q --json "$tmp/bad-merged.json" "$tmp/bad-0.json" "$tmp/bad-1.json"
assert_eq "$rc" 1 "the merge of the damaged set's shards ($err)"
run python3 "$top_srcdir/tests/devset-same.py" "$tmp/bad.json" "$tmp/bad-merged.json"
assert_eq "$rc" 0 "merged = unsharded, with a journal on another device: $out"
nbad=0
while read -r id v; do
  rm -rf "$tmp/o"
  powercut replay "$tmp/bad" --at "$id" -o "$tmp/o" || fail "replay $id"
  e2fsck -y -E journal_only -j "$tmp/o/jnl.img" "$tmp/o/fs.img" >/dev/null 2>&1 || true
  st=0
  e2fsck -fn -j "$tmp/o/jnl.img" "$tmp/o/fs.img" >/dev/null 2>&1 || st=$?
  if [ "$v" = ok ]; then
    assert_eq "$st" 0 "$id: check says ok, e2fsck"
  else
    nbad=$((nbad + 1))
    [ "$st" != 0 ] || fail "$id: check says $v, e2fsck finds it clean"
  fi
done < <(python3 -c '
import json, sys
for i in json.load(open(sys.argv[1]))["instants"]:
    print(i["id"], i["verdict"])' "$tmp/bad.json")
assert_ge "$nbad" 1 "instants the damage reaches"

# the instants were checked, on both devices' flushes
echo "instants: $n, of which $recovered replayed transactions from the journal"
assert_ge "$n" 20 "instants checked"
# states where the journal of that instant held what the filesystem needed
assert_ge "$recovered" 5 "instants recovered from the external journal"
assert_match "$points" 'fs:' "instants at the fs device's flushes"
assert_match "$points" 'jnl:' "instants at the journal device's flushes"
