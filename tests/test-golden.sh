#!/usr/bin/env bash
# test-golden.sh: check's reports on recorded logs kept in tests/golden/
# (ext4 through a real mount, replace-rename without and with fsync under
# noauto_da_alloc) are exactly the expected ones, for several models.
# A folder with a file named "recipe" holds no log of its own: its log is
# another folder's, edited by tests/log-edit with each line of the recipe
# (the first line names that folder; lines starting with # are comments),
# e.g. a file's data made zeros.
# To accept a deliberate change: POWERCUT_GOLDEN_UPDATE=1 make check TESTS=tests/test-golden.sh
source "$top_srcdir/tests/functions.sh"
requires e2fsck e2undo

# the report without what changes from run to run: time, where the log is,
# and how the states shared e2fsck's work between the two jobs
filter () { sed -e 's/ checked in [0-9.]* s$/ checked in S s/' -e '/^e2fsck -fn run on /d' \
                -e "s|$1|LOG|g"; }

for dir in "$top_srcdir"/tests/golden/*/; do
  name=$(basename "$dir")
  if [ -f "$dir/recipe" ]; then
    { read -r from; cp "$top_srcdir/tests/golden/$from/recording.pclog" "$tmp/$name.log"
      while read -r edit; do
        case $edit in '#'*) continue ;; esac
        # shellcheck disable=SC2086 # the edit's words are log-edit's arguments
        "$top_builddir/tests/log-edit" "$tmp/$name.log" $edit || fail "$name: log-edit $edit"
      done; } <"$dir/recipe"
  else
    cp "$dir/recording.pclog" "$tmp/$name.log"
  fi
  for model in flush write reorder:2 torn:2; do
    expect=$dir/expect-${model/:/-}.txt
    run powercut check "$tmp/$name.log" -m "$model" --jobs 2
    got=$(filter "$tmp/$name.log" <<<"$out")
    if [ -n "${POWERCUT_GOLDEN_UPDATE:-}" ]; then
      printf '%s\n' "$got" >"$expect"
      continue
    fi
    # the report of $name under $model is the expected one
    [ -f "$expect" ] || fail "$expect is missing"
    diff -u "$expect" <(printf '%s\n' "$got") >&2 || fail "$name, model $model: the report differs"
    # and so is the exit status: 1 with failures listed, else 0
    if grep -q '^no problem found' <<<"$got"; then assert_eq "$rc" 0 "$name $model exit"
    else assert_eq "$rc" 1 "$name $model exit"; fi
  done
done
