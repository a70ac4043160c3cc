#!/usr/bin/env bash
# Issue 19, part 1: the real yaml-language-server (npm), driven over LSP stdio as an editor
# drives it, finds the schema through a decoded view's modeline alone (no editor settings),
# reports a mistake at its line:col with the schema's words, and completes a key.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
if ! command -v npm >/dev/null 2>&1; then
	echo "SKIP: npm is missing, so yaml-language-server cannot be installed (scripts/setup installs it with npm)"
	exit 77
fi
lsp="$src/.tools/node/node_modules/.bin/yaml-language-server"
[ -x "$lsp" ] || { echo "FAIL: $lsp is missing: run scripts/setup"; exit 1; }
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$tmp/walk.animation" >/dev/null 2>&1
"$ANIMFS" decode "$tmp/walk.animation" > "$tmp/view.yaml" || fail "decode"
# a mistake (a letter for a number), and an empty line inside `binary:` to complete a key on
awk '/^        - \[0.5, 0.0, 60.0, 0.0\]$/ && !done { sub(/60.0/, "abc"); done = 1 }
     { print } /^  decoded_as:/ { print "  " }' "$tmp/view.yaml" > "$tmp/walk.animation.yaml"
bad=$(grep -n 'abc' "$tmp/walk.animation.yaml" | cut -d: -f1)
col=$(grep 'abc' "$tmp/walk.animation.yaml" | awk '{ print index($0, "abc") }')
blank=$(grep -n '^  $' "$tmp/walk.animation.yaml" | cut -d: -f1)
out=$(timeout 120 "$PY" "$src/tests/tools/lsp_check.py" "$lsp" "$tmp/walk.animation.yaml" "$blank" 3)
echo "$out"
echo "$out" | grep -qx "diagnostic $bad:$col: Incorrect type. Expected \"number\"." && n=$((n + 1)) ||
	fail "no 'Incorrect type. Expected \"number\".' diagnostic at $bad:$col"
echo "$out" | grep -qx 'completion zlib_header' && n=$((n + 1)) ||
	fail "no completion of the binary key zlib_header on line $blank"
echo "$out" | grep -qx 'completion layout' && fail "completion offers a key the map already has" || n=$((n + 1))
# the mount's form: a path relative to the view, up to VIEW/.animfs/schema
mkdir -p "$tmp/view/anims" "$tmp/view/.animfs"
"$ANIMFS" schema --all "$tmp/view/.animfs/schema" || fail "schema --all"
"$ANIMFS" decode --schema-ref ../.animfs/schema "$tmp/walk.animation" |
	awk '/^        - \[0.5, 0.0, 60.0, 0.0\]$/ && !done { sub(/60.0/, "abc"); done = 1 } { print }' \
	> "$tmp/view/anims/walk.animation.yaml"
out=$(timeout 120 "$PY" "$src/tests/tools/lsp_check.py" "$lsp" "$tmp/view/anims/walk.animation.yaml" 1 1)
echo "$out" | grep -q '^diagnostic [0-9]*:[0-9]*: Incorrect type. Expected "number".$' && n=$((n + 1)) ||
	fail "a relative modeline: no diagnostic ($out)"
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
