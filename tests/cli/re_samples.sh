#!/usr/bin/env bash
# re-model: every RE2/RE3 sample model round-trips byte for byte through `animfs check`,
# the stand-alone TIM is not claimed, and decode -> encode by hand gives identical files.
set -u
dir="${ANIMFS_SAMPLES:-}/re3"
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$dir" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }

out=$("$ANIMFS" check "$dir") || fail "animfs check exited $?: $out"
echo "$out"
models=$(find "$dir" -type f \( -iname '*.PLD' -o -iname '*.PLW' -o -iname '*.EMD' \) | wc -l)
echo "$out" | grep -q "^FAIL" && fail "a sample did not round-trip"
echo "$out" | grep -Eq "^re-model +$models +[0-9]+ +$models +0 +0 +0\$" \
	|| fail "expected $models re-model files, all identical"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$dir"/*; do
	base=$(basename "$f")
	case "$base" in
	*.tim|*.TIM)
		"$ANIMFS" decode "$f" >/dev/null 2>&1 && fail "$base (a TIM) was claimed"
		continue ;;
	*.PLD|*.PLW|*.EMD|*.emd) ;;
	*) continue ;;
	esac
	"$ANIMFS" decode "$f" >"$tmp/$base.yaml" || fail "decode $base"
	grep -q '^format: re-model$' "$tmp/$base.yaml" || fail "$base: no format line"
	"$ANIMFS" encode "$tmp/$base.yaml" -o "$tmp/$base" || fail "encode $base"
	cmp -s "$f" "$tmp/$base" || fail "$base: re-encoded bytes differ"
done
# what an animator sees: header-only bank 0, the 7-bone bank's records, RE2 absolute records
plw="$tmp/biohazard-utils_re3_pld0_leon_PL00W00.PLW.yaml"
grep -q "^    skeleton: none" "$plw" || fail "PLW bank 0 does not say it has no skeleton"
grep -q "^    keyframes:   # 102 lower-body records of 32 bytes" "$plw" || fail "PLW 7-bone records not shown"
grep -q "^        right_foot_angles: \[0.3, 15.9, -0.9\]$" "$plw" || fail "7-bone angles not shown"
grep -q "^        left_foot: \[-553, -1228, 2103\]$" "$plw" || fail "7-bone feet not shown"
grep -q "role: emr-pool" "$plw" && fail "the 7-bone pool is still carried as bytes"
grep -q "^    records: re2-absolute" "$tmp/biohazard-utils_re2_pld0_leon_PL00.PLD.yaml" \
	|| fail "RE2 records style not shown"
grep -q "^      - {bone: 14, parent: 13, relpos: \[" "$tmp/biohazard-utils_re3_pld0_leon_PL00.PLD.yaml" \
	|| fail "RE3 PLD skeleton not shown"
pld="$tmp/biohazard-utils_re3_pld0_leon_PL00.PLD.yaml"
# one bone a line with its name (RE3 human), bone_<i> where the spec names none (RE2);
# flags by name where the spec reads them
grep -q "^          - \[1, -5.7, -61.35\] *# 3 right_elbow$" "$pld" || fail "RE3 bone names not shown"
grep -q "relpos: \[-54, 811, 8\]}   # left_foot$" "$pld" || fail "RE3 skeleton names not shown"
grep -q "  # bone_3$" "$tmp/biohazard-utils_re2_pld0_leon_PL00.PLD.yaml" || fail "RE2 bones not shown as bone_<i>"
grep -q "^          - \[5, footfall\]$" "$pld" || fail "flag 0x02 not shown as footfall"
grep -q "^          - \[[0-9]*, 0x04\]$" "$pld" || fail "an unnamed flag not shown in hex"
grep -q "# TIM texture: 384 x 256 pixels, 8 bpp, 3 palettes" "$tmp/biohazard-utils_re3_pld0_leon_PL00.PLD.yaml" \
	|| fail "TIM information not shown"
echo "all $models sample models identical"
