#!/usr/bin/env bash
# `cmake --install` puts the binary, the man page and the bash and zsh completions in
# place; the bash completion completes commands, options, formats and paths; the man page
# documents every command and option that --help and each command's help list.
# The help texts and the completions are asked of $PLAIN (tests/samples.inc: the
# unsanitized animfs of the same tree when scripts/test built one; the same texts, ~50
# processes without ASan's start): what is tested is the docs and the completions.
set -eu
. "${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}/tests/samples.inc"
ANIMFS=$PLAIN
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cmake --install "$ANIMFS_BUILD_DIR" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/animfs" || { echo "FAIL: bin/animfs not installed"; exit 1; }
man1="$tmp/prefix/share/man/man1/animfs.1"
test -f "$man1" || { echo "FAIL: man page not installed"; exit 1; }
fails=0; n=0
page=$(sed -e 's/\\-/-/g' -e 's/\\f[BIR]//g' "$man1")
# (the page searched by bash's own matching: a grep a word was most of this test's CPU)
mentions() { [[ $page == *"$1"* ]]; } # mentions WORD: the page has WORD (options, commands)
for word in $("$ANIMFS" --help | grep -oE '^  [a-z]+|(^|[ [])--?[a-z][a-z-]*' | tr -d ' [' | sort -u); do
  n=$((n+1))
  mentions "$word" || { echo "FAIL: man page does not mention '$word'"; fails=$((fails+1)); }
done
# each command's own help (the table of commands in src/cli/main.c): exit 0, its usage,
# and every option it lists is in the man page
for cmd in $("$ANIMFS" help --commands); do
  n=$((n+1))
  h=$("$ANIMFS" help "$cmd") && [[ $h == "usage: animfs $cmd"* ]] ||
    { echo "FAIL: animfs help $cmd"; fails=$((fails+1)); continue; }
  [[ $'\n'$page$'\n' == *$'\n'".B $cmd"[$' \n']* ]] || { echo "FAIL: man page has no entry for '$cmd'"; fails=$((fails+1)); }
  for word in $(grep -oE '(^|[ [,])--?[a-z][a-z-]*' <<<"$h" | tr -d ' [,' | sort -u); do
    n=$((n+1))
    mentions "$word" || { echo "FAIL: man page does not mention '$word' ($cmd)"; fails=$((fails+1)); }
  done
done
# the shell completions, where bash-completion and zsh look for them
bashc="$tmp/prefix/share/bash-completion/completions/animfs"
zshc="$tmp/prefix/share/zsh/site-functions/_animfs"
for f in "$bashc" "$zshc"; do
  n=$((n+1))
  test -f "$f" || { echo "FAIL: $f not installed"; fails=$((fails+1)); }
done
# bash: the function in a non-interactive shell, as readline would call it;
# complete WORD...: COMPREPLY for the last word, one a line
complete_words() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _animfs; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$bashc" "$@"
}
wants() { # wants WANTED WORD...: COMPREPLY holds WANTED
  n=$((n+1))
  local got; got=$(complete_words "$@")
  grep -qxF -- "$want" <<<"$got" || { echo "FAIL: completing '${*:2}' gave no '$want': $got"; fails=$((fails+1)); }
}
want=decode; wants "$ANIMFS" de
want=umount; wants "$ANIMFS" ""
want=--schema-ref; wants "$ANIMFS" decode --sch
want=--object; wants "$ANIMFS" plot x.animation --
want=--cache-mb=; wants "$ANIMFS" mount g v --cache
want=--help; wants "$ANIMFS" check -
want=x64; wants "$ANIMFS" convert --to ""
want=plot; wants "$ANIMFS" help pl
want=diff; wants "$ANIMFS" overlay d
want=ship; wants "$ANIMFS" overlay s
want=--force; wants "$ANIMFS" overlay ship --f
want=--overlay; wants "$ANIMFS" mount g v --ov
want=--overlay-layout; wants "$ANIMFS" encode x.yaml --overlay-l
want=pd2; wants "$ANIMFS" mount g v --overlay m --overlay-layout ""
# format names from `animfs formats`: every codec, with no list in the script
for fmt in $("$ANIMFS" formats | awk 'NR == 1 { next } NF == 0 { exit } { print $1 }'); do
  want=$fmt; wants "$ANIMFS" decode --format ""
  want=$fmt; wants "$ANIMFS" schema ""
done
mkdir "$tmp/dir" && touch "$tmp/dir/walk.animation"
want="$tmp/dir/walk.animation"; wants "$ANIMFS" decode "$tmp/dir/wa"
n=$((n+1))
[ -z "$(complete_words "$ANIMFS" decode --format nosuch)" ] || { echo "FAIL: an unknown format completes"; fails=$((fails+1)); }
if command -v zsh >/dev/null; then
  n=$((n+1))
  zsh -n "$zshc" || { echo "FAIL: zsh -n $zshc"; fails=$((fails+1)); }
else
  echo "skipped: zsh is not installed, so the zsh completion's syntax is not checked"
fi
echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
