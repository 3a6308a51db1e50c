#!/usr/bin/env bash
# test-vm-cache.sh: the guest's cached initramfs lives in a folder of the
# caller's own.  A cache folder owned by another user, open to others, or
# reached through a symbolic link, and a symbolic link in it where a cached
# file belongs, are refused with a one-line error before anything is
# written or booted: a local user cannot make root write through a link
# nor boot an initramfs of theirs.
source "$top_srcdir/tests/functions.sh"
requires_root
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || { echo "$0: test skipped: no kernel in /boot"; exit 77; }
ver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$ver" ] || { echo "$0: test skipped: no modules for $kernel"; exit 77; }

ln -s "$kernel" "$tmp/vmlinuz-cachetest"
printf '#!/bin/sh\necho booted\n' >"$tmp/s.sh"
self=$(readlink -f "$POWERCUT")
name=$(printf 'initramfs-cachetest-%x-%x.cpio' "$(stat -c %s "$self")" "$(stat -c %Y "$self")")
vm () { run env -u XDG_CACHE_HOME HOME="$tmp/home" "$POWERCUT" vm --timeout 30 \
          --kernel "$tmp/vmlinuz-cachetest" --modules "/lib/modules/$ver" "$tmp/s.sh"; }
echo "keep me" >"$tmp/victim"
chmod 600 "$tmp/victim"
victim_unchanged () { assert_eq "$(cat "$tmp/victim")" "keep me" "the linked-to file unchanged ($1)"; }
one_line () { assert_eq "$(printf '%s\n' "$err" | grep -c .)" 1 "one line of error ($1): $err"; }

# A cache folder another user made.
mkdir -p "$tmp/home/.cache/powercut"
chown -R nobody "$tmp/home"
chmod 700 "$tmp/home/.cache/powercut"
vm
assert_ne "$rc" 0 "a cache folder of another user"
assert_match "$err" "home/.cache/powercut: the cache folder is owned by another user; refusing it" "names it"
one_line "another user's"
assert_eq "$(ls -A "$tmp/home/.cache/powercut")" "" "nothing written into it"
assert_no_match "$out" "booted" "nothing booted"

# Root's own but open to others: another user may have put files in it.
chown -R root "$tmp/home"
chmod 755 "$tmp/home/.cache/powercut"
vm
assert_ne "$rc" 0 "a cache folder open to others"
assert_match "$err" "open to group or others \(it must be mode 0700\); refusing it" "says why"
one_line "open to others"
assert_eq "$(ls -A "$tmp/home/.cache/powercut")" "" "nothing written into it"

# The cache folder itself a link to a folder of root's.
rmdir "$tmp/home/.cache/powercut"
mkdir -m 700 "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/home/.cache/powercut"
vm
assert_ne "$rc" 0 "a cache folder that is a symbolic link"
assert_match "$err" "not a directory of its own \(a symbolic link\?\); refusing it" "says why"
one_line "a linked folder"
assert_eq "$(ls -A "$tmp/elsewhere")" "" "nothing written where it points"
rm "$tmp/home/.cache/powercut"

# A private folder with links where the cached files belong.
mkdir -m 700 "$tmp/home/.cache/powercut"
for f in "$name" "$name.modules"; do
  ln -s "$tmp/victim" "$tmp/home/.cache/powercut/$f"
  vm
  assert_ne "$rc" 0 "a link as $f"
  assert_match "$err" "/$f: a symbolic link in the cache folder; refusing it" "names the link"
  one_line "link as $f"
  victim_unchanged "$f"
  assert_eq "$(ls -A "$tmp/home/.cache/powercut")" "$f" "nothing else written"
  rm "$tmp/home/.cache/powercut/$f"
done

# A cached file someone else could have written, or of another owner.
echo "not an initramfs" >"$tmp/home/.cache/powercut/$name"
echo "e1000" >"$tmp/home/.cache/powercut/$name.modules"
chmod 666 "$tmp/home/.cache/powercut/$name"
vm
assert_ne "$rc" 0 "a cached file writable by others"
assert_match "$err" "/$name: writable by group or others; refusing it" "says why"
chmod 600 "$tmp/home/.cache/powercut/$name"
chown nobody "$tmp/home/.cache/powercut/$name.modules"
vm
assert_ne "$rc" 0 "a cached file of another owner"
assert_match "$err" "/$name.modules: owned by another user; refusing it" "says why"
assert_eq "$(cat "$tmp/home/.cache/powercut/$name")" "not an initramfs" "left as it was"
