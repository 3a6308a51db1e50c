#!/usr/bin/env bash
# test-golden.sh: check's reports on recorded logs kept in tests/golden/
# (ext4 through a real mount, replace-rename without and with fsync under
# noauto_da_alloc) are exactly the expected ones, for several models.
# To accept a deliberate change: POWERCUT_GOLDEN_UPDATE=1 make check TESTS=tests/test-golden.sh
source "$top_srcdir/tests/functions.sh"
requires e2fsck e2undo

# the report without what changes from run to run: time, where the log is,
# and how the states shared e2fsck's work between the two jobs
filter () { sed -e 's/ checked in [0-9.]* s$/ checked in S s/' -e '/^e2fsck -fn run on /d' \
                -e "s|$1|LOG|g"; }

for dir in "$top_srcdir"/tests/golden/*/; do
  name=$(basename "$dir")
  cp "$dir/recording.pclog" "$tmp/$name.log"
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
