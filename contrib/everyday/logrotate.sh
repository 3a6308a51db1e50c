#!/bin/sh
# logrotate.sh: logrotate -f rotates a synced log kept with 'rotate 2':
# each rotation renamed one up (app.log.2 to app.log.3, app.log.1 to
# app.log.2, app.log to app.log.1), a new empty app.log created, the
# oldest (app.log.3) deleted, its state file written to a temporary file,
# fsync'd and renamed over the old.  The state file and the configuration
# are in the filesystem too.
set -eu
cd "$POWERCUT_MNT"
mkdir log
printf 'line %s\n' 1 2 3 > log/app.log.2
printf 'line %s\n' 4 5 6 > log/app.log.1
printf 'line %s\n' 7 8 9 > log/app.log
cat > logrotate.conf <<CONF
$PWD/log/app.log {
    rotate 2
    create 0644 root root
}
CONF
sync
# a first run rotates nothing: it writes the state file
logrotate -s logrotate.state logrotate.conf
sync
logrotate -s logrotate.state -f logrotate.conf
sleep "${EVERYDAY_IDLE:-7}"
