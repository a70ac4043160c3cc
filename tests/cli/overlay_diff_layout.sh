#!/usr/bin/env bash
# `animfs overlay diff GAME MODDIR` of a PAYDAY 2 file that MODDIR holds in the x64 layout
# (a 32-bit file in GAME converted, one value changed) shows the value line and at most one line
# about the layout; `--layout` shows the lines the layout changes as well (issue 46).
set -eu
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$tmp/game/anims" "$tmp/mod/anims"
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$tmp/game/anims/walk.animation" || fail "encode"
grep -q '^  layout: 32-bit' "$src/examples/walk.animation.yaml" || fail "the example is not 32-bit"
# MODDIR's copy: converted to x64 as the mount's --overlay-layout pd2 writes it, then a
# position edited
"$ANIMFS" convert --to x64 -o "$tmp/x64" "$tmp/game/anims" >/dev/null || fail "convert"
"$ANIMFS" decode "$tmp/x64/walk.animation" > "$tmp/x64.yaml" || fail "decode x64"
grep -q '^        - \[0.5, 0.0, 60.0, 0.0\]' "$tmp/x64.yaml" || fail "no key [0.5, 0.0, 60.0, 0.0]"
sed -i 's/^        - \[0.5, 0.0, 60.0, 0.0\]/        - [0.5, 0.0, 61.0, 0.0]/' "$tmp/x64.yaml"
"$ANIMFS" encode "$tmp/x64.yaml" -o "$tmp/mod/anims/walk.animation" || fail "encode x64"
"$ANIMFS" overlay diff "$tmp/game" "$tmp/mod" > "$tmp/diff" || fail "overlay diff: exit $?"
cat "$tmp/diff"
changed=$(grep -E '^[-+]' "$tmp/diff" | grep -vE '^(---|\+\+\+) ' || true)
[ "$(echo "$changed" | grep -c .)" = 2 ] || fail "expected the value's two lines, got: $changed"
echo "$changed" | grep -q '^+ *- \[0.5, 0.0, 61.0, 0.0\]' || fail "the value line is not there: $changed"
[ "$(grep -c '^layout ' "$tmp/diff")" = 1 ] || fail "not one layout line"
grep -q '^layout   anims/walk.animation: x32 -> x64' "$tmp/diff" || fail "the layout line: $(grep '^layout' "$tmp/diff")"
"$ANIMFS" overlay diff --layout "$tmp/game" "$tmp/mod" > "$tmp/full" || fail "overlay diff --layout"
grep -q '^+  layout: 64-bit' "$tmp/full" || fail "--layout does not show the layout lines"
grep -q '^layout ' "$tmp/full" && fail "--layout printed the summary line"
echo "ok: overlay diff of an x64 copy-up: $(echo "$changed" | grep -c .) value lines, 1 layout line ($(grep -cE '^[-+][^-+]' "$tmp/full") lines with --layout)"
