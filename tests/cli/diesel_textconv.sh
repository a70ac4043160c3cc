#!/usr/bin/env bash
# `git diff` of a .animation through `animfs decode` as a textconv driver shows
# the edited key as a YAML line pair, not "Binary files differ".
set -u
command -v git >/dev/null || { echo "SKIP: git not installed"; exit 77; }
src=${ANIMFS_SOURCE_DIR:?}/examples/walk.animation.yaml
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
git init -q repo && cd repo || fail "git init"
git config user.email t@example.com && git config user.name test
git config diff.animfs.textconv "$ANIMFS decode"
echo '*.animation diff=animfs' > .gitattributes
"$ANIMFS" encode "$src" -o walk.animation 2>/dev/null || fail "encode example"
git add .gitattributes walk.animation && git commit -q -m one || fail "commit one"
"$ANIMFS" decode walk.animation > walk.yaml || fail "decode"
grep -q '^        - \[0.25, 0.0, 0.0, 97.5\]$' walk.yaml || fail "Hips key 1 not found"
sed -i 's/^        - \[0.25, 0.0, 0.0, 97.5\]$/        - [0.25, 0.0, 0.0, 99.0]/' walk.yaml
"$ANIMFS" encode walk.yaml -o walk.animation || fail "encode edit"
git commit -q -am two || fail "commit two"
out=$(git diff HEAD~1 -- walk.animation)
case "$out" in *"Binary files"*) fail "git shows a binary diff: $out";; esac
printf '%s\n' "$out" | grep -qx -- '-        - \[0.25, 0.0, 0.0, 97.5\]' || fail "no '-' line: $out"
printf '%s\n' "$out" | grep -qx -- '+        - \[0.25, 0.0, 0.0, 99.0\]' || fail "no '+' line: $out"
[ "$(printf '%s\n' "$out" | grep -c '^[-+] ')" = 2 ] || fail "more than one changed line: $out"
echo "ok: diesel textconv"
