#!/usr/bin/env bash
# re-model from the command line: the hand-authored example encodes and checks; an edit
# with an error is refused with file:line:col and the YAML path, and leaves no output;
# an edit through a flag name changes exactly the flag's byte.
set -u
src="${ANIMFS_SOURCE_DIR:?}"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ex="$src/examples/re3_tiny.PLD.yaml"
"$ANIMFS" encode "$ex" -o "$tmp/re3_tiny.PLD" || fail "example does not encode"
"$ANIMFS" check "$tmp/re3_tiny.PLD" | grep -q "1 of 1 decoded files identical" \
	|| fail "example binary does not round-trip"
"$ANIMFS" decode "$tmp/re3_tiny.PLD" >"$tmp/back.yaml" || fail "decode example"
grep -q "relpos: \[0, -300, 0\]" "$tmp/back.yaml" || fail "skeleton not shown"

# relative pose outside the 256-pose window
sed 's/- \[1, footfall\]/- [300, footfall]/' "$ex" >"$tmp/bad.yaml"
line=$(grep -n '\[300, footfall\]' "$tmp/bad.yaml" | cut -d: -f1)
[ -n "$line" ] || fail "the example has no frame [1, footfall]"
err=$("$ANIMFS" encode "$tmp/bad.yaml" -o "$tmp/bad.PLD" 2>&1) && fail "bad pose accepted"
echo "$err"
echo "$err" | grep -q "bad.yaml:$line:[0-9]*: banks\[0\].sequences\[0\].frames\[1\]: relative pose 300" \
	|| fail "message lacks file:line:col and path: $err"
[ -e "$tmp/bad.PLD" ] && fail "a failed encode left an output file"

# angle out of range, on its bone's own line
sed 's/- \[0, 5, 0\]/- [0, 500, 0]/' "$ex" >"$tmp/bad2.yaml"
line=$(grep -n '\[0, 500, 0\]' "$tmp/bad2.yaml" | cut -d: -f1)
err=$("$ANIMFS" encode "$tmp/bad2.yaml" -o "$tmp/bad2.PLD" 2>&1) && fail "bad angle accepted"
echo "$err" | grep -q "bad2.yaml:$line:[0-9]*: banks\[0\].keyframes\[1\].angles\[0\]\[1\]: 500 degrees is outside -360..360" \
	|| fail "angle message: $err"

# a misspelt key is refused where it is, never ignored
sed 's/^        y_offset: -905/        y_ofset: -905/' "$ex" >"$tmp/bad3.yaml"
line=$(grep -n 'y_ofset' "$tmp/bad3.yaml" | cut -d: -f1)
err=$("$ANIMFS" encode "$tmp/bad3.yaml" -o "$tmp/bad3.PLD" 2>&1) && fail "unknown key accepted"
echo "$err" | grep -q "bad3.yaml:$line:9: banks\[0\].keyframes\[1\]: unknown key 'y_ofset'" \
	|| fail "unknown key message: $err"
# a flag name that is none
sed 's/- \[1, footfall\]/- [1, footstep]/' "$ex" >"$tmp/bad4.yaml"
err=$("$ANIMFS" encode "$tmp/bad4.yaml" -o "$tmp/bad4.PLD" 2>&1) && fail "unknown flag name accepted"
echo "$err" | grep -q "frames\[1\] flags: 'footstep' is not a flag name of re3" || fail "flag name message: $err"

# footfall (0x02) -> footfall2 (0x06) in the decoded view: frame 1's flag byte alone
# (the EDD is section 0 at byte 8; its one record is 8 bytes; frame 1's flags at +3)
sed '0,/- \[1, footfall\]/s//- [1, footfall2]/' "$tmp/back.yaml" >"$tmp/flag.yaml"
"$ANIMFS" encode "$tmp/flag.yaml" -o "$tmp/flag.PLD" || fail "flag edit does not encode"
diff=$(cmp -l "$tmp/re3_tiny.PLD" "$tmp/flag.PLD")
[ "$(echo "$diff" | tr -s ' ')" = " 20 2 6" ] || fail "flag edit changed other bytes: $diff"

# a truncated binary: error with a byte offset, no crash
head -c 100 "$tmp/re3_tiny.PLD" >"$tmp/cut.PLD"
err=$("$ANIMFS" decode "$tmp/cut.PLD" 2>&1) && fail "truncated file decoded"
echo "$err" | grep -q "byte 0x" || fail "no byte offset: $err"
echo "ok"
