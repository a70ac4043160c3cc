#!/usr/bin/env bash
# Issue 19, part 1: every format has a JSON Schema (animfs schema), every decoded view
# (examples and every real sample, package members too) starts with a yaml-language-server
# modeline naming it and validates against it with a real validator (python3-jsonschema),
# typical mistakes the codec refuses are refused by the schema too, every key is described
# and named in docs/<format>.md, and `cmake --install` puts the schemas where an installed
# binary's modeline points.
# Samples over 40 KiB (views over about 256 KiB: the Shenmue motion banks are 14 MB of
# YAML each, the biggest clips 3.5 MB) are cli/schema_big's (labelled slow), with the
# same code (schema.inc). Of the smaller samples cli/schema validates a fixed
# representative subset (sample_files, tests/samples.inc), its slow-tier twin
# cli/schema_full every one.
. "$(dirname "$0")/schema.inc"
"$ANIMFS" schema nope >/dev/null 2>&1; [ $? = 2 ] && ok || fail "an unknown format is a usage error"

# Every key has a description, and docs/<format>.md names it (the schema's descriptions
# come from there; a key the docs do not know is drift).
"$PY" - "$tmp/schema" "$src/docs" $formats <<'EOF' || fails=$((fails + 1))
import json, re, sys
sdir, ddir, formats = sys.argv[1], sys.argv[2], sys.argv[3:]
bad = 0
for fmt in formats:
    s = json.load(open(f"{sdir}/{fmt}.json"))
    doc = open(f"{ddir}/{fmt}.md").read()
    ranges = [(int(a), int(b)) for a, b in re.findall(r"`unknown(\d+)`\s*-\s*`unknown(\d+)`", doc)]
    keys = set()
    def walk(o, path):
        global bad
        if isinstance(o, dict):
            for k, v in o.get("properties", {}).items():
                keys.add(k)
                if not (isinstance(v, dict) and v.get("description")):
                    print(f"FAIL: {fmt}: {path}/{k} has no description"); bad += 1
            for k, v in o.items():
                if k not in ("if", "then", "not"):  # conditions restate keys described elsewhere
                    walk(v, f"{path}/{k}")
        elif isinstance(o, list):
            for i, v in enumerate(o):
                walk(v, f"{path}/{i}")
    walk(s, "")
    for k in sorted(keys):
        m = re.fullmatch(r"unknown(\d+)", k)
        if re.search(r"`[^`\n]*\b%s\b[^`\n]*`" % re.escape(k), doc) or \
                re.search(r"^[ \t]*(- )?\{?%s:" % re.escape(k), doc, re.M):
            continue
        if m and any(a <= int(m.group(1)) <= b for a, b in ranges):
            continue
        print(f"FAIL: {fmt}: key '{k}' is not named in docs/{fmt}.md"); bad += 1
    print(f"{fmt}: {len(keys)} keys, each described and in the docs")
sys.exit(1 if bad else 0)
EOF
ok

# Views of the examples (ours: every examples/*.yaml, of the format its `format:` names),
# a synthetic clip with events, and of every sample up to 40 KiB (and each member of a
# container up to 40 KiB): the modeline, then a valid document.
ex="$src/examples"
for y in "$ex"/*.yaml; do
	b=$(basename "$y" .yaml); fmt=$(sed -n 's/^format: *//p' "$y" | head -1)
	"$EXP" encode "$y" -o "$tmp/$b" >/dev/null 2>&1 || { fail "encode examples/$b.yaml"; continue; }
	view "$tmp/$b" "$tmp/v/$b.yaml" "$fmt"
done
python3 "$src/tests/tools/clip_tool.py" build "$tmp/tool.animation"
view "$tmp/tool.animation" "$tmp/v/clip.yaml" sims3-clip
S=${ANIMFS_SAMPLES:-}
if [ -n "$S" ] && [ -d "$S" ]; then
	view_samples
	echo "samples over $BIG bytes are left to cli/schema_big"
else
	echo "note: ../shared/samples not found; only the examples are validated"
fi
for f in $formats; do
	[ -s "$tmp/list.$f" ] || fail "no view of $f was validated"
done

# Mistakes the codec refuses are refused by the schema as well, by each engine (validated
# with the views, in one run, after they are all made).
mkdir "$tmp/m"
mistake() { # mistake NAME FORMAT VIEW SED-EXPRESSION
	local name=$1 fmt=$2 from=$3 expr=$4 y="$tmp/m/$1.yaml"
	[ -s "$from" ] || { fail "$name: no view $from to make it from"; return; }
	sed -e "$expr" "$from" > "$y"
	cmp -s "$y" "$from" && { fail "$name: the edit changed nothing"; return; }
	"$EXP" encode "$y" -o "$tmp/encoded_$name" >/dev/null 2>&1 && fail "$name: the codec took it" # no extension: the format is the document's
	echo "$y" >> "$tmp/mistakes.$fmt"
}
w="$tmp/v/walk.animation.yaml"
mistake letter diesel-animation "$w" '0,/^        - \[0.5, 0.0, 60.0, 0.0\]/s//        - [0.5, 0.0, abc, 0.0]/'
mistake quat4 diesel-animation "$w" '0,/^        - \[0.5, 0.000, 0.000, 0.018, 1.000\]/s//        - [0.5, 0.000, 0.000, 0.018]/'
# Euler keys: with the `euler: xyz` header a rotation key of three angles is valid for the
# schema as for the codec; without the header it is the quat4 mistake above; with it, a
# key of two angles is still wrong.
"$EXP" decode --euler "$tmp/walk.animation" > "$tmp/we.yaml" 2>/dev/null
sed '0,/^        - \[0.5, 0.000, 0.000, 0.018, 1.000\].*/s//        - [0.5, 0, 0, 2.0]/' "$tmp/we.yaml" > "$tmp/euler.yaml"
if cmp -s "$tmp/we.yaml" "$tmp/euler.yaml"; then
	fail "euler: the edit changed nothing"
elif ! "$EXP" encode "$tmp/euler.yaml" -o "$tmp/encoded_euler" >/dev/null 2>&1; then
	fail "euler: the codec refused an Euler key under euler: xyz"
else
	echo "$tmp/euler.yaml" >> "$tmp/list.diesel-animation" # a view that must validate
fi
mistake euler2 diesel-animation "$tmp/euler.yaml" '0,/^        - \[0.5, 0, 0, 2.0\]/s//        - [0.5, 0, 2.0]/'
mistake unknownkey diesel-animation "$w" '0,/^    position:/s//    positon:/'
mistake enum diesel-animation "$w" '0,/type: rot_packed/s//type: rot_pakced/'
mistake layout diesel-animation "$w" 's/layout: 32-bit/layout: 16-bit/'
mistake jazzflag sims3-jazz "$tmp/v/wave_hello.jazz.yaml" 's/^flags: \[UnilateralActor\]/flags: [UnilateralActr]/'
mistake jazzkey sims3-jazz "$tmp/v/wave_hello.jazz.yaml" '0,/^    transitions:/s//    transition:/'
mistake jazzkind sims3-jazz "$tmp/v/wave_hello.jazz.yaml" '0,/kind: random/s//kind: randm/'
mistake motnarity shenmue-motn "$tmp/v/MOTION.BIN.yaml" '0,/- \[4, 2, 1.125, 0.0\]/s//- [4, 2, 1.125]/'
mistake motnkey shenmue-motn "$tmp/v/MOTION.BIN.yaml" 's/^  attr_high:/  attr_hi:/'
mistake reletter re-model "$tmp/v/re3_tiny.PLD.yaml" '0,/motion: \[-50, 0, 0\]/s//motion: [-50, x, 0]/'
mistake clipkey sims3-clip "$tmp/v/clip.yaml" '0,/^    offset:/s//    offst:/'
mistake cliptype sims3-clip "$tmp/v/clip.yaml" '0,/type: F4_SuperHighPrecision_Quaternion/s//type: F4_SuperHighPrecision_Quat/'
mistake clipevent sims3-clip "$tmp/v/clip.yaml" 's/{type: Sound,/{type: Sond,/'
mistake rerecords re-model "$tmp/v/re3_tiny.PLD.yaml" 's/records: re3-relative/records: re3-relativ/'
mistake rekey re-model "$tmp/v/re3_tiny.PLD.yaml" '0,/^        y_offset: -905/s//        y_ofset: -905/'
mistake reflag re-model "$tmp/v/re3_tiny.PLD.yaml" '0,/\[1, footfall\]/s//[1, footfal]/'
mistake reangle re-model "$tmp/v/re3_tiny.PLD.yaml" '0,/- \[0, 5, 0\]/s//- [0, 5]/'
mistake rigkey sims3-rig "$tmp/v/hand_prop.rig.yaml" '0,/^    parent:/s//    parnt:/'
mistake rigref sims3-rig "$tmp/v/hand_prop.rig.yaml" 's/^    info_nodes: \[lid, null, /    info_nodes: [lid, /'
validate $formats
# each engine must refuse each mistake: with both engines, a refusal by one alone is the
# verdict "the validators disagree"; a document yaml2json reads otherwise than Python is
# no refusal either
for f in $formats; do
	[ -s "$tmp/mistakes.$f" ] || continue
	while IFS= read -r y; do
		name=$(basename "$y" .yaml)
		v=$(grep -m1 -F "$y: " "$tmp/out.all" | sed 's/^[^:]*: //')
		case $v in
		ok) fail "$name: the schema took it" ;;
		*"the validators disagree"* | *"differs from the loader"*) fail "$name: $v" ;;
		INVALID*) ok; echo "$name: $v" ;;
		*) fail "$name: no verdict from the validator" ;;
		esac
	done < "$tmp/mistakes.$f"
done

# The installed schemas, and an installed binary's decode points at them.
if [ -n "${ANIMFS_BUILD_DIR:-}" ]; then
	cmake --install "$ANIMFS_BUILD_DIR" --prefix "$tmp/prefix" >/dev/null
	for f in $formats; do
		cmp -s "$tmp/prefix/share/animfs/schema/$f.json" "$tmp/schema/$f.json" && ok ||
			fail "share/animfs/schema/$f.json is not installed (or differs from animfs schema $f)"
	done
	line=$("$tmp/prefix/bin/animfs" decode "$tmp/walk.animation" | head -1)
	[ "$line" = "# yaml-language-server: \$schema=file://$(cd "$tmp/prefix/share/animfs/schema" && pwd -P)/diesel-animation.json" ] &&
		ok || fail "installed decode's modeline: $line"
fi
# --schema-ref: another place (the mount's relative path), or none.
line=$("$ANIMFS" decode --schema-ref ../.animfs/schema "$tmp/walk.animation" | head -1)
[ "$line" = '# yaml-language-server: $schema=../.animfs/schema/diesel-animation.json' ] && ok || fail "--schema-ref DIR: $line"
"$ANIMFS" decode --schema-ref none "$tmp/walk.animation" | head -1 | grep -q yaml-language-server &&
	fail "--schema-ref none still writes the modeline" || ok
# the modeline is a comment: a view with it encodes to the same bytes
"$ANIMFS" encode "$w" -o "$tmp/again.animation" >/dev/null && cmp -s "$tmp/again.animation" "$tmp/walk.animation" &&
	ok || fail "a view with its modeline does not encode to the same bytes"

echo "$n passed, $fails failed"
[ $fails -eq 0 ]
