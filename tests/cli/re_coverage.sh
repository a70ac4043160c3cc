#!/usr/bin/env bash
# re-model through `animfs check --coverage`: a PL01W07.PLW-like file (the RE2 PLW sample
# with bits set after one pose's last angle, built here) has all of its animation bytes
# decoded, 0 opaque; every RE sample still round-trips, each file with opaque bytes is
# named with its count, and the 7-bone bank's opaque part is its unknown values alone.
set -u
dir="${ANIMFS_SAMPLES:-}/re3"
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$dir" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pose 291 of bank 0 (section 1, header only: keyframes from byte 8, 80 bytes each):
# the high nibble of its last byte, after the 45th angle (spec 5.3, 5.4)
python3 - "$dir/biohazard-utils_re2_pld0_leon_PL00W00.PLW" "$tmp/PL01W07.PLW" <<'PY' || fail "variant"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
diro, n = struct.unpack_from('<II', b, 0)
emr = struct.unpack_from('<I', b, diro + 4)[0]
assert struct.unpack_from('<HH', b, emr + 2) == (8, 15) and struct.unpack_from('<H', b, emr + 6)[0] == 80
at = emr + 8 + 291 * 80 + 79
assert b[at] >> 4 == 0
b[at] |= 0xA0
open(sys.argv[2], 'wb').write(b)
PY
out=$("$ANIMFS" check --coverage "$tmp/PL01W07.PLW") || fail "check exited $?: $out"
echo "$out"
echo "$out" | grep -q "1 of 1 decoded files identical, 0 refused" || fail "the variant does not round-trip"
echo "$out" | grep -q "^opaque " && fail "the variant has opaque bytes"
# all of EDD (1660) and EMR (27848) are fields, none carried
echo "$out" | grep -Eq "^re-model +1 +29508 +0 +100.00%$" || fail "coverage row of the variant"
"$ANIMFS" decode "$tmp/PL01W07.PLW" | grep -q "^        stray_bits: 0xA " || fail "stray bits not shown"

out=$("$ANIMFS" check --coverage "$dir") || fail "check exited $?: $out"
echo "$out"
models=$(find "$dir" -type f \( -iname '*.PLD' -o -iname '*.PLW' -o -iname '*.EMD' \) | wc -l)
echo "$out" | grep -Eq "^re-model +$models +[0-9]+ +$models +0 +0 +0\$" || fail "a sample did not round-trip"
echo "$out" | grep -Eq "^re-model +$models +[0-9]+ +[0-9]+ +[0-9.]+%$" || fail "no coverage row"
# the RE2 files and the RE3 PLD have no carried animation bytes
echo "$out" | grep -E "^opaque .*(re2_|PL00\.PLD)" && fail "opaque bytes where every bank decodes"
# the 7-bone bank's records are fields but for their two 12-bit values of unknown use:
# 3 bytes a record (PL00W00.PLW: 102 records of the 40,832 animation bytes)
echo "$out" | grep -q "^opaque .*_PL00W00\.PLW: 306 of 40832 animation bytes$" || fail "7-bone coverage"
# without --coverage the table is the plain one
"$ANIMFS" check "$dir" | grep -q "^coverage" && fail "coverage shown without --coverage"
echo "ok"
