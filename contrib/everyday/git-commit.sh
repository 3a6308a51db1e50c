#!/bin/sh
# git-commit.sh: git commit -a in a repository created, edited and synced
# first, with git's default core.fsync: the new objects written loose,
# the index, the branch and the logs rewritten (lock file and rename),
# none of them synced.
set -eu
cd "$POWERCUT_MNT"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=everyday GIT_AUTHOR_EMAIL=everyday@example.org
export GIT_COMMITTER_NAME=everyday GIT_COMMITTER_EMAIL=everyday@example.org
git init -q -b main repo
cd repo
printf 'name = one\nsize = 1\n' > app.conf
git add app.conf
git commit -q -m one
printf 'name = two\nsize = 2\n' > app.conf
sync
git commit -q -a -m two
sleep "${EVERYDAY_IDLE:-7}"
