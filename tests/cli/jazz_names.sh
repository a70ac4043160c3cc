#!/usr/bin/env bash
# Names typed in a Jazz document survive the round trip through hashes: `animfs
# encode` keeps them in the user dictionary (ANIMFS_NAMES), and `animfs decode`
# shows them again; without the dictionary they are hashes. `animfs check` and
# decode never write it; learning a name twice writes it once.
set -euo pipefail
src=${ANIMFS_SOURCE_DIR:?}/examples/wave_hello.jazz.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export ANIMFS_NAMES=$tmp/dict/names.txt

# without a dictionary, a name of the example that no list knows is a hash
ANIMFS_NAMES= "$ANIMFS" encode "$src" -o "$tmp/w.jazz"
ANIMFS_NAMES= "$ANIMFS" decode "$tmp/w.jazz" > "$tmp/none.yaml"
[ ! -e "$ANIMFS_NAMES" ] || fail "ANIMFS_NAMES= still wrote a dictionary"
grep -q '^  - name: Greet$' "$tmp/none.yaml" && fail "Greet is known without a dictionary"
grep -q '^name: animfs_wave_hello$' "$tmp/none.yaml" && fail "the machine name is known without a dictionary"

# decode and check read the dictionary but never write it
"$ANIMFS" decode "$tmp/w.jazz" > /dev/null
"$ANIMFS" check "$tmp/w.jazz" > /dev/null
[ ! -e "$ANIMFS_NAMES" ] || fail "decode or check wrote the dictionary"

# encode learns the names it hashed; decode shows them
"$ANIMFS" encode "$src" -o "$tmp/w.jazz"
[ -s "$ANIMFS_NAMES" ] || fail "encode did not write the dictionary"
grep -qx 'Greet' "$ANIMFS_NAMES" || fail "Greet not learned: $(cat "$ANIMFS_NAMES")"
"$ANIMFS" decode "$tmp/w.jazz" > "$tmp/named.yaml"
grep -q '^  - name: Greet$' "$tmp/named.yaml" || fail "Greet not shown after encode"
grep -q '^name: animfs_wave_hello$' "$tmp/named.yaml" || fail "machine name not shown"
# the named document encodes to the same bytes as the hashed one
"$ANIMFS" encode "$tmp/none.yaml" -o "$tmp/from_hashes.jazz"
cmp -s "$tmp/w.jazz" "$tmp/from_hashes.jazz" || fail "names changed the bytes"

# a state renamed in the YAML shows under its new name on the next decode
sed 's/\bGreet\b/WaveAtNeighbour/g' "$tmp/named.yaml" > "$tmp/renamed.yaml"
"$ANIMFS" encode "$tmp/renamed.yaml" -o "$tmp/r.jazz"
"$ANIMFS" decode "$tmp/r.jazz" > "$tmp/r.yaml"
grep -q '^  - name: WaveAtNeighbour$' "$tmp/r.yaml" || fail "the renamed state shows as a hash"

# learning the same names again adds nothing; every line is unique
before=$(wc -l < "$ANIMFS_NAMES")
"$ANIMFS" encode "$tmp/renamed.yaml" -o "$tmp/r2.jazz"
[ "$(wc -l < "$ANIMFS_NAMES")" = "$before" ] || fail "names learned twice"
[ -z "$(sort "$ANIMFS_NAMES" | uniq -d)" ] || fail "duplicate lines in the dictionary"
echo "ok: $(wc -l < "$ANIMFS_NAMES") names in the dictionary"
