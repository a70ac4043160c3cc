#!/usr/bin/env bash
# Issue 31: a glTF preview drawn in a real browser. Headless Chromium loads the test page
# (tests/tools/gltf_view.html, three.js from .tools/node, served on 127.0.0.1) and takes a
# screenshot of two times of one animation side by side, a band each model, in one browser
# run: neither half of a band is blank, and they differ (the skeleton moves). The examples
# always; when the samples are there, the first RE3 PLD sample (mesh and texture) and a
# PAYDAY 2 and a Shenmue preview whose skeleton is connected (issue 45: not a star or a
# point cloud): their joints form chains (tests/tools/glb_tree.py) and the picture shows
# the bone lines between them. The screenshots stay in a temporary folder: no render of a
# sample is kept.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mods=${ANIMFS_NODE:-$src/.tools/node/node_modules}
chrome=""
for c in chromium chromium-browser google-chrome; do command -v "$c" >/dev/null && { chrome=$c; break; }; done
[ -n "$chrome" ] || { echo "SKIP: no chromium (apt-get install chromium)"; exit 77; }
[ -d "$mods/three" ] || { echo "SKIP: three.js missing (scripts/setup installs it)"; exit 77; }
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
tmp=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
mkdir "$tmp/web"
cp "$src/tests/tools/gltf_view.html" "$tmp/web/view.html"
ln -s "$(cd "$mods/three" && pwd)" "$tmp/web/three"
# a loopback server on a free port, stopped by the trap
(cd "$tmp/web" && exec "$PY" -u -m http.server 0 --bind 127.0.0.1) > "$tmp/http.log" 2>&1 &
server=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$tmp/http.log" | head -1)
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: the loopback server did not start: $(cat "$tmp/http.log")"; exit 1; }
# moves NAME MODEL.glb ANIM T1 T2: the model drawn at two times, which must differ; queued
# as a band of the one page shots draws (a browser run costs ~7 CPU s, the drawing little)
rows=() query="" lined=()
moves() {
	cp "$2" "$tmp/web/$1.glb"
	rows+=("$1")
	query="${query:+$query&}model=$1.glb&anim=$3&t=$4,$5"
}
# connected NAME MODEL.glb ANIM T1 T2: moves, and its skeleton is a tree of chains whose
# bone lines (the page draws them red) show in both halves
connected() {
	"$PY" "$src/tests/tools/glb_tree.py" "$2" "$3" > "$tmp/tree.txt" ||
		fail "$1: the skeleton is not connected: $(cat "$tmp/tree.txt")"
	echo "$1: $(cat "$tmp/tree.txt")"
	lined+=("$1")
	moves "$@"
}
shots() { # one browser run, 800x400 a band; each band: both halves drawn, and they differ
	local out=$tmp/rows.png
	timeout 180 "$chrome" --headless --no-sandbox --hide-scrollbars --user-data-dir="$tmp/profile" \
		--enable-unsafe-swiftshader --use-angle=swiftshader --virtual-time-budget=20000 \
		--window-size=$((800 * ${#rows[@]})),400 --screenshot="$out" \
		"http://127.0.0.1:$port/view.html?$query" > "$tmp/chrome.log" 2>&1 && [ -s "$out" ] || {
		echo "SKIP: $chrome cannot run here:"; tail -3 "$tmp/chrome.log"; exit 77; }
	LINED="${lined[*]:-}" "$PY" - "$src/tests/tools" "$out" "${rows[@]}" <<'PY' > "$tmp/rows.txt" || fail "the picture could not be read"
import os
import sys
sys.path.insert(0, sys.argv[1])
from png_ink import pixels, size
w, h = size(sys.argv[2])
px = pixels(sys.argv[2])
names = sys.argv[3:]
bw = w // len(names)
for r, name in enumerate(names):
    x0 = r * bw
    a = [px[y * w + x] for y in range(h) for x in range(x0, x0 + bw // 2)]
    b = [px[y * w + x] for y in range(h) for x in range(x0 + bw // 2, x0 + bw)]
    bad = ""
    for p in (a, b):  # not blank: ink (not the background) on over 0.3% of the picture
        ink = sum(1 for x in p if x != p[0])
        if ink < len(p) * 3 // 1000:
            bad = f"blank: {ink} of {len(p)} pixels drawn"
    moved = sum(1 for x, y in zip(a, b) if x != y)
    if not bad and not moved > len(a) // 1000:
        bad = f"the two times look the same ({moved} of {len(a)} pixels changed)"
    if not bad and name in os.environ["LINED"].split():
        for p in (a, b):  # the bone lines: red (0xd01010) on over 0.05% of each half
            red = sum(1 for x in p if x[0] > 150 and x[1] < 90 and x[2] < 90)
            if red < len(p) // 2000:
                bad = f"no bone lines between the joints: {red} red pixels of {len(p)}"
    print(f"FAIL: {name}: {bad}" if bad else f"ok {name}: {moved} of {len(a)} pixels changed")
PY
	cat "$tmp/rows.txt"
	n=$((n + $(grep -c '^ok ' "$tmp/rows.txt")))
	fails=$((fails + $(grep -c '^FAIL' "$tmp/rows.txt")))
	[ "$(wc -l < "$tmp/rows.txt")" = ${#rows[@]} ] || fail "${#rows[@]} rows, $(wc -l < "$tmp/rows.txt") judged"
}
"$ANIMFS" gltf "$src/examples/re3_tiny.PLD.yaml" -o "$tmp/tiny.glb" || fail "gltf of the RE example"
moves tiny "$tmp/tiny.glb" "bank 0 sequence 0 @30fps" 0 0.0333
"$ANIMFS" gltf "$src/examples/MOTION.BIN.yaml" -o "$tmp/motn.glb" || fail "gltf of the MOTN example"
moves motn "$tmp/motn.glb" "" 0 0.4
S=${ANIMFS_SAMPLES:-}
pld=$(ls "$S"/re3/*.PLD 2>/dev/null | head -1)
if [ -n "$pld" ]; then
	"$ANIMFS" gltf "$pld" -o "$tmp/pld.glb" || fail "gltf of $pld"
	moves pld "$tmp/pld.glb" "bank 0 sequence 0 @30fps" 0 0.5
fi
# a PAYDAY 2 run cycle on its character's skeleton, and Shenmue's motion bank on the
# human rig's slot tree (docs/gltf.md says where the hierarchies come from)
dsl="$S/diesel/phys808__shared_pistol_hostile_hos_crh_run_fwd.animation"
if [ -f "$dsl" ]; then
	"$ANIMFS" gltf "$dsl" -o "$tmp/pd2.glb" || fail "gltf of $dsl"
	connected pd2 "$tmp/pd2.glb" "" 0 0.3
fi
motn="$S/shenmue/dashgl_motion.bin"
if [ -f "$motn" ]; then
	# one motion of the bank's 1,326 (the whole preview, 14 MB, is too much for one page)
	"$ANIMFS" gltf "$motn" --anim AI_FT_NGSK_041_NA -o "$tmp/bank.glb" || fail "gltf of $motn"
	connected bank "$tmp/bank.glb" "" 0 0.5
fi
[ -n "$pld" ] && [ -f "$dsl" ] && [ -f "$motn" ] ||
	echo "SKIP (part): ../shared/samples not found: the examples only"

shots
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
