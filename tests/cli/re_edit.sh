#!/usr/bin/env bash
# re-model from the command line: the hand-authored example encodes and checks; an edit
# with an error is refused with file:line:col and the YAML path, and leaves no output.
set -u
src="${ANIMFS_SOURCE_DIR:?}"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ex="$src/examples/re3_tiny.PLD.yaml"
"$ANIMFS" encode "$ex" -o "$tmp/re3_tiny.PLD" || fail "example does not encode"
"$ANIMFS" check "$tmp/re3_tiny.PLD" | grep -q "1 of 1 claimed files identical" \
	|| fail "example binary does not round-trip"
"$ANIMFS" decode "$tmp/re3_tiny.PLD" >"$tmp/back.yaml" || fail "decode example"
grep -q "relpos: \[0, -300, 0\]" "$tmp/back.yaml" || fail "skeleton not shown"

# relative pose outside the 256-pose window
sed 's/- \[1, 0x02\]/- [300, 0x02]/' "$ex" >"$tmp/bad.yaml"
line=$(grep -n '\[300, 0x02\]' "$tmp/bad.yaml" | cut -d: -f1)
err=$("$ANIMFS" encode "$tmp/bad.yaml" -o "$tmp/bad.PLD" 2>&1) && fail "bad pose accepted"
echo "$err"
echo "$err" | grep -q "bad.yaml:$line:[0-9]*: banks\[0\].sequences\[0\].frames\[1\]: relative pose 300" \
	|| fail "message lacks file:line:col and path: $err"
[ -e "$tmp/bad.PLD" ] && fail "a failed encode left an output file"

# angle out of range
sed 's/angles: \[\[0, 5, 0\]/angles: [[0, 500, 0]/' "$ex" >"$tmp/bad2.yaml"
err=$("$ANIMFS" encode "$tmp/bad2.yaml" -o "$tmp/bad2.PLD" 2>&1) && fail "bad angle accepted"
echo "$err" | grep -q "banks\[0\].keyframes\[1\].angles\[0\]\[1\]: 500 degrees is outside -360..360" \
	|| fail "angle message: $err"

# a truncated binary: error with a byte offset, no crash
head -c 100 "$tmp/re3_tiny.PLD" >"$tmp/cut.PLD"
err=$("$ANIMFS" decode "$tmp/cut.PLD" 2>&1) && fail "truncated file decoded"
echo "$err" | grep -q "byte 0x" || fail "no byte offset: $err"
echo "ok"
