#!/usr/bin/env bash
# Issue 31: every sample with a skeleton or an animation gives a glTF preview that the Khronos
# glTF-Validator reports with 0 errors, and whose nodes, animations and keyframes are those
# its YAML holds (counted by tests/tools/gltf_expect.py, independently of the C code);
# issue 45: one skin whose joints are every node, and one root node over them.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
S=${ANIMFS_SAMPLES:-}
[ -n "$S" ] && [ -d "$S" ] || { echo "SKIP: no samples (../shared/samples)"; exit 77; }
mods=${ANIMFS_NODE:-$src/.tools/node/node_modules}
[ -d "$mods/gltf-validator" ] || { echo "SKIP: gltf-validator missing (scripts/setup installs it)"; exit 77; }
export ANIMFS_NODE=$mods
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
files=()
for f in "$S"/diesel/*.animation "$S"/re3/*.PLD "$S"/re3/*.PLW "$S"/re3/*.EMD "$S"/re3/*.emd \
	"$S"/shenmue/*.bin "$S"/sims3-clip/*/*; do
	case $f in
	*.package) # its clips and skeletons, as members
		for mb in $("$ANIMFS" decode "$f/index.yaml" | sed -n 's/.*name: \([^,}]*\.\(clip\|rig\)\)}.*/\1/p'); do
			files+=("$f/$mb")
		done ;;
	*) [ -f "$f" ] && files+=("$f") ;;
	esac
done
m=$S/shenmue-containers/am2_s1pal_DCBN_MPK00.PKS/M_DCBN.MOTN # a member, through its gzip layer
[ -f "${m%/*}" ] && files+=("$m")
. "$src/tests/samples.inc"
i=0 variants=0
for f in "${files[@]}"; do
	if [ -f "$f" ] && sample_variant "$f"; then
		echo "not previewed again: ${f#"$S"/}, a variant of ${VARIANT_OF#"$S"/}"
		variants=$((variants + 1)); continue
	fi
	i=$((i + 1))
	# the view by $PLAIN (samples.inc: the *_samples tests decode every sample under ASan);
	# the preview, what is under test here, by the sanitized animfs
	"$PLAIN" decode --schema-ref none "$f" > "$tmp/$i.yaml" 2>/dev/null || { fail "decode $f"; continue; }
	"$ANIMFS" gltf "$tmp/$i.yaml" -o "$tmp/$i.glb" || { fail "gltf $f"; continue; } # its view: one decode
	printf '%s\t%s\n' "$i" "$f" >> "$tmp/names"
done
# one node process for all files (the validator loads once), one Python for the counts
(cd "$tmp" && ls -v ./*.glb | xargs node "$src/tests/tools/gltf_check.js") > "$tmp/got" || fail "the checker failed"
python3 - "$tmp" "$src/tests/tools" > "$tmp/verdicts" <<'PY' || fail "the comparison failed"
import json, os, sys
tmp = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from gltf_expect import expect
names = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(tmp, "names")))
for line in open(os.path.join(tmp, "got")):
    got = json.loads(line)
    i = os.path.basename(got["file"])[:-4]
    want = expect(os.path.join(tmp, i + ".yaml"))
    bad = []
    if got["errors"]:
        bad.append(f"{got['errors']} validator errors: {got['first_errors']}")
    for k in ("nodes", "animations", "keys"):
        if got[k] != want[k]:
            bad.append(f"{k} {got[k]}, the YAML holds {want[k]}")
    # issue 45: one armature in Blender: one skin of every node, under one root
    if (got["skins"], got["joints"], got["roots"]) != (1, got["nodes"], 1):
        bad.append(f"{got['skins']} skins of {got['joints']} joints for {got['nodes']} nodes, {got['roots']} roots")
    print(("FAIL: " + os.path.basename(names[i]) + ": " + "; ".join(bad)) if bad else "ok")
PY
n=$(grep -c '^ok$' "$tmp/verdicts")
grep '^FAIL' "$tmp/verdicts" && fails=$((fails + $(grep -c '^FAIL' "$tmp/verdicts")))
[ "$(wc -l < "$tmp/got")" = "$i" ] || fail "checked $(wc -l < "$tmp/got") of $i previews"
echo "${#files[@]} samples, $variants of them variants"
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
