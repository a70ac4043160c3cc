#!/usr/bin/env bash
# sims3-rig: every sample skeleton round-trips byte for byte through `animfs check`, as a
# loose s3pe export and inside its package; decode -> encode by hand gives identical
# files; an edit of one position through the YAML changes exactly its 4 bytes; and a
# rig added to a package from the command line (encode -o X.package/new.rig) is there.
set -u
dir="${ANIMFS_SAMPLES:-}/sims3-clip"
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$dir" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/rigs"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	cp "$f" "$tmp/rigs/$n.grannyrig"
done < <(find "$dir" -name '*_RIG.grannyrig' | sort)
[ "$n" = 5 ] || fail "expected 5 sample rigs, found $n"
cp "$dir/echoweaver_SeasonsSymptoms/SeasonsSymptoms.package" "$tmp/rigs/"
out=$("$ANIMFS" check "$tmp/rigs" 2>&1)
echo "$out"
# 5 loose rigs and the package's rig
echo "$out" | grep -Eq "^sims3-rig +6 +[0-9]+ +6 +0 +0 +0\$" || fail "expected 6 sims3-rig files, all identical"
echo "$out" | grep -q "^FAIL .*\.rig" && fail "a rig did not round-trip"
echo "$out" | grep -q "1 rebuilt byte for byte, 0 failed" || fail "the package did not rebuild"

for f in "$tmp"/rigs/*.grannyrig; do
	"$ANIMFS" decode "$f" >"$f.yaml" || fail "decode $f"
	grep -q '^format: sims3-rig$' "$f.yaml" || fail "$f: no format line"
	"$ANIMFS" encode "$f.yaml" -o "$tmp/back.grannyrig" 2>/dev/null || fail "encode $f"
	cmp -s "$f" "$tmp/back.grannyrig" || fail "$f: re-encoded bytes differ"
done

# the edit: bone 0's position y (12 + 4: after the header, the position's x)
y=$tmp/rigs/1.grannyrig.yaml
sed '0,/^    position: \[0.0, 0.0, 0.0\]$/s//    position: [0.0, -1.5, 0.0]/' "$y" >"$tmp/e.yaml"
cmp -s "$y" "$tmp/e.yaml" && fail "the edit changed nothing"
"$ANIMFS" encode "$tmp/e.yaml" -o "$tmp/e.grannyrig" || fail "encode the edit"
[ "$(cmp -l "$tmp/rigs/1.grannyrig" "$tmp/e.grannyrig" | awk '{print $1}' | tr '\n' ' ')" = "19 20 " ] ||
	fail "the edit changed other bytes: $(cmp -l "$tmp/rigs/1.grannyrig" "$tmp/e.grannyrig" | head)"
[ "$(od -An -tx1 -j 16 -N4 "$tmp/e.grannyrig" | tr -d ' ')" = "0000c0bf" ] || fail "-1.5 is not at byte 16"

# a new rig in the package from the command line
p=$tmp/rigs/SeasonsSymptoms.package
"$ANIMFS" encode "$tmp/e.yaml" -o "$p/newRig.rig" 2>"$tmp/err" || fail "adding a rig: $(cat "$tmp/err")"
grep -q "added to the package" "$tmp/err" || fail "no word of the add: $(cat "$tmp/err")"
"$ANIMFS" decode "$p/index.yaml" | grep -q "type: 0x8EAF13DE, group: 0x00000000, .*name: newRig.rig}" ||
	fail "index.yaml does not list newRig.rig"
"$ANIMFS" decode "$p/newRig.rig" | cmp -s - <("$ANIMFS" decode "$tmp/e.grannyrig") || fail "the new rig's YAML"
"$ANIMFS" encode "$tmp/e.yaml" -o "$p/newRig.rig" 2>&1 | grep -q "unchanged" || fail "a second encode is not unchanged"
echo "ok: sims3-rig samples"
