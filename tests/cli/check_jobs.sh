#!/usr/bin/env bash
# `animfs check -j N` (issue 28): the files are checked N at a time, yet the output is
# the same for every N, byte for byte (each file's lines in the order of the walk, the
# counts summed), and so is the exit status. On files made here from the examples, some
# of them damaged (so that FAIL lines come from files checked at the same time), and on
# the samples when they are there. Bad counts are usage errors.
set -u
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/set"
n=0
for y in "$src"/examples/*.yaml; do
  b=$(basename "$y" .yaml)
  "$ANIMFS" encode "$y" -o "$tmp/$b" 2>/dev/null || continue
  for k in $(seq 8); do
    mkdir -p "$tmp/set/d$k"
    cp "$tmp/$b" "$tmp/set/d$k/$b"
    # every third copy cut short: a file the codec claims that does not decode
    [ $((k % 3)) = 0 ] && head -c $(( $(stat -c %s "$tmp/$b") / 2 )) "$tmp/$b" >"$tmp/set/d$k/$b"
    n=$((n + 1))
  done
done
[ "$n" -ge 24 ] || bad "only $n files made from the examples"
run() { # run LABEL ARGS...: output in $tmp/LABEL, exit status in $tmp/LABEL.rc
  local label=$1; shift
  "$ANIMFS" check "$@" >"$tmp/$label" 2>"$tmp/$label.err"; echo $? >"$tmp/$label.rc"
}
run one -j1 "$tmp/set"
grep -q '^FAIL ' "$tmp/one" || bad "no FAIL line from the damaged files: $(cat "$tmp/one")"
[ "$(cat "$tmp/one.rc")" = 1 ] || bad "-j1: exit $(cat "$tmp/one.rc"), not 1"
for args in "-j2" "-j 5" "--jobs=16" "--jobs 3" ""; do
  run many $args "$tmp/set"
  cmp -s "$tmp/one" "$tmp/many" || bad "check $args differs from -j1: $(diff "$tmp/one" "$tmp/many" | head -5)"
  [ "$(cat "$tmp/many.rc")" = "$(cat "$tmp/one.rc")" ] || bad "check $args: another exit status"
done
run cov1 --coverage -j1 "$tmp/set"; run cov4 -j4 --coverage "$tmp/set"
cmp -s "$tmp/cov1" "$tmp/cov4" || bad "--coverage -j4 differs from -j1"
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
if [ -d "$S" ]; then
  # the samples by the unsanitized animfs when scripts/test built one from the same tree:
  # the order of the output is what is tested here, and the *_samples tests check every
  # sample under ASan already
  . "$src/tests/samples.inc"
  A=$ANIMFS ANIMFS=$PLAIN
  echo "the samples checked by $ANIMFS"
  run s1 -j1 "$S"; run s3 -j3 "$S"
  ANIMFS=$A
  cmp -s "$tmp/s1" "$tmp/s3" || bad "the samples: -j3 differs from -j1: $(diff "$tmp/s1" "$tmp/s3" | head -5)"
else
  echo "the samples are missing: checked on the examples only"
fi
for j in 0 -1 x 1025 ""; do
  "$ANIMFS" check -j "$j" "$tmp/set" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 2 ] && grep -q -- "-j wants a number" "$tmp/err" || bad "-j '$j': exit $rc: $(cat "$tmp/err")"
done
"$ANIMFS" check -j 2 >/dev/null 2>&1; [ $? = 2 ] || bad "-j 2 with no PATH is no usage error"
[ $fails = 0 ] && echo "check_jobs: ok"
exit $((fails > 0))
