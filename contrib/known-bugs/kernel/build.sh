#!/usr/bin/env bash
# build.sh: a guest kernel from Debian's linux-source-6.1, with one known
# bug put back (or none), for `powercut run --attach vm`.  The source is
# unpacked once into WORK/linux; a patch is applied to that one tree and
# reverted when the next build asks for another, so that make (and
# ccache, when installed) rebuilds only the files a patch touches.
#
# usage: build.sh WORK [NAME]     NAME: a NAME.patch of this folder, a
#                                 fix, fixes/NAME (fixes/NAME.patch), or
#                                 "none" (the default) for the kernel as
#                                 Debian ships its source
# Leaves WORK/NAME/vmlinuz and its modules folder (WORK/fixes-NAME for a
# fix), and prints the options that boot it:
# --kernel WORK/NAME/vmlinuz --modules WORK/NAME/lib/modules/V
# Needs: linux-source-6.1, build-essential, bc, bison, flex, libelf-dev
# (ccache makes the builds after the first a matter of minutes).
set -euo pipefail
usage () { echo "usage: $0 WORK [NAME|none]" >&2; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
work=$(mkdir -p "$1" && cd "$1" && pwd)
name=${2:-none}
name=${name%.patch}; name=${name#"$here"/}
case $name in fixes/*) ;; *) name=${name##*/} ;; esac
dir=${name//\//-}
src=${LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
tree=$work/linux
if [ "$name" != none ] && [ ! -f "$here/$name.patch" ]; then
  echo "$0: no patch $here/$name.patch" >&2; exit 2
fi

if [ ! -f "$tree/Makefile" ]; then
  [ -f "$src" ] || { echo "$0: $src: not found (apt-get install linux-source-6.1)" >&2; exit 2; }
  echo "unpacking $src"
  rm -rf "$tree.tmp" && mkdir -p "$tree.tmp"
  tar -xJf "$src" -C "$tree.tmp" --strip-components=1
  mv "$tree.tmp" "$tree"
fi

# The tree holds at most one patch, named in .powercut-patch.
applied=$(cat "$tree/.powercut-patch" 2>/dev/null || echo none)
if [ "$applied" != "$name" ]; then
  if [ "$applied" != none ]; then
    echo "reverting $applied"
    patch -d "$tree" -p1 -R -s <"$here/$applied.patch"
    echo none >"$tree/.powercut-patch"
  fi
  if [ "$name" != none ]; then
    echo "applying $name"
    patch -d "$tree" -p1 -s --no-backup-if-mismatch <"$here/$name.patch"
    echo "$name" >"$tree/.powercut-patch"
  fi
fi

# The configuration: tinyconfig and this folder's options, checked
# (an option whose dependencies are missing would be dropped silently).
if [ ! -f "$tree/.config" ] || [ "$here/config" -nt "$tree/.config" ]; then
  make -C "$tree" -s tinyconfig
  grep '^CONFIG_' "$here/config" | while IFS== read -r opt val; do
    case $val in y) echo "--enable ${opt#CONFIG_}" ;; *) echo "--set-val ${opt#CONFIG_} $val" ;; esac
  done | xargs "$tree/scripts/config" --file "$tree/.config"
  make -C "$tree" -s olddefconfig
  missing=$(grep '^CONFIG_' "$here/config" | while read -r l; do
    grep -qx "$l" "$tree/.config" || echo "${l%%=*}"; done)
  if [ -n "$missing" ]; then
    echo "$0: not set after olddefconfig: $missing" >&2; rm -f "$tree/.config"; exit 1
  fi
fi

cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
start=$(date +%s)
make -C "$tree" -s -j"$(nproc)" CC="$cc" bzImage modules
rm -rf "${work:?}/$dir"
mkdir -p "$work/$dir"
make -C "$tree" -s INSTALL_MOD_PATH="$work/$dir" modules_install
cp "$tree/arch/x86/boot/bzImage" "$work/$dir/vmlinuz"
version=$(make -C "$tree" -s kernelrelease)
echo "built $name in $(( $(date +%s) - start )) s: Linux $version"
echo "--kernel $work/$dir/vmlinuz --modules $work/$dir/lib/modules/$version"
