#!/usr/bin/env bash
# sims3-jazz on the real samples: `animfs check` claims exactly the 11 Jazz resources and the
# one inside WarriorCats.package (not the _KEY maps) and round-trips them; decoded YAML shows names from the _KEY map
# beside each file, and the same document encodes identically without the map.
set -euo pipefail
S=${ANIMFS_SAMPLES:-}/sims3
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$S" ]; then
  echo "SKIP: ../shared/samples not found"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

out=$("$ANIMFS" check "$S")
echo "$out"
echo "$out" | grep -Eq '^sims3-jazz +12 +31804 +12 +0 +0 +0$' || fail "check did not round-trip 11+1 Jazz files"
echo "$out" | grep -q '^packages: 1 (1 resources shown inside), 1 rebuilt byte for byte, 0 failed$' || fail "the package"
echo "$out" | grep -q '^12 of 12 decoded files identical, 0 refused as damaged$' || fail "other files were claimed"

pet="$S/echoweaver_PetDisease/S3_02D5DF13_00000000_7971A22F5E5C1A32%%+JAZZ.jazz"
"$ANIMFS" decode "$pet" > "$tmp/pet.yaml"
for want in '^name: wacky_pet$' '^  - name: x$' '^    default_value: cat$' \
            '^  - name: jumpBackandForth$' '^    transitions: \[sing_along, jumpBackandForth, scared, trait_hyper, Exit\]$' \
            '^          clip: a_react_stand_jumpBackandForthPlayful_x$' '^            - {value: cat, next: \[play1\]}$' \
            '^          state: sing_along$' '^  - \[ac_idle_stand_meow.ma, x, x\]$'; do
  grep -Eq "$want" "$tmp/pet.yaml" || fail "decoded YAML lacks /$want/"
done
grep -q '0x1000000' "$tmp/pet.yaml" && fail "a raw chunk reference is shown"
grep -q '^instance:' "$tmp/pet.yaml" && fail "instance shown although the name hashes to it"

# _KEY texts that do not hash back are never printed (ewlicklips maps its instance to
# "mods\ewheadpain.tigerjazz"; the prop instance is mapped to AccessorySponge).
sea="$S/echoweaver_SeasonsSymptoms"
"$ANIMFS" decode "$sea/S3_02D5DF13_00000000_6177B2DD76AD9E80%%+JAZZ.jazz" > "$tmp/lick.yaml"
grep -q '^name: ewlicklips$' "$tmp/lick.yaml" || fail "ewlicklips name"
grep -q 'tigerjazz\|ewheadpain' "$tmp/lick.yaml" && fail "a _KEY text that does not hash back is shown"
"$ANIMFS" decode "$sea/S3_02D5DF13_00000000_0C59AE824FA44F4C%%+JAZZ.jazz" > "$tmp/blow.yaml"
grep -q 'prop: 0x186EF404E5E994F3' "$tmp/blow.yaml" || fail "prop key"
grep -q 'AccessorySponge' "$tmp/blow.yaml" && fail "AccessorySponge shown"
grep -q 'clip: {instance: a_allergies_blowNose_accessoryTissue, group: 0x78000000}' "$tmp/blow.yaml" \
  || fail "CLIP-rule name not resolved"

# The _KEY has no entry for "breastfeed_carry" itself, only the Smooth Jazz script path
# "mods\breastfeed_carry.tigerjazz" for the instance: its base name hashes back, so it is shown.
"$ANIMFS" decode "$S/echoweaver_Breastfeed/S3_02D5DF13_00000000_F2524F99CE17CA3E%%+JAZZ.jazz" > "$tmp/bf.yaml"
grep -q '^name: breastfeed_carry$' "$tmp/bf.yaml" || fail "machine name from the script path"
grep -q '^instance:' "$tmp/bf.yaml" && fail "instance shown for breastfeed_carry"
grep -q '^          kind: stop$' "$tmp/bf.yaml" || fail "Stop node"
grep -q '^          track_mask: upperBodyToddler$' "$tmp/bf.yaml" || fail "track mask name"

# Alone in a folder (no _KEY): hashes show as hex, and both documents encode to the original.
cp "$pet" "$tmp/alone.jazz"
"$ANIMFS" decode "$tmp/alone.jazz" > "$tmp/alone.yaml"
grep -q '^name: 0x0437E9B2$' "$tmp/alone.yaml" || fail "hex name without a map"
grep -q '^instance: 0x7971A22F5E5C1A32$' "$tmp/alone.yaml" || fail "explicit instance without a map"
"$ANIMFS" encode "$tmp/alone.yaml" -o "$tmp/a.jazz"
"$ANIMFS" encode "$tmp/pet.yaml" -o "$tmp/b.jazz"
cmp "$tmp/a.jazz" "$pet" || fail "hex document does not re-encode"
cmp "$tmp/b.jazz" "$pet" || fail "named document does not re-encode"

# An edit that breaks a reference is refused with line:column and path; nothing is written.
sed 's/^  - name: scared$/  - name: frightened/' "$tmp/pet.yaml" > "$tmp/bad.yaml"
if "$ANIMFS" encode "$tmp/bad.yaml" -o "$tmp/bad.jazz" 2> "$tmp/err"; then fail "dangling reference accepted"; fi
cat "$tmp/err"
grep -Eq 'bad.yaml:[0-9]+:[0-9]+: states\[[0-9]+\]\.transitions\[2\]: dangling reference: no state is labelled .scared.' "$tmp/err" \
  || fail "error message"
[ ! -e "$tmp/bad.jazz" ] || fail "a file was written"
echo "ok"
