#!/bin/sh
# git-gc.sh: git gc in a synced repository of a few commits: loose
# objects packed and deleted, loose refs moved into packed-refs.
set -eu
cd "$POWERCUT_MNT"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=everyday GIT_AUTHOR_EMAIL=everyday@example.org
export GIT_COMMITTER_NAME=everyday GIT_COMMITTER_EMAIL=everyday@example.org
git init -q -b main repo
cd repo
for i in 1 2 3 4; do
  printf 'name = %s\nsize = %s\n' "$i" "$i" > app.conf
  git add app.conf
  git commit -q -m "$i"
done
git tag v1
sync
git gc -q
sleep "${EVERYDAY_IDLE:-7}"
