#!/usr/bin/env bash
# shenmue-motn through `animfs check --coverage`: in motion.bin every sequence block, the
# 9 baked and the 17 node blocks (rig bit 15) are fields; what stays opaque is the extra
# blobs (frame events, carried as hex) and the 4 unknown header bytes of each node block.
# A rig-bit-15 block that no longer fits its layout falls back to raw and the count shows it.
set -u
bin="${ANIMFS_SAMPLES:-}/shenmue/dashgl_motion.bin"
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -f "$bin" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the extra blobs run from the end of the table to the name table (spec 3.4)
extras=$(python3 - "$bin" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
table, names, data, attr = struct.unpack_from('<4I', b, 0)
print(names - (table + 8 * ((attr & 0xFFF) - 1)))
PY
) || fail "extras size"
[ "$extras" = 61884 ] || fail "extra blobs: $extras bytes"
out=$("$ANIMFS" check --coverage "$bin") || fail "check exited $?: $out"
echo "$out"
# 1,779,364 animation bytes: 1,717,480 of blocks (none raw) + 61,884 of extra blobs
echo "$out" | grep -Eq "^shenmue-motn +1 +1717412 +61952 +96\.52%$" || fail "coverage row"
echo "$out" | grep -q "^opaque .*dashgl_motion.bin: $((extras + 17 * 4)) of 1779364 animation bytes$" \
	|| fail "opaque bytes: not the extra blobs and 17 x 4 unknown bytes"

# AKI_AKI_YS00_R_ST (data_rel 0xD66B8) with a record size that does not fit its mask:
# that block (1934 bytes) goes raw, everything else is as before
python3 - "$bin" "$tmp/motion.bin" <<'PY' || fail "variant"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
at = struct.unpack_from('<I', b, 8)[0] + 0xD66B8
assert struct.unpack_from('<HHH', b, at) == (60, 0x8000, 32)
struct.pack_into('<H', b, at + 4, 34)
open(sys.argv[2], 'wb').write(b)
PY
out=$("$ANIMFS" check --coverage "$tmp/motion.bin") || fail "check of the variant exited $?: $out"
echo "$out" | grep -q "1 of 1 decoded files identical" || fail "the variant does not round-trip"
echo "$out" | grep -q "^opaque .*motion.bin: $((extras + 17 * 4 + 1934)) of 1779364 animation bytes$" \
	|| fail "a raw baked block does not show: $out"
"$ANIMFS" decode "$tmp/motion.bin" | grep -q '^    raw: "rig word has bit 15 set, but the block is not a baked record block"' \
	|| fail "the raw block does not say why"
echo "ok"
