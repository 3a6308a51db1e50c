#!/bin/sh
# contrib/apps/git/workload.sh: commits in a loop, each acknowledged by a
# mark placed once git commit returned.
#
# Run by powercut run (in the mounted filesystem, with POWERCUT and its
# control socket in the environment); GIT_COMMITS (default 20) commits,
# with git's default settings or, with GIT_FSYNC set, core.fsync set to it
# (all: every file git writes is fsync'd).  With GIT_MARKS=no it places no
# mark, as a program that knows nothing of powercut, and prints each
# mark's name instead ("created", "commit-N"): its acknowledgements.
set -eu
n=${GIT_COMMITS:-20}
mark() { if [ "${GIT_MARKS:-yes}" = no ]; then echo "$1"; else "$POWERCUT" mark "$@"; fi; }

cd "$POWERCUT_MNT"
git init -q repo
cd repo
git config user.name powercut
git config user.email powercut@localhost
[ -z "${GIT_FSYNC:-}" ] || git config core.fsync "$GIT_FSYNC"
sync
mark created
i=1
while [ "$i" -le "$n" ]; do
  printf 'change %d\n' "$i" >>"file$((i % 4))"
  git add -A
  git commit -q -m "commit $i"
  mark "commit-$i"
  i=$((i + 1))
done
