#!/bin/sh
# contrib/apps/git/check.sh: powercut check --verify for the git workload.
# Does git fsck pass, does every ref name a readable commit, and does HEAD
# hold every commit acknowledged before the crash point (the commit-N
# marks in POWERCUT_MARKS, or the lines the workload printed, in
# POWERCUT_ACKS_FILE, where it places no marks)?  Exit 0 and "consistent: ..." if so; 1 and
# "lost: ..." if acknowledged commits are gone; 2 and "corrupt: ..." if
# the repository is damaged.  It works on a copy (git may write).
set -u
acked=0 created=no
acks=
[ -r "${POWERCUT_ACKS_FILE:-}" ] && acks=$(cat "$POWERCUT_ACKS_FILE")
for m in $POWERCUT_MARKS $acks; do
  case $m in
  commit-*) acked=${m#commit-} ;;
  created) created=yes ;;
  esac
done
if [ ! -d repo/.git ]; then
  [ "$created" = no ] && { echo "consistent: no repository yet"; exit 0; }
  echo "lost: the repository is gone ($acked commits acknowledged)"
  exit 1
fi
work=$(mktemp -d) || exit 125
trap 'rm -rf "$work"' EXIT
cp -R repo "$work/" && chmod -R u+w "$work" || exit 125
cd "$work/repo" || exit 125
export GIT_CONFIG_NOSYSTEM=1 HOME="$work"
git config --global --add safe.directory '*'
out=$(git fsck --full --no-progress 2>&1)
st=$?
bad=$(printf '%s\n' "$out" | grep -v -e '^dangling ' -e '^notice: ' -e '^$')
if [ "$st" != 0 ] || [ -n "$bad" ]; then
  echo "corrupt: git fsck (exit $st): $(printf '%s' "$bad" | head -n 3 | tr '\n' ' ')"
  exit 2
fi
for ref in $(git for-each-ref --format='%(refname)'); do
  git rev-parse -q --verify "$ref^{commit}" >/dev/null 2>&1 || {
    echo "corrupt: $ref names no readable commit"; exit 2; }
done
if ! git rev-parse -q --verify HEAD >/dev/null 2>&1; then
  # an unborn branch: no commit reached it
  head=0
elif ! head=$(git rev-list --count HEAD 2>&1); then
  echo "corrupt: HEAD's history is unreadable: $(printf '%s' "$head" | head -n 1)"
  exit 2
fi
if [ "$head" -lt "$acked" ]; then
  echo "lost: $((acked - head)) of $acked acknowledged commits (HEAD has $head)"
  exit 1
fi
echo "consistent: $head commits, $acked acknowledged"
