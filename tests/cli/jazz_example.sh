#!/usr/bin/env bash
# The hand-written example machine encodes to a Jazz resource that animfs recognises,
# decodes, and re-encodes byte for byte; a truncated copy is refused with a byte offset.
set -euo pipefail
src=${ANIMFS_SOURCE_DIR:?}/examples/wave_hello.jazz.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ANIMFS" encode "$src" -o "$tmp/wave_hello.jazz"
out=$("$ANIMFS" check "$tmp")
echo "$out"
echo "$out" | grep -Eq '^sims3-jazz +1 ' || fail "the encoded example is not claimed as Jazz"
echo "$out" | grep -q '^1 of 1 decoded files identical, 0 refused as damaged$' || fail "example does not round-trip"
"$ANIMFS" decode "$tmp/wave_hello.jazz" > "$tmp/back.yaml"
grep -q '^    transitions: \[0xF73297A8\]$' "$tmp/back.yaml" || fail "state reference"
grep -q '^            - {weight: 3.0, next: \[select1\]}$' "$tmp/back.yaml" || fail "random outcome"
grep -q '^          blend_in_time: 0.1333333$' "$tmp/back.yaml" || fail "shortest float"

head -c 600 "$tmp/wave_hello.jazz" > "$tmp/cut.jazz"
if "$ANIMFS" decode --format sims3-jazz "$tmp/cut.jazz" > /dev/null 2> "$tmp/err"; then
  fail "a truncated file decoded"
fi
cat "$tmp/err"
grep -Eq 'cut.jazz: byte 0x[0-9a-f]+: chunks\[[0-9]+\]: index entry .* points outside the 600-byte file' "$tmp/err" \
  || fail "truncation error message"
echo "ok"
