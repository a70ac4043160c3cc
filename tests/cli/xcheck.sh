#!/usr/bin/env bash
# Cross-checks as warnings, never refusals (issue 17), said on encode and only about what
# the edit introduced: a CLIP whose channels target no bone of the rig beside it (loose,
# or the rig in the same package), and a
# Jazz Play node whose clip is no CLIP of its package. Each warning fires and stays quiet.
set -u
d=${ANIMFS_SAMPLES:?}/sims3-clip/echoweaver_SeasonsSymptoms
clip="$d/S3_6B20C4F3_70000000_D660C6DA61573420%%+CLIP.animation"
rig="$d/S3_8EAF13DE_00000000_6EE886E80C45C5F0%%+_RIG.grannyrig"
[ -f "$clip" ] && [ -f "$rig" ] && [ -f "$d/SeasonsSymptoms.package" ] ||
  { echo "SKIP: ../shared/samples not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
enc() { "$ANIMFS" encode "$1" -o "$2" 2>&1 || fail "encode $1 -o $2: refused"; }
has() { case "$1" in *"$2"*) ;; *) fail "$3: no '$2' in: $1";; esac; }
hasnt() { case "$1" in *"$2"*) fail "$3: '$2' in: $1";; esac; }
norig='no bone of the rig beside the clip'

# --- CLIP against its rig
mkdir "$tmp/rig" "$tmp/alone"
cp "$clip" "$tmp/rig/a.animation" && cp "$rig" "$tmp/rig/" && chmod u+w "$tmp/rig"/*
"$ANIMFS" decode "$tmp/rig/a.animation" > "$tmp/a.yaml" 2> "$tmp/err" || fail "decode the clip"
[ -s "$tmp/err" ] && fail "decode warned: $(cat "$tmp/err")"
# the sample drives a sim's bones, the rig beside it is a prop's: a new file hears of it
has "$(enc "$tmp/a.yaml" "$tmp/rig/new.animation")" "channels target no bone of the rig" "a new clip beside the rig"
cmp -s "$tmp/rig/new.animation" "$clip" || fail "the warning changed the bytes"
hasnt "$(enc "$tmp/a.yaml" "$tmp/rig/a.animation")" "$norig" "an unchanged encode"
hasnt "$(enc "$tmp/a.yaml" "$tmp/alone/new.animation")" "$norig" "no rig beside the clip"
# every channel on a bone of the rig: quiet; one on an unknown hash: that hash is named
sed -E 's/^(  - target: ).*/\1b__ROOT__/' "$tmp/a.yaml" > "$tmp/bones.yaml"
hasnt "$(enc "$tmp/bones.yaml" "$tmp/rig/bones.animation")" "$norig" "every target a bone of the rig"
sed -E '0,/^(  - target: ).*/s//\10x12345678/' "$tmp/bones.yaml" > "$tmp/one.yaml"
has "$(enc "$tmp/one.yaml" "$tmp/rig/bones.animation")" "1 channel targets 0x12345678, $norig" "one unknown target"

# --- a CLIP inside a package, against the package's own rig (the same prop rig)
cp "$d/SeasonsSymptoms.package" "$tmp/s.package" && chmod u+w "$tmp/s.package"
p=$tmp/s.package
m=$p/a_buff_EWGermy_coughing_x.clip
"$ANIMFS" decode "$m" > "$tmp/m.yaml" 2> "$tmp/err" || fail "decode the CLIP member"
[ -s "$tmp/err" ] && fail "decode of the member warned: $(cat "$tmp/err")"
hasnt "$(enc "$tmp/m.yaml" "$m")" "$norig" "an unchanged member"
cmp -s "$p" "$d/SeasonsSymptoms.package" || fail "an unchanged member changed the package"
sed -E 's/^(  - target: ).*/\1b__ROOT__/' "$tmp/m.yaml" > "$tmp/mb.yaml"
hasnt "$(enc "$tmp/mb.yaml" "$m")" "$norig" "a member whose every target is a bone of the package's rig"
sed -E '0,/^(  - target: ).*/s//\10x12345678/' "$tmp/mb.yaml" > "$tmp/m1.yaml"
has "$(enc "$tmp/m1.yaml" "$m")" "1 channel targets 0x12345678, $norig" "a member with one unknown target"
cp "$d/SeasonsSymptoms.package" "$p"

# --- Jazz Play nodes against the package's CLIPs
"$ANIMFS" decode "$p/ewcoughing.jazz" > "$tmp/j.yaml" || fail "decode the Jazz member"
"$ANIMFS" decode "$p/ewheadpain.jazz" > "$tmp/h.yaml" || fail "decode the Jazz member"
grep -q '^ *clip: a_buff_EWGermy_coughing_x$' "$tmp/j.yaml" || fail "precondition: no Play clip"
noclip='is no CLIP beside this state machine'
# ewheadpain plays clips of EA's packages: what it held is no news
hasnt "$(enc "$tmp/h.yaml" "$p/ewheadpain.jazz")" "$noclip" "an unchanged member"
sed 's/clip: a_buff_EWGermy_coughing_x$/clip: a_no_such_clip_x/' "$tmp/j.yaml" > "$tmp/j1.yaml"
out=$(enc "$tmp/j1.yaml" "$p/ewcoughing.jazz")
has "$out" "j1.yaml:" "the warning's place"
has "$out" "node 'play1': clip 'a_no_such_clip_x' (0x" "a clip the package lacks"
sed 's/clip: a_buff_EWGermy_coughing_x$/clip: c_buff_EWGermy_coughing_x/' "$tmp/j.yaml" > "$tmp/j2.yaml"
hasnt "$(enc "$tmp/j2.yaml" "$p/ewcoughing.jazz")" "$noclip" "a clip the package holds"
# siblings with no CLIP at all (a folder of scripts): every clip is elsewhere, nothing said
hasnt "$(enc "$tmp/j1.yaml" "$tmp/alone/x.jazz")" "$noclip" "a folder with no CLIP"
echo "ok: cross-checks"
