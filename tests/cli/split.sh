#!/usr/bin/env bash
# Issue 29, part 7: a view as a folder of small documents. `decode --split DIR` writes
# DIR/index.yaml and one part per element (object, block, channel group, run of entries)
# of the lists the codec names; `encode DIR` puts them together byte for byte; every
# part and the index validate against their own schemas (named by their modelines); a
# mistake in a part is refused naming that part at its line:col, the binary unchanged;
# the index's list of parts is the order, and a part it does not list is not read.
# Every example of a format that splits; every real sample: cli/split_samples.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { n=$((n + 1)); }
PY=""
for p in /usr/bin/python3 python3; do
	"$p" -c 'import jsonschema, yaml' 2>/dev/null && { PY=$p; break; }
done

"$ANIMFS" schema --all "$tmp/schema" || fail "schema --all"
# the examples' binaries and the decodes that judge an edit are made by $PLAIN (the
# unsanitized build, tests/samples.inc): what is under test, decode --split and encode
# DIR, runs as $ANIMFS
. "$src/tests/samples.inc"
: > "$tmp/parts.list"
split=0
for y in "$src"/examples/*.yaml; do
	b=$(basename "$y" .yaml)
	"$PLAIN" encode "$y" -o "$tmp/$b" >/dev/null 2>&1 || { fail "encode examples/$b.yaml"; continue; }
	if ! "$ANIMFS" decode --schema-ref "$tmp/schema" "$tmp/$b" --split "$tmp/$b.yaml" 2>"$tmp/err"; then
		grep -q "views are not split" "$tmp/err" && [ ! -e "$tmp/$b.yaml" ] && ok ||
			fail "decode --split $b: $(cat "$tmp/err")"
		continue
	fi
	split=$((split + 1))
	[ -f "$tmp/$b.yaml/index.yaml" ] && [ "$(ls "$tmp/$b.yaml" | wc -l)" -ge 2 ] && ok ||
		fail "$b: no index and parts"
	# the default output is the folder's name without .yaml, as for a file
	cp "$tmp/$b" "$tmp/$b.orig"
	"$ANIMFS" encode "$tmp/$b.yaml" && cmp -s "$tmp/$b" "$tmp/$b.orig" && ok ||
		fail "$b: encode DIR is not the same bytes"
	# each file's modeline names its schema, and it validates (all of them in one
	# validator run, before the edits below)
	for f in "$tmp/$b.yaml"/*.yaml; do
		sch=$(head -1 "$f" | sed -n 's|^# yaml-language-server: \$schema=.*/||p')
		[ -f "$tmp/schema/$sch" ] || { fail "$(basename "$f"): modeline names '$sch'"; continue; }
		printf '%s\t%s\n' "$tmp/schema/$sch" "$f" >> "$tmp/parts.list"
	done
done
[ "$split" -ge 4 ] && ok || fail "only $split examples split"
if [ -n "$PY" ]; then
	"$PY" "$src/tests/tools/schema_check.py" --list "$tmp/parts.list" > "$tmp/parts.out"
	echo "$(grep -c ': ok$' "$tmp/parts.out") parts and indexes valid against their schemas"
	[ "$(grep -c ': ok$' "$tmp/parts.out")" = "$(wc -l < "$tmp/parts.list")" ] && ok ||
		fail "parts that do not validate: $(grep -v ': ok$' "$tmp/parts.out")"
fi

# The walk example: a mistake in a part is refused at its line:col, nothing written.
d=$tmp/walk.animation.yaml
part=$(ls "$d" | grep '^objects-.*-Hips.yaml$')
[ -n "$part" ] && ok || fail "no part named after its object (Hips): $(ls "$d")"
cp "$tmp/walk.animation" "$tmp/before.animation"
cp "$d/$part" "$tmp/part.good"
line=$(grep -n '^        - \[' "$d/$part" | sed -n 2p | cut -d: -f1)
sed -i "${line}s/\[\([-0-9.e]*\), /[\1, abc/" "$d/$part"
col=$(sed -n "${line}p" "$d/$part" | awk '{ print index($0, "abc") }')
"$ANIMFS" encode "$d" 2>"$tmp/err" && fail "a broken part was encoded"
grep -q "^animfs: $d/$part:$line:$col: " "$tmp/err" && ok ||
	fail "the refusal does not name $part:$line:$col: $(cat "$tmp/err")"
cmp -s "$tmp/walk.animation" "$tmp/before.animation" && ok || fail "a refused encode changed the binary"
# a key a part may not hold
cp "$tmp/part.good" "$d/$part"
echo "length: 3" >> "$d/$part"
"$ANIMFS" encode "$d" 2>"$tmp/err" && fail "a part with another key was encoded"
grep -q "^animfs: $d/$part:$(wc -l < "$d/$part"):1: .*holds the key 'objects' only" "$tmp/err" && ok ||
	fail "another key in a part: $(cat "$tmp/err")"
cp "$tmp/part.good" "$d/$part"
# an edit in a part lands in the binary, and only there
sed -i "${line}s/\[\([-0-9.e]*\), [-0-9.e]*,/[\1, 0.25,/" "$d/$part"
"$ANIMFS" encode "$d" 2>"$tmp/err" && ok || fail "an edited part: $(cat "$tmp/err")"
"$PLAIN" decode "$tmp/walk.animation" > "$tmp/edited.yaml"
"$PLAIN" decode "$tmp/before.animation" > "$tmp/orig.yaml"
# (a pos_u16 key: 0.25 is stored as the nearest step, 0.24)
[ "$(diff "$tmp/orig.yaml" "$tmp/edited.yaml" | grep -c '^[<>]')" = 2 ] &&
	diff "$tmp/orig.yaml" "$tmp/edited.yaml" | grep -q '^> .*\[[-0-9.e]*, 0.2[45],' && ok ||
	fail "the edit did not land as one line: $(diff "$tmp/orig.yaml" "$tmp/edited.yaml")"
cp "$tmp/part.good" "$d/$part"
# the index is the order: a part it no longer lists is not read; one it names but is
# missing is refused where the index names it
cp "$d/index.yaml" "$tmp/index.good"
grep -v "^  - $part\$" "$tmp/index.good" > "$d/index.yaml"
"$ANIMFS" encode "$d" -o "$tmp/fewer.animation" 2>"$tmp/err" && ok || fail "an index without one part: $(cat "$tmp/err")"
"$PLAIN" decode "$tmp/fewer.animation" | grep -q 'name: Hips' && fail "an unlisted part was read" || ok
cp "$tmp/index.good" "$d/index.yaml"
mv "$d/$part" "$tmp/moved"
iline=$(grep -n "^  - $part\$" "$d/index.yaml" | cut -d: -f1)
"$ANIMFS" encode "$d" -o "$tmp/none" 2>"$tmp/err" && fail "a missing part was not refused"
grep -q "^animfs: $d/index.yaml:$iline:5: " "$tmp/err" && ok ||
	fail "a missing part is not refused at index.yaml:$iline:5: $(cat "$tmp/err")"
[ ! -e "$tmp/none" ] && ok || fail "a refused encode wrote a file"
mv "$tmp/moved" "$d/$part"
# a part's file name cannot leave the folder
sed "s|^  - $part\$|  - ../$part|" "$tmp/index.good" > "$d/index.yaml"
"$ANIMFS" encode "$d" -o "$tmp/none" 2>"$tmp/err" && fail "a part name with a / was read"
grep -q "index.yaml:$iline:5: '../$part' is no part's file name" "$tmp/err" && ok ||
	fail "a part name with a /: $(cat "$tmp/err")"
cp "$tmp/index.good" "$d/index.yaml"
# a split again into the same folder leaves no part of the earlier split behind
touch "$d/objects-9999-Old.yaml" "$d/notes.yaml"
"$ANIMFS" decode "$tmp/walk.animation" --split "$d" || fail "decode --split again"
[ ! -e "$d/objects-9999-Old.yaml" ] && [ -e "$d/notes.yaml" ] && ok ||
	fail "a stale part stays, or another file went: $(ls "$d")"

# The MOTN example: a map (extras) cut into parts; a key in two parts is refused.
d=$tmp/MOTION.BIN.yaml
e=$(ls "$d" | grep '^extras-' | head -1)
k=$(sed -n 's/^  \(0x[0-9A-F]*\):.*/\1/p' "$d/$e" | head -1)
[ -n "$k" ] && ok || fail "no extras part with a key: $(ls "$d")"
grep "^  $k:" "$d/$e" | sed 's/^/  /;s/^    /  /' > "$tmp/pair"
cp "$d/$e" "$tmp/e.good"
cp "$d/$e" "$d/extras-0001-copy.yaml"
sed -i "s|^  - $e\$|  - $e\n  - extras-0001-copy.yaml|" "$d/index.yaml"
"$ANIMFS" encode "$d" -o "$tmp/none" 2>"$tmp/err" && fail "a key in two parts was encoded"
grep -q "extras-0001-copy.yaml:[0-9]*:[0-9]*: duplicate key '$k'" "$tmp/err" && ok ||
	fail "a key in two parts: $(cat "$tmp/err")"

# Usage: --split and -o are one or the other; a container is decoded whole
"$ANIMFS" decode "$tmp/walk.animation" --split "$tmp/x" -o "$tmp/y" 2>/dev/null; [ $? = 2 ] && ok ||
	fail "--split with -o is no usage error"
mkdir -p "$tmp/plain"
"$ANIMFS" encode "$tmp/plain" 2>"$tmp/err"; [ $? = 2 ] && grep -q "give -o OUT" "$tmp/err" && ok ||
	fail "encode DIR with no .yaml and no -o: $(cat "$tmp/err")"

echo "$n passed, $fails failed"
[ $fails -eq 0 ]
