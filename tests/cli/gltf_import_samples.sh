#!/usr/bin/env bash
# Issue 45 (item 3): every Diesel, Sims 3 CLIP, RE and Shenmue MOTN sample's unedited preview,
# brought back with `animfs import` (ASan), gives the identical binary; so does every MOTN
# inside a Shenmue archive (PKS, AFS, gzip, nested), brought back into a copy of its
# archive, which stays byte for byte as it was. Samples absent: skipped, saying so.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-$src/../shared/samples}
A=${ANIMFS:?set ANIMFS to the animfs binary}
[ -d "$S/diesel" ] || [ -d "$S/sims3-clip" ] || [ -d "$S/re3" ] || [ -d "$S/shenmue" ] ||
	{ echo "SKIP: no Diesel, CLIP, RE or MOTN samples (../shared/samples)"; exit 77; }
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
back shenmue "$S"/shenmue/*.bin
back shenmue-containers "$S"/shenmue-containers/*.MOTN "$S"/shenmue-containers/am2_M_TAIA.BIN
# every MOTN member of an archive, into a copy of its archive
n=0
for f in "$S"/shenmue-containers/*.PKS "$S"/shenmue-containers/*.AFS; do
	[ -e "$f" ] || continue
	cp "$f" "$tmp/${f##*/}"
	"$A" decode "$f/index.yaml" 2> /dev/null | python3 -c '
import sys, yaml
def walk(path, d):
    for m in d.get("members") or []:
        if m.get("content") == "motn":
            print(path + m["file"])
    for x in d.get("nested") or []:
        walk(path + x["file"] + "/", x)
walk("", yaml.safe_load(sys.stdin) or {})' > "$tmp/members"
	while read -r m; do
		"$A" gltf "$tmp/${f##*/}/$m" -o "$tmp/m.glb" 2> "$tmp/out" || { fail "${f##*/}/$m: $(tail -2 "$tmp/out")"; continue; }
		"$A" import "$tmp/m.glb" --into "$tmp/${f##*/}/$m" > "$tmp/out" 2>&1 && cmp -s "$tmp/${f##*/}" "$f" &&
			grep -q "the file is unchanged" "$tmp/out" || fail "${f##*/}/$m: $(tail -2 "$tmp/out")"
		n=$((n + 1))
	done < "$tmp/members"
done
echo "$n MOTN archive members brought back"
echo "$fails failed"
[ $fails -eq 0 ]
