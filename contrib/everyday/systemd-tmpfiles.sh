#!/bin/sh
# systemd-tmpfiles.sh: systemd-tmpfiles --create with a configuration in
# the filesystem (its paths absolute, under the mount point): a folder
# made, a synced file rewritten in place ('f+': truncated and written),
# a file created with its content ('f'), a symbolic link made ('L').
set -eu
cd "$POWERCUT_MNT"
mkdir -p run/app
printf 'name = one\n' > run/app/app.conf
cat > tmpfiles.conf <<CONF
d $PWD/run/app 0755 root root -
f+ $PWD/run/app/app.conf 0644 root root - name = two
f $PWD/run/app/state 0644 root root - ready
L $PWD/run/app/current - - - - app.conf
CONF
sync
systemd-tmpfiles --create "$PWD/tmpfiles.conf"
sleep "${EVERYDAY_IDLE:-7}"
