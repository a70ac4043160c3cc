#!/usr/bin/env bash
# Issue 19, part 2: `animfs plot` writes well-formed SVG (xmllint) with one path per channel
# for every codec with curves (CLIP too, issue 29), from a view or from the binary alike; --object picks objects;
# a format without curves and an unknown object are refused with a reason.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
command -v xmllint >/dev/null || { echo "SKIP: xmllint missing (scripts/setup installs libxml2-utils)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
curves() { grep -c '<path class="curve"' "$1"; }
# the samples' plots are checked for well-formed XML in one xmllint run at the end
# (an xmllint start costs more than most plots' check): LINT_LATER=1 lists them
lint_later=$tmp/lint-later
: > "$lint_later"
plot() { # plot IN OUT WANT_CURVES [ARGS...]
	local in=$1 out=$2 want=$3; shift 3
	"$ANIMFS" plot "$in" "$@" -o "$out" || { fail "plot $(basename "$in") $*: exit $?"; return; }
	if [ -n "${LINT_LATER:-}" ]; then
		echo "$out" >> "$lint_later"
	else
		xmllint --noout "$out" || { fail "$(basename "$out") is not well-formed XML"; return; }
	fi
	[ "$(curves "$out")" = "$want" ] || { fail "$(basename "$in") $*: $(curves "$out") curves, wanted $want"; return; }
	n=$((n + 1))
}
ex="$src/examples"
"$ANIMFS" encode "$ex/walk.animation.yaml" -o "$tmp/walk.animation" >/dev/null 2>&1
"$ANIMFS" encode "$ex/MOTION.BIN.yaml" -o "$tmp/MOTION.BIN" >/dev/null 2>&1
"$ANIMFS" encode "$ex/re3_tiny.PLD.yaml" -o "$tmp/tiny.PLD" >/dev/null 2>&1
# Diesel: 3 position and 3 rotation (Euler) channels per object
objs=$(grep -c '^  - name:' "$ex/walk.animation.yaml")
plot "$ex/walk.animation.yaml" "$tmp/walk.svg" $((objs * 6))
plot "$tmp/walk.animation" "$tmp/walk2.svg" $((objs * 6))
"$ANIMFS" decode "$tmp/walk.animation" > "$tmp/walk.animation.yaml"
plot "$tmp/walk.animation.yaml" "$tmp/walk3.svg" $((objs * 6))
cmp -s <(grep -v 'class="doc"' "$tmp/walk2.svg") <(grep -v 'class="doc"' "$tmp/walk3.svg") &&
	n=$((n + 1)) || fail "the view and its binary plot differently"
grep -q '>rotation x (deg)<' "$tmp/walk.svg" && grep -q '>position z (cm)<' "$tmp/walk.svg" && n=$((n + 1)) ||
	fail "no axis titles with units"
[ "$(grep -c 'class="event"' "$tmp/walk.svg")" = $((objs * 6 * 2)) ] && n=$((n + 1)) || fail "event markers"
grep -q '<circle' "$tmp/walk.svg" && n=$((n + 1)) || fail "no key dots"
plot "$tmp/walk.animation" "$tmp/hips.svg" 6 --object Hips
grep -q 'class="head">Hips<' "$tmp/hips.svg" && n=$((n + 1)) || fail "--object Hips draws another object"
plot "$tmp/walk.animation" "$tmp/two.svg" 12 --object Hips --object root_point
# Shenmue: one path per channel of the decoded blocks, cubic segments from the tangents
# (and one a row of the baked and node blocks, one per scale-track coordinate)
chans=$(grep -cE '^        (tx|ty|tz|rx|ry|rz):' "$ex/MOTION.BIN.yaml")
rows=$(grep -cE '^          (tx|ty|tz|rx|ry|rz|hinge): \[' "$ex/MOTION.BIN.yaml")
scales=$(grep -cE '^        - scale: \[\[' "$ex/MOTION.BIN.yaml")
plot "$tmp/MOTION.BIN" "$tmp/motn.svg" $((chans + rows + 3 * scales))
plot "$tmp/MOTION.BIN" "$tmp/baked.svg" 10 --object DEMO_WAVE_BAKED
plot "$tmp/MOTION.BIN" "$tmp/nodes.svg" 5 --object DEMO_FLAG_NODES
grep -q '>bone 34 hinge (deg)<\|bone 34 hinge' "$tmp/baked.svg" && n=$((n + 1)) || fail "no hinge curve"
grep -q ' C[0-9]' "$tmp/motn.svg" && n=$((n + 1)) || fail "Shenmue curves without tangents (no cubic segments)"
plot "$tmp/MOTION.BIN" "$tmp/look.svg" 3 --object DEMO_LOOK_ALIAS
# RE: root motion x, y, z and the root height per sequence, then each bone's angles
# (issue 46: an edited bone angle shows), flagged frames marked
seqs=$(grep -c 'pose_start:' "$ex/re3_tiny.PLD.yaml")
bones=$(sed -n 's/^ *bone_count: *\([0-9]*\).*/\1/p' "$ex/re3_tiny.PLD.yaml" | head -1)
plot "$tmp/tiny.PLD" "$tmp/re.svg" $((seqs * (4 + 3 * bones)))
grep -q '>footfall<' "$tmp/re.svg" && n=$((n + 1)) || fail "RE frame flags are not marked"
plot "$tmp/tiny.PLD" "$tmp/re0.svg" $((4 + 3 * bones)) --object 0/0
plot "$tmp/tiny.PLD" "$tmp/re1.svg" 3 --object 0/0/bone_1
grep -q '>rotation x (deg)<' "$tmp/re1.svg" && n=$((n + 1)) || fail "RE: no bone angle panel"
# one angle of bone 1 edited: its panel changes, another bone's does not
sed 's/^\(          - \)\[10, 0, 0\]\( *# bone_1\)/\1[25, 0, 0]\2/' "$ex/re3_tiny.PLD.yaml" > "$tmp/tiny_ed.yaml"
cmp -s "$ex/re3_tiny.PLD.yaml" "$tmp/tiny_ed.yaml" && fail "RE: the angle edit changed nothing"
plot "$tmp/tiny_ed.yaml" "$tmp/re1e.svg" 3 --object 0/0/bone_1
plot "$tmp/tiny_ed.yaml" "$tmp/re2e.svg" 3 --object 0/0/bone_2
plot "$tmp/tiny.PLD" "$tmp/re2.svg" 3 --object 0/0/bone_2
cmp -s <(grep -v 'class="doc"' "$tmp/re1.svg") <(grep -v 'class="doc"' "$tmp/re1e.svg") &&
	fail "RE: the edited bone angle does not show in the plot" || n=$((n + 1))
cmp -s <(grep -v 'class="doc"' "$tmp/re2.svg") <(grep -v 'class="doc"' "$tmp/re2e.svg") && n=$((n + 1)) ||
	fail "RE: a bone not edited plots differently"
# Sims 3 CLIP (issue 29): per bone its channels, orientations as Euler angles, events marked
"$ANIMFS" encode "$ex/clip_tiny.animation.yaml" -o "$tmp/clip_tiny.animation" >/dev/null 2>&1
plot "$tmp/clip_tiny.animation" "$tmp/clip.svg" 6
grep -q '>Orientation x (deg)<' "$tmp/clip.svg" && grep -q 'class="event"' "$tmp/clip.svg" && n=$((n + 1)) ||
	fail "CLIP: no Euler orientation panel or no event marker"
plot "$ex/clip_tiny.animation.yaml" "$tmp/clip1.svg" 6 --object b__ROOT_bind__
# a container's member, named as decode names it (issue 29): a package built from the
# example clip plots as the clip itself does
python3 "$src/tests/mount/mkpackage.py" "$tmp/t.package" "6B20C4F3:1234:$tmp/clip_tiny.animation" ||
	fail "mkpackage"
member=$tmp/t.package/S3_6B20C4F3_00000000_0000000000001234.clip
plot "$member" "$tmp/member.svg" 6
cmp -s <(grep -v 'class="doc"' "$tmp/clip.svg") <(grep -v 'class="doc"' "$tmp/member.svg") &&
	n=$((n + 1)) || fail "a package member plots differently from its file"
out=$("$ANIMFS" plot "$tmp/t.package/nope.clip" 2>&1); rc=$?
[ $rc = 1 ] && [[ $out == *"no resource 'nope.clip'"* ]] && n=$((n + 1)) || fail "missing member: $rc $out"
# refusals
out=$("$ANIMFS" plot "$ex/wave_hello.jazz.yaml" 2>&1); rc=$?
[ $rc = 1 ] && [[ $out == *"sims3-jazz documents have no curves to plot"* ]] && n=$((n + 1)) || fail "jazz: $rc $out"
out=$("$ANIMFS" plot "$tmp/walk.animation" --object Nope 2>&1); rc=$?
[ $rc = 1 ] && [[ $out == *"no object 'Nope'"* ]] && n=$((n + 1)) || fail "unknown object: $rc $out"
"$ANIMFS" plot >/dev/null 2>&1; [ $? = 2 ] && n=$((n + 1)) || fail "plot without FILE is not a usage error"
# every real Diesel sample (the first 24 objects of each), and the samples of the other codecs
# (the views plotted are the unsanitized build's, tests/samples.inc: what is tested is the
# plot, under the sanitizers; the samples' decodes are cli/diesel_samples')
S=${ANIMFS_SAMPLES:-}
if [ -n "$S" ] && [ -d "$S/diesel" ]; then
	. "$src/tests/samples.inc"
	k=0
	for f in "$S"/diesel/*.animation; do
		k=$((k + 1))
		"$PLAIN" decode --schema-ref none "$f" > "$tmp/s.yaml" 2>/dev/null
		o=$(grep -c '^  - name:' "$tmp/s.yaml"); [ "$o" -gt 24 ] && o=24
		LINT_LATER=1 plot "$tmp/s.yaml" "$tmp/s$k.svg" $((o * 6))
	done
	# a member of a real archive, through its gzip layer: as its decode plots
	m=$S/shenmue-containers/am2_s1pal_DCBN_MPK00.PKS/M_DCBN.MOTN
	if [ -f "${m%/*}" ]; then
		"$ANIMFS" decode --schema-ref none "$m" > "$tmp/M_DCBN.MOTN.yaml" || fail "decode $m"
		"$ANIMFS" plot "$tmp/M_DCBN.MOTN.yaml" -o "$tmp/pks-yaml.svg" || fail "plot of the decode of $m"
		plot "$m" "$tmp/pks.svg" "$(curves "$tmp/pks-yaml.svg")"
		cmp -s <(grep -v 'class="doc"' "$tmp/pks-yaml.svg") <(grep -v 'class="doc"' "$tmp/pks.svg") &&
			n=$((n + 1)) || fail "the archive member plots differently from its decode"
	fi
	for f in "$S"/re3/*.PLD "$S"/shenmue/dashgl_motion.bin "$S"/sims3-clip/*/*CLIP.animation; do
		k=$((k + 1))
		"$ANIMFS" plot "$f" -o "$tmp/s$k.svg" && echo "$tmp/s$k.svg" >> "$lint_later" &&
			[ "$(curves "$tmp/s$k.svg")" -gt 0 ] && n=$((n + 1)) || fail "plot of $(basename "$f")"
	done
fi
if [ -s "$lint_later" ]; then
	xargs -d '\n' xmllint --noout < "$lint_later" ||
		fail "plots that are not well-formed XML (xmllint's messages above)"
	echo "$(wc -l < "$lint_later") plots of samples are well-formed XML"
fi
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
