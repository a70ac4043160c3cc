#!/usr/bin/env bash
# `animfs check -j N` (issue 28): the files are checked N at a time, yet the output is
# the same for every N, byte for byte (each file's lines in the order of the walk, the
# counts summed), and so is the exit status. On files made here from the examples, some
# of them damaged (so that FAIL lines come from files checked at the same time), and on
# the samples when they are there. Bad counts are usage errors. The encodes of all
# threads share one memory bound (--cache-mb + 64 MiB).
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
run() { # run LABEL ARGS...: output in $tmp/LABEL, exit status in $tmp/LABEL.rc, max RSS (KiB) in $tmp/LABEL.kb
  local label=$1; shift
  /usr/bin/time -f %M -o "$tmp/$label.kb" "$ANIMFS" check "$@" >"$tmp/$label" 2>"$tmp/$label.err"
  echo $? >"$tmp/$label.rc"
}
# under_bound LABEL MB: its max RSS within --cache-mb=MB + 64 MiB (an unsanitized animfs only)
under_bound() {
  local mib=$(( $(tail -1 "$tmp/$1.kb") / 1024 ))
  [ "$ANIMFS" != "$A" ] || return 0
  if [ "$mib" -le $(($2 + 64)) ]; then echo "$1: max RSS $mib MiB (bound $(($2 + 64)) MiB)"
  else bad "$1: max RSS $mib MiB, over --cache-mb=$2 + 64 MiB"; fi
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
  cmp -s "$tmp/s1" "$tmp/s3" || bad "the samples: -j3 differs from -j1: $(diff "$tmp/s1" "$tmp/s3" | head -5)"
  # the threads' checks share one bound (--cache-mb + 64 MiB): two motion banks, each
  # of whose encodes takes about 120 MB, pass under --cache-mb=72 (136 MiB) one after
  # the other, and under --cache-mb=40 neither fits: refused, each by name and line; the
  # process stays within the bound (140-171 MiB under 72 when the decodes were not
  # counted and each thread's heap kept what its file freed)
  bank=$S/shenmue/dashgl_motion.bin
  if [ -f "$bank" ]; then
    mkdir -p "$tmp/banks"
    cp "$bank" "$tmp/banks/a.bin"; cp "$bank" "$tmp/banks/b.bin"
    run b72 -j2 --cache-mb=72 "$tmp/banks"
    [ "$(cat "$tmp/b72.rc")" = 0 ] && grep -q "2 of 2 decoded files identical" "$tmp/b72" ||
      bad "two banks under --cache-mb=72: exit $(cat "$tmp/b72.rc"): $(head -5 "$tmp/b72")"
    under_bound b72 72
    run b40 -j2 --cache-mb=40 "$tmp/banks"
    [ "$(cat "$tmp/b40.rc")" = 1 ] || bad "two banks under --cache-mb=40: exit $(cat "$tmp/b40.rc")"
    for f in a b; do
      grep -q "$f.bin.*the document needs more than [0-9]* MiB to encode: raise --cache-mb" "$tmp/b40" ||
        bad "--cache-mb=40: no refusal for $f.bin: $(head -5 "$tmp/b40")"
    done
    under_bound b40 40
    echo "two banks: checked one at a time under --cache-mb=72, refused under 40"
  fi
  ANIMFS=$A
else
  echo "the samples are missing: checked on the examples only"
fi
for j in 0 -1 x 1025 ""; do
  "$ANIMFS" check -j "$j" "$tmp/set" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 2 ] && grep -q -- "-j wants a number" "$tmp/err" || bad "-j '$j': exit $rc: $(cat "$tmp/err")"
done
"$ANIMFS" check -j 2 >/dev/null 2>&1; [ $? = 2 ] || bad "-j 2 with no PATH is no usage error"
for m in 0 x -5 ""; do
  "$ANIMFS" check --cache-mb="$m" "$tmp/set" >/dev/null 2>"$tmp/err"; rc=$?
  [ $rc = 2 ] && grep -q -- "--cache-mb wants a number of MiB" "$tmp/err" || bad "--cache-mb='$m': exit $rc: $(cat "$tmp/err")"
done
[ $fails = 0 ] && echo "check_jobs: ok"
exit $((fails > 0))
