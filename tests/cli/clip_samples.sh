#!/usr/bin/env bash
# sims3-clip on the real samples: `animfs check` claims the 34 loose CLIP exports (s3pe's
# `.animation`) as sims3-clip and round-trips them all; decode -> encode by hand gives
# identical files; the spec's worked example shows as spec 13 says; and a Diesel and a
# CLIP `.animation` side by side in one folder each go to their own codec.
set -u
S=${ANIMFS_SAMPLES:-}/sims3-clip
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$S" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$ANIMFS" check "$S") || fail "animfs check exited $?: $out"
echo "$out"
n=$(find "$S" -type f -name '*CLIP.animation' | wc -l)
echo "$out" | grep -q "^FAIL" && fail "a sample did not round-trip"
# the row counts the loose exports and the CLIPs inside the packages
row=$(echo "$out" | grep -E "^sims3-clip ") || fail "no sims3-clip row"
read -r _ files _ same bad refused unsup <<<"$row"
[ "$files" -ge "$n" ] && [ "$same" = "$files" ] && [ "$bad" = 0 ] && [ "$refused" = 0 ] && [ "$unsup" = 0 ] ||
	fail "expected at least $n sims3-clip files, all identical: $row"
echo "$out" | grep -q "^diesel-animation" && fail "a CLIP was claimed as Diesel"

# by hand through the command line: the sanitized round trip of every CLIP is the check's
# above (the same codec calls, in one process), so this walk, which is for the files and
# the texts the greps below read, goes through $PLAIN (tests/samples.inc); the worked
# example below goes through decode and encode under the sanitizers
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
. "$src/tests/samples.inc"
echo "CLIPs decoded and encoded by hand by $PLAIN"
i=0
while IFS= read -r f; do
	i=$((i + 1))
	"$PLAIN" decode --schema-ref none "$f" >"$tmp/$i.yaml" || fail "decode $f"
	"$PLAIN" encode "$tmp/$i.yaml" -o "$tmp/$i.animation" || fail "encode $f"
	cmp -s "$f" "$tmp/$i.animation" || fail "$f: re-encoded bytes differ"
done < <(find "$S" -type f -name '*CLIP.animation' | sort)
echo "$i CLIPs decode and encode back identical"
# rule 12.2 gives back every stored code from its printed value: no frame needs its codes
# beside the values; only signed zero codes (and flag bits 4-15) keep their flags
grep -l 'codes: \[' "$tmp/"*.yaml && fail "a frame needs its raw codes to rebuild"
flagged=$(cat "$tmp/"*.yaml | grep -c '{v: \[' || true)
echo "$flagged frames keep their stored flags beside the values"
[ "$flagged" -gt 0 ] || fail "no frame keeps its flags (signed zero codes exist in the samples)"

# the worked example of spec sections 4, 5.6 and 13
ex="$S/echoweaver_Breastfeed/S3_6B20C4F3_00000000_4279AA053138D6E4%%+CLIP.animation"
"$ANIMFS" decode "$ex" >"$tmp/ex.yaml" || fail "decode the example"
"$ANIMFS" encode "$tmp/ex.yaml" -o "$tmp/ex.animation" || fail "encode the example"
cmp -s "$ex" "$tmp/ex.animation" || fail "the example: re-encoded bytes differ"
for want in '^format: sims3-clip$' '^clip: a2o_bassinet_feed_start_x  # instance 0x4279AA053138D6E4 by the CLIP rule$' \
	'^actor: x$' '^num_ticks: 43  #' '^  - target: b__ROOT_bind__$' '^    type: F4_SuperHighPrecision_Quaternion$' \
	'^    sub_target: Orientation$' '^    offset: 0.47391897$' '^    scale: 0.52556664  # quantum 0.000128$' \
	'^      0: \[0.010855622, -0.036759816, 0.012909118, 0.99922895\]$' \
	'^      2: \[0.010598935, -0.036631472, 0.013037462, 0.99922895\]  # 0.067 s$' \
	'^  - {type: Script, id: 101, time: 0.0, name: pick_up_baby, unknown1: 0.0, unknown2: 0.0, unknown3: 7}$' \
	'^      - {index: 3, namespace: baby, target: IKtarget_baby}$' '^  - target: rootWorld$'; do
	grep -Eq "$want" "$tmp/ex.yaml" || fail "the example's YAML lacks /$want/"
done
# IK absent and IK with no chains are different files and different views
grep -q '^ik_chains: \[\]' "$tmp/"*.yaml || fail "no clip shows an empty IK table"
grep -q '^ik_chains: null' "$tmp/"*.yaml || fail "no clip shows a missing IK table"

# one folder, both kinds of .animation: each claimed by its own codec, both identical
D=${ANIMFS_SAMPLES}/diesel
dsl=$(find "$D" -name '*.animation' | sort | head -1)
if [ -n "$dsl" ]; then
	mkdir "$tmp/mixed"
	cp "$dsl" "$tmp/mixed/walk.animation"
	cp "$ex" "$tmp/mixed/feed.animation"
	out=$("$ANIMFS" check "$tmp/mixed")
	echo "$out"
	echo "$out" | grep -Eq '^diesel-animation +1 +[0-9]+ +1 +0 +0 +0$' || fail "the Diesel file in the mixed folder"
	echo "$out" | grep -Eq '^sims3-clip +1 +[0-9]+ +1 +0 +0 +0$' || fail "the CLIP in the mixed folder"
	"$ANIMFS" decode "$tmp/mixed/walk.animation" | grep -q '^format: diesel-animation' || fail "Diesel decode"
	"$ANIMFS" decode "$tmp/mixed/feed.animation" | grep -q '^format: sims3-clip' || fail "CLIP decode"
fi
echo "ok"
