#!/usr/bin/env bash
# Issue 45 (item 3): every Diesel, Sims 3 CLIP and RE sample's unedited preview, brought back with
# `animfs import` (ASan), gives the identical binary. Samples absent: skipped, saying so.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
A=${ANIMFS:?set ANIMFS to the animfs binary}
[ -d "$S/diesel" ] || [ -d "$S/sims3-clip" ] || [ -d "$S/re3" ] || { echo "SKIP: no Diesel, CLIP or RE samples (../shared/samples)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# back DIR GLOB...: each file's unedited preview brought back gives the identical binary
back() {
	local dir=$1 n=0 f x
	shift
	[ -d "$S/$dir" ] || { echo "SKIP (part): no samples in ../shared/samples/$dir"; return; }
	for f in "$@"; do
		[ -e "$f" ] || continue
		x=${f##*.}
		cp "$f" "$tmp/s.$x"
		"$A" gltf "$tmp/s.$x" -o "$tmp/s.glb" 2> "$tmp/out" || { [ "$dir" = diesel ] || fail "${f##*/}: $(tail -2 "$tmp/out")"; continue; } # a Diesel file may have none
		"$A" import "$tmp/s.glb" --into "$tmp/s.$x" -o "$tmp/s2.$x" > "$tmp/out" 2>&1 &&
			cmp -s "$tmp/s2.$x" "$f" || fail "${f##*/}: $(tail -2 "$tmp/out")"
		n=$((n + 1))
	done
	echo "$n $dir samples brought back"
}
back diesel "$S"/diesel/*.animation
back sims3-clip "$S"/sims3-clip/*/*CLIP.animation
back re3 "$S"/re3/*.[PpEe][LlMm][DdWw]
echo "$fails failed"
[ $fails -eq 0 ]
