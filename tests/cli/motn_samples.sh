#!/usr/bin/env bash
# shenmue-motn: both public samples round-trip byte for byte through `animfs check`, and the
# rendered document shows the numbers of spec section 9.2 (counted from its lines).
set -euo pipefail
dir=${ANIMFS_SAMPLES:-}/shenmue
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -f "$dir/dashgl_motion.bin" ]; then
  echo "SKIP: ../shared/samples not found"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$ANIMFS" check "$dir/dashgl_motion.bin" "$dir/dashgl_motion_alt.bin" | tee "$tmp/check"
grep -q '^shenmue-motn  *2  *3653600  *2  *0  *0  *0$' "$tmp/check" || fail "check table"
grep -q '^2 of 2 decoded files identical, 0 refused as damaged$' "$tmp/check" || fail "check summary"

"$ANIMFS" decode "$dir/dashgl_motion.bin" > "$tmp/a.yaml"
"$ANIMFS" decode "$dir/dashgl_motion_alt.bin" > "$tmp/b.yaml"
expect() { # file regex count what
  local n
  n=$(grep -cE "$2" "$1" || true)
  [ "$n" = "$3" ] || fail "$4: $n, expected $3"
}
a=$tmp/a.yaml
expect "$a" '^  - \{name: ' 1559 "entries"
expect "$a" '^  - block: ' 1326 "blocks"
expect "$a" '^    orphan: true' 7 "orphans"
expect "$a" '^    raw: ' 0 "raw blocks"
expect "$a" '^    baked: ' 9 "baked blocks (rig 0x8000, 0x800D)"
expect "$a" '^      rig: 0xD ' 3 "baked blocks of rig 0x800D"
expect "$a" '^    nodes: ' 17 "node blocks (rig 0xFFFF)"
expect "$a" '^          hinge: ' 18 "hinges (6 blocks x 1 + 3 x 4)"
expect "$a" '^    frames: ' 1300 "standard blocks"
expect "$a" '^  0x[0-9A-F]+: "' 944 "extra blobs"
expect "$a" '^        (tx|ty|tz|rx|ry|rz):$' 79104 "channels"
expect "$a" '^          - \[[0-9]+, 0\]$' 34188 "type-0 keys"
expect "$a" '^          - \[[0-9]+, 1, [^,]+\]$' 126665 "type-1 keys"
expect "$a" '^          - \[[0-9]+, 2, [^,]+, [^,]+\]$' 204926 "type-2 keys"
expect "$a" '^          - \[[0-9]+, 3, [^,]+, [^,]+, [^,]+\]$' 9229 "type-3 keys"
grep -q '^# 1559 entries -> 1319 distinct blocks, 944 distinct extra blobs, 1398 distinct (block, extra) pairs$' "$a" \
  || fail "summary line 1"
grep -q '^# 1326 blocks: 1326 decoded (1300 sequences, 9 baked, 17 node), 0 raw, 7 orphans; 79104 channels (12233 just' "$a" || fail "summary line 2"
grep -q '^trailer: .*# build stamp "Fri Nov 12 16:10:23 1999"' "$a" || fail "trailer"
grep -q '^          - \[1, 2, -6.1e-05, -0.00489\]$' "$a" || fail "the subnormal half"
b=$tmp/b.yaml
expect "$b" '^    raw: ' 1 "raw blocks (alt)"
expect "$b" '^    raw: "non-canonical layout' 1 "non-canonical raw block (alt)"
grep -q '^# 1326 blocks: 1325 decoded (1299 sequences, 9 baked, 17 node), 1 raw, 7 orphans;' "$b" || fail "summary (alt)"
echo "ok"
