#!/bin/sh
# vim.sh: vim with its default settings (a swap file, fsync on) edits a
# synced file and writes it: the swap file is written, fsync'd and
# deleted at exit; the file is rewritten in place and fsync'd.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
vim -Nu NONE -i NONE -es -c '%s/one/two/' -c '%s/size = 1/size = 2/' \
  -c wq etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
