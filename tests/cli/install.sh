#!/usr/bin/env bash
# `cmake --install` puts the binary and the man page in place, and the man page
# documents every command and option that --help and each command's help list.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$ANIMFS_BUILD_DIR" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/animfs" || { echo "FAIL: bin/animfs not installed"; exit 1; }
man1="$tmp/prefix/share/man/man1/animfs.1"
test -f "$man1" || { echo "FAIL: man page not installed"; exit 1; }
fails=0; n=0
page=$(sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g' "$man1")
for word in $("$ANIMFS" --help | grep -oE '^  [a-z]+|(^|[ [])--?[a-z][a-z-]*' | tr -d ' [' | sort -u); do
  n=$((n+1))
  grep -qe "$word" <<<"$page" || { echo "FAIL: man page does not mention '$word'"; fails=$((fails+1)); }
done
# each command's own help (the table of commands in src/cli/main.c): exit 0, its usage,
# and every option it lists is in the man page
for cmd in $("$ANIMFS" help --commands); do
  n=$((n+1))
  h=$("$ANIMFS" help "$cmd") && [[ $h == "usage: animfs $cmd"* ]] ||
    { echo "FAIL: animfs help $cmd"; fails=$((fails+1)); continue; }
  grep -qE "^\.B $cmd( |\$)" <<<"$page" || { echo "FAIL: man page has no entry for '$cmd'"; fails=$((fails+1)); }
  for word in $(grep -oE '(^|[ [,])--?[a-z][a-z-]*' <<<"$h" | tr -d ' [,' | sort -u); do
    n=$((n+1))
    grep -qe "$word" <<<"$page" || { echo "FAIL: man page does not mention '$word' ($cmd)"; fails=$((fails+1)); }
  done
done
echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
