#!/usr/bin/env bash
# sims3-clip from the command line: a clip built by an independent writer
# (tests/tools/clip_tool.py) decodes and encodes back identical; one frame value
# changed through the YAML changes exactly that frame's code bytes (the independent
# reader says which bytes differ), and every other frame keeps its codes; the same on a
# real sample when ../shared/samples is there. Out-of-range values, broken YAML,
# unknown keys and hostile counts are refused with file:line:col or a byte offset, and
# leave no output.
set -u
src="${ANIMFS_SOURCE_DIR:?}"
tool="python3 $src/tests/tools/clip_tool.py"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$tool build "$tmp/t.animation" || fail "build"
"$ANIMFS" decode --schema-ref none "$tmp/t.animation" >"$tmp/t.yaml" || fail "decode"
"$ANIMFS" encode "$tmp/t.yaml" -o "$tmp/same.animation" || fail "encode"
cmp -s "$tmp/t.animation" "$tmp/same.animation" || fail "decode -> encode is not identical"

# channel 0, frame 3 (tick 3): x from code 120 to the code of 0.2: 0.2 * 4095 = 819 (+0.5, floor)
grep -q '^      3: \[0.02930403, 0.0, 0.0, 1.0\]' "$tmp/t.yaml" || fail "frame 3 not shown"
sed 's/^      3: \[0.02930403,/      3: [0.2,/' "$tmp/t.yaml" >"$tmp/e.yaml"
"$ANIMFS" encode "$tmp/e.yaml" -o "$tmp/e.animation" || fail "encode the edit"
read -r off len < <($tool frame "$tmp/t.animation" 0 3)
changed=$($tool diff "$tmp/t.animation" "$tmp/e.animation")
[ -n "$changed" ] || fail "the edit changed no byte"
for b in $changed; do
	[ "$b" = length ] && fail "the file length changed"
	[ "$b" -ge $((off + 4)) ] && [ "$b" -lt $((off + 6)) ] ||
		fail "byte $b changed; only the x code of frame 3 (bytes $((off + 4))-$((off + 5))) should"
done
python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(); assert struct.unpack_from('<H', d, $off + 4)[0] == 819" \
	"$tmp/e.animation" || fail "the new code is not round-to-nearest (819)"
echo "edit: bytes $(echo $changed) changed, inside frame 3's x code"

# the same on a real clip: a value moved by half its channel's range; one frame changes
S=${ANIMFS_SAMPLES:-}/sims3-clip
ex="$S/echoweaver_Breastfeed/S3_6B20C4F3_00000000_4279AA053138D6E4%%+CLIP.animation"
if [ -f "$ex" ]; then
	"$ANIMFS" decode --schema-ref none "$ex" >"$tmp/r.yaml" || fail "decode the sample"
	sed 's/^      2: \[0.010598935,/      2: [0.2,/' "$tmp/r.yaml" >"$tmp/re.yaml"
	cmp -s "$tmp/r.yaml" "$tmp/re.yaml" && fail "the sample edit changed nothing"
	"$ANIMFS" encode "$tmp/re.yaml" -o "$tmp/re.animation" || fail "encode the sample edit"
	read -r off len < <($tool frame "$ex" 0 1)
	changed=$($tool diff "$ex" "$tmp/re.animation")
	[ -n "$changed" ] || fail "the sample edit changed no byte"
	for b in $changed; do
		[ "$b" -ge $((off + 4)) ] && [ "$b" -lt $((off + len)) ] || fail "sample: byte $b changed outside frame 1 of channel 0"
	done
	echo "sample edit: only frame 1 of channel 0 changed"
else
	echo "note: ../shared/samples not found; the sample edit is skipped"
fi

refuse() { # refuse NAME SED-EXPR PATTERN
	sed "$2" "$tmp/t.yaml" >"$tmp/$1.yaml"
	cmp -s "$tmp/$1.yaml" "$tmp/t.yaml" && fail "$1: the edit changed nothing"
	err=$("$ANIMFS" encode "$tmp/$1.yaml" -o "$tmp/$1.animation" 2>&1) && fail "$1 accepted"
	echo "$1: $err"
	echo "$err" | grep -Eq "$3" || fail "$1: message lacks /$3/"
	[ -e "$tmp/$1.animation" ] && fail "$1: a failed encode left an output file"
	return 0
}
line=$(grep -n '^      3: \[0.02930403' "$tmp/t.yaml" | cut -d: -f1)
refuse range 's/^      3: \[0.02930403,/      3: [1.5,/' \
	"range.yaml:$line:[0-9]+: channels\[0\]\.frames\[3\]\.v\[0\]: 1.5 is outside 0.0 \+- 1.0"
refuse broken 's/^      3: \[0.02930403,/      3: [0.02930403,,/' "broken.yaml:$line:[0-9]+:"
refuse unknown '0,/^    offset: 0.0$/s//    offst: 0.0/' "unknown.yaml:[0-9]+:[0-9]+: channels\[0\]: unknown field\(s\) offst"
refuse order 's/^      5: \[-2.0,/      1: [-2.0,/' "order.yaml:[0-9]+:[0-9]+: channels\[1\]\.frames\[2\]: tick 1 is not after tick 2"
refuse sound 's/sound: snd,/sound: snd, slot: x,/' "a Sound event has no field slot"

# refit: the out-of-range value is taken, the channel re-quantised, with a warning
sed -e 's/^      3: \[0.02930403,/      3: [1.5,/' -e '0,/^    scale: 1.0/s//    refit: true\n    scale: 1.0/' \
	"$tmp/t.yaml" >"$tmp/refit.yaml"
err=$("$ANIMFS" encode "$tmp/refit.yaml" -o "$tmp/refit.animation" 2>&1) || fail "refit refused: $err"
echo "$err" | grep -qE "re-quantised every frame|offset moved by .*\(refit\)" || fail "refit gave no warning: $err"
# (moved offset or new range: the value within half a step of 1.5, the scale 1.0 / 4095)
v=$("$ANIMFS" decode --schema-ref none "$tmp/refit.animation" | sed -n 's/^      3: \[\([^,]*\), 0.0,.*/\1/p')
python3 -c "import sys; sys.exit(abs(float('$v') - 1.5) > 0.5 / 4095 + 1e-7)" 2>/dev/null ||
	fail "refit lost the value: frame 3 is '$v'"

# hostile counts in the binary: a byte offset, no crash
python3 - "$tmp/t.animation" "$tmp/h.animation" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", d, 56 + 24, 0xFFFFFFFF)  # channel count
open(sys.argv[2], "wb").write(d)
PY
err=$("$ANIMFS" decode "$tmp/h.animation" 2>&1) && fail "hostile channel count decoded"
echo "hostile: $err"
echo "$err" | grep -q "byte 0x50: 4294967295 channels do not fit" || fail "no byte offset: $err"
head -c 150 "$tmp/t.animation" >"$tmp/cut.animation"
err=$("$ANIMFS" decode "$tmp/cut.animation" 2>&1) && fail "truncated file decoded"
echo "$err" | grep -q "byte 0x" || fail "truncation: no byte offset: $err"
echo "ok"
