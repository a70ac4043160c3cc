#!/usr/bin/env bash
# Issue 19, part 2: a plot renders in a real browser (headless Chromium) to a picture that
# is not blank.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
chrome=""
for c in chromium chromium-browser google-chrome; do command -v "$c" >/dev/null && { chrome=$c; break; }; done
[ -n "$chrome" ] || { echo "SKIP: no chromium (apt-get install chromium)"; exit 77; }
PY=python3; [ -x /usr/bin/python3 ] && PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$ANIMFS" plot "$src/examples/walk.animation.yaml" -o "$tmp/walk.svg" || { echo "FAIL: plot"; exit 1; }
h=$(grep -o 'height="[0-9]*"' "$tmp/walk.svg" | head -1 | tr -dc 0-9)
if ! timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
	--screenshot="$tmp/walk.png" --window-size="920,$h" "file://$tmp/walk.svg" >"$tmp/log" 2>&1 || [ ! -s "$tmp/walk.png" ]; then
	echo "SKIP: $chrome cannot run here:"; tail -3 "$tmp/log"; exit 77
fi
"$PY" "$src/tests/tools/png_ink.py" "$tmp/walk.png" && echo "1 passed, 0 failed" || { echo "FAIL: the rendered plot is blank"; exit 1; }
