#!/usr/bin/env bash
# Issue 45 (item 3): every Diesel and Sims 3 CLIP sample's unedited preview, brought back with
# `animfs import` (ASan), gives the identical binary. Samples absent: skipped, saying so.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
A=${ANIMFS:?set ANIMFS to the animfs binary}
[ -d "$S/diesel" ] || [ -d "$S/sims3-clip" ] || { echo "SKIP: no Diesel or CLIP samples (../shared/samples)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
n=0
[ -d "$S/diesel" ] || echo "SKIP (part): no Diesel samples (../shared/samples/diesel)"
for f in "$S"/diesel/*.animation; do
	[ -e "$f" ] || continue
	cp "$f" "$tmp/s.animation"
	"$A" gltf "$tmp/s.animation" -o "$tmp/s.glb" 2> /dev/null || continue
	"$A" import "$tmp/s.glb" --into "$tmp/s.animation" -o "$tmp/s2.animation" > "$tmp/out" 2>&1 &&
		cmp -s "$tmp/s2.animation" "$f" || fail "${f##*/}: $(tail -2 "$tmp/out")"
	n=$((n + 1))
done
echo "$n Diesel samples round-tripped"
n=0
[ -d "$S/sims3-clip" ] || echo "SKIP (part): no CLIP samples (../shared/samples/sims3-clip)"
for f in "$S"/sims3-clip/*/*CLIP.animation; do
	[ -e "$f" ] || continue
	cp "$f" "$tmp/s.animation"
	"$A" gltf "$tmp/s.animation" -o "$tmp/s.glb" 2> "$tmp/out" && "$A" import "$tmp/s.glb" --into "$tmp/s.animation" \
		-o "$tmp/s2.animation" > "$tmp/out" 2>&1 && cmp -s "$tmp/s2.animation" "$f" || fail "${f##*/}: $(tail -2 "$tmp/out")"
	n=$((n + 1))
done
echo "$n CLIP samples round-tripped, $fails failed"
[ $fails -eq 0 ]
