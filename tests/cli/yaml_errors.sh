#!/usr/bin/env bash
# YAML slips name the line and column of the mistake (issue 46): each common slip made
# on one line of examples/walk.animation.yaml, encoded on the command line; the message
# must be "file:LINE:COL: ..." with the changed line (unit/test_yamlerr sweeps every
# line of every example through the readers; this is what a user sees).
set -u
fails=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=$ANIMFS_SOURCE_DIR/examples/walk.animation.yaml
y=$tmp/walk.animation.yaml
# slip NAME LINE SED-EXPRESSION EXPECTED-LINE:COL TEXT-IN-THE-MESSAGE
slip() {
	local name=$1 line=$2 expr=$3 at=$4 says=$5 out
	sed "${line}${expr}" "$src" > "$y"
	if cmp -s "$src" "$y"; then echo "FAIL $name: the slip changed nothing"; fails=$((fails+1)); return; fi
	out=$("$ANIMFS" encode "$y" -o "$tmp/out.animation" 2>&1) && {
		echo "FAIL $name: encoded"; fails=$((fails+1)); return; }
	case "$out" in
	*"walk.animation.yaml:$at: "*"$says"*) ;;
	*) echo "FAIL $name (line $line): wanted walk.animation.yaml:$at: ...$says..., got:"; echo "$out"
	   fails=$((fails+1)) ;;
	esac
}
# the lines used, as the example has them
grep -qxF '        - [0.5, 0.0, 60.0, 0.0]' <(sed -n 19p "$src") || { echo "FAIL: walk.animation.yaml changed; update the lines here"; exit 1; }
grep -qxF '      type: pos_f32    # root motion: floats, no +-1000 cm limit' <(sed -n 16p "$src") || { echo "FAIL: walk.animation.yaml changed"; exit 1; }
slip lost-bracket 19 's/0\.0\]$/0.0/' 19:11 "did not find expected ',' or ']'"
slip lost-bracket-last-key 20 's/0\.0\]$/0.0/' 20:11 "flow sequence"
slip lost-colon-key-with-comment 16 's/type:/type/' 16:7 "no ':' after this key"
slip lost-colon-above-block 17 's/keys:/keys/' 17:7 "could not find expected ':'"
slip lost-colon-top 5 's/length:/length/' 5:1 "could not find expected ':'"
slip lost-colon-item 14 's/name:/name/' 14:5 "no ':' after this key"
slip lost-comma 19 's/0\.5, 0\.0/0.5 0.0/' 19:11 "found 3 values"
slip indent-more-first-key 16 's/^/ /' 16:8 "indentation"
slip indent-less-first-key 16 's/^ //' 16:6 "indentation"
slip indent-more-key 17 's/^/ /' 17:8 "did not find expected key"
slip indent-less-key 17 's/^ //' 17:6 "did not find expected key"
slip indent-less-item 19 's/^ //' 19:8 "did not find expected key"
slip tab-indent 16 's/^  /\t/' 16:1 "found character that cannot start any token"
slip tab-item 19 's/^        /\t/' 19:1 "found character that cannot start any token"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
