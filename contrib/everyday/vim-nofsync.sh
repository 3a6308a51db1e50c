#!/bin/sh
# vim-nofsync.sh: vim as in vim.sh, with 'set nofsync': the file is
# rewritten in place and never synced.
set -eu
cd "$POWERCUT_MNT"
mkdir etc
printf 'name = one\nsize = 1\n' > etc/app.conf
sync
vim -Nu NONE -i NONE -es -c 'set nofsync' -c '%s/one/two/' \
  -c '%s/size = 1/size = 2/' -c wq etc/app.conf
sleep "${EVERYDAY_IDLE:-7}"
