#!/usr/bin/env bash
# Issue 45 (item 3): every Diesel sample's unedited preview, brought back with `animfs import`
# (ASan), gives the identical binary. Samples absent: skipped, saying so.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
A=${ANIMFS:?set ANIMFS to the animfs binary}
[ -d "$S/diesel" ] || { echo "SKIP: no Diesel samples (../shared/samples)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
n=0
for f in "$S"/diesel/*.animation; do
	cp "$f" "$tmp/s.animation"
	"$A" gltf "$tmp/s.animation" -o "$tmp/s.glb" 2> /dev/null || continue
	"$A" import "$tmp/s.glb" --into "$tmp/s.animation" -o "$tmp/s2.animation" > "$tmp/out" 2>&1 &&
		cmp -s "$tmp/s2.animation" "$f" || fail "${f##*/}: $(tail -2 "$tmp/out")"
	n=$((n + 1))
done
echo "$n Diesel samples round-tripped, $fails failed"
[ $fails -eq 0 ]
