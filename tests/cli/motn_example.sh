#!/usr/bin/env bash
# shenmue-motn: the hand-written example encodes, is claimed by content, and round-trips;
# an invalid edit fails with line:col and a path, and writes nothing.
set -euo pipefail
src=${ANIMFS_SOURCE_DIR:?}/examples/MOTION.BIN.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$ANIMFS" encode "$src" -o "$tmp/MOTION.BIN"
"$ANIMFS" check "$tmp/MOTION.BIN" | grep -q '^1 of 1 decoded files identical' || fail "check"
cp "$tmp/MOTION.BIN" "$tmp/anything.dat"
"$ANIMFS" check "$tmp/anything.dat" | grep -q '^shenmue-motn ' || fail "not claimed by content"
"$ANIMFS" decode "$tmp/MOTION.BIN" > "$tmp/back.yaml"
grep -q '^    names: \[DEMO_LOOK, DEMO_LOOK_ALIAS\]   # shared by 2 names' "$tmp/back.yaml" || fail "aliasing"
grep -q '^          - \[3, 2, 0.25, 0.5\]$' "$tmp/back.yaml" || fail "key"
sed 's/\[3, 2, 0.25, 0.5\]/[3, 2, 0.25]/' "$tmp/back.yaml" > "$tmp/bad.yaml"
if "$ANIMFS" encode "$tmp/bad.yaml" -o "$tmp/out.bin" 2> "$tmp/err"; then fail "bad key accepted"; fi
cat "$tmp/err"
line=$(grep -n '\[3, 2, 0.25\]' "$tmp/bad.yaml" | cut -d: -f1)
grep -q "bad.yaml:$line:[0-9]*: blocks\[1\] (DEMO_LOOK) bone 23 tx key 1: key type 2 takes 2 value(s)" "$tmp/err" \
  || fail "error message"
[ ! -e "$tmp/out.bin" ] || fail "partial output written"
echo "ok"
