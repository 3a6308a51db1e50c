#!/bin/sh
# bug:      a symlink made and renamed in a directory already logged in
#           the transaction was logged by the rename without its content
#           (an inline extent), and the directory's next fsync took it as
#           logged: a crash after that fsync returned found the new name
#           an empty symlink
# fixed by: d0e64a981fd8 "btrfs: always log symlinks in full mode"
#           (Filipe Manana, 2022; Linux 5.18)
# xfstests: generic/690
# run:      --config btrfs
set -e
cd "$POWERCUT_MNT"
mkdir d
sync
# a file in d, and d's fsync: d is logged in this transaction
: >d/foo
sync d
# a symlink made in d, then renamed: the rename logs it
ln -s foo d/bar
mv d/bar d/baz
# d's fsync: baz and its target "foo" are promised
sync d
