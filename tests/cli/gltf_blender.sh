#!/usr/bin/env bash
# Issue 45 (item 1): a preview of one sample of each format imported into a real Blender
# (Debian's, headless; tests/tools/blender_check.py): exactly one armature, one action per
# sequence, each action's frame range the sequence's length at the format's frame rate.
# Samples absent: skipped, saying so. Blender absent: skipped on a workstation, a failure
# in CI (CI installs it through scripts/setup).
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-}
[ -n "$S" ] && [ -d "$S" ] || { echo "SKIP: no samples (../shared/samples): nothing to import"; exit 77; }
if ! command -v blender >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then
		echo "FAIL: no blender in CI (scripts/setup installs Debian's blender and python3-numpy)"
		exit 1
	fi
	echo "SKIP: no blender (scripts/setup installs it)"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# one of each format, small: a PAYDAY 2 biped clip whose keys span its length, standing at
# its first frame (the head over 1.5 m above the toes: the biped's tree, Hips beside
# root_point, the right way up), an RE3 enemy
# (meshes, texture, 36 sequences), three Shenmue blocks (a sequence, a baked block, a node
# block), the smallest Sims 3 clip (no rig beside it: its targets under one root)
d=$S/diesel/phys808__shared_unarmed_neutral_cm_so_croupier_win.animation
r=$S/re3/biohazard-utils_re3_emd_leon_em50.emd
m=$S/shenmue/dashgl_motion.bin
c=$(ls -S "$S"/sims3-clip/*/*CLIP.animation 2>/dev/null | tail -1)
glbs=()
make() { # OUT[::CHECK] FILE [gltf options]: the preview, by the sanitized animfs
	local out=${1%%::*} check=${1#*::}; shift
	[ "$check" = "$out" ] && check="" || check="::$check"
	if [ -f "$1" ]; then
		"$ANIMFS" gltf "$@" -o "$tmp/$out.glb" && glbs+=("$tmp/$out.glb$check") || fail "gltf $*"
	else
		echo "not in the samples: ${1#"$S"/}"
	fi
}
make diesel::Head:LeftToeBase:1.5 "$d"
make re "$r"
make motn "$m" --anim A_WALK_L_02 --anim AKI_AKI_YS00_RH_ST --anim TMN_A_MEMO
make clip "$c"
[ ${#glbs[@]} -gt 0 ] || { echo "SKIP: none of the chosen samples is there"; exit 77; }
# Blender's Python takes its prefix from the first python3 on PATH: another one there first
# (pyenv's, a venv's) lacks Debian's numpy, and the importer fails. Blender's own folder
# (/usr/bin) holds the Python it was built with.
PATH="$(dirname "$(command -v blender)"):$PATH" \
blender -b --factory-startup --python-exit-code 1 --python "$src/tests/tools/blender_check.py" -- \
	"${glbs[@]}" > "$tmp/out" 2> "$tmp/err" || fail "blender_check: $(grep -v '^{' "$tmp/out" | tail -3) $(tail -3 "$tmp/err")"
grep '^{' "$tmp/out" | sed "s|$tmp/||"
grep -q '"stands": "Head 1\.[5-9][0-9] m above LeftToeBase"' "$tmp/out" || fail "the PAYDAY 2 figure does not stand"
[ "$(grep -c '"bad": \[\]' "$tmp/out")" = ${#glbs[@]} ] || fail "$(grep -vc '"bad": \[\]' "$tmp/out") previews with findings"
echo "${#glbs[@]} previews imported, $fails failed"
[ $fails -eq 0 ]
