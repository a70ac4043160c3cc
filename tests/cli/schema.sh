#!/usr/bin/env bash
# Issue 19, part 1: every format has a JSON Schema (animfs schema), every decoded view
# (examples and every real sample, package members too) starts with a yaml-language-server
# modeline naming it and validates against it with a real validator (python3-jsonschema),
# typical mistakes the codec refuses are refused by the schema too, every key is described
# and named in docs/<format>.md, and `cmake --install` puts the schemas where an installed
# binary's modeline points.
set -u
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
PY=""
for p in /usr/bin/python3 python3; do
	"$p" -c 'import jsonschema, yaml' 2>/dev/null && { PY=$p; break; }
done
if [ -z "$PY" ]; then
	echo "SKIP: no python3 with jsonschema and yaml (scripts/setup installs python3-jsonschema python3-yaml)"
	exit 77
fi
check="$PY $src/tests/tools/schema_check.py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; n=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { n=$((n + 1)); }

mkdir -p "$tmp/schema"
formats=$("$ANIMFS" formats | awk 'NR > 1 && !NF { exit } NR > 1 { print $1 }') # the codecs, not the containers below them
for f in $formats; do
	"$ANIMFS" schema "$f" > "$tmp/schema/$f.json" || { fail "animfs schema $f"; continue; }
	ok
done
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

# Views of the examples (ours) and of every sample: the modeline, then a valid document.
view() { # view BINARY OUT.yaml FORMAT
	"$ANIMFS" decode "$1" > "$2" 2>/dev/null || { fail "decode $1"; return 1; }
	local first; first=$(head -1 "$2")
	case "$first" in
	"# yaml-language-server: \$schema=file://"*"/$3.json") ;;
	*) fail "$(basename "$1"): first line is '$first'"; return 1 ;;
	esac
	local path=${first#*\$schema=file://}
	[ -f "$path" ] || fail "the modeline of $(basename "$1") points at a missing file: $path"
	echo "$2" >> "$tmp/list.$3"
}
ex="$src/examples"
"$ANIMFS" encode "$ex/walk.animation.yaml" -o "$tmp/walk.animation" >/dev/null 2>&1
"$ANIMFS" encode "$ex/wave_hello.jazz.yaml" -o "$tmp/wave_hello.jazz" >/dev/null 2>&1
"$ANIMFS" encode "$ex/re3_tiny.PLD.yaml" -o "$tmp/re3_tiny.PLD" >/dev/null 2>&1
"$ANIMFS" encode "$ex/MOTION.BIN.yaml" -o "$tmp/MOTION.BIN" >/dev/null 2>&1
python3 "$src/tests/tools/clip_tool.py" build "$tmp/tool.animation"
"$ANIMFS" encode "$ex/hand_prop.rig.yaml" -o "$tmp/hand_prop.rig" >/dev/null 2>&1
mkdir "$tmp/v"
view "$tmp/tool.animation" "$tmp/v/clip.yaml" sims3-clip
view "$tmp/walk.animation" "$tmp/v/walk.yaml" diesel-animation
view "$tmp/wave_hello.jazz" "$tmp/v/wave.yaml" sims3-jazz
view "$tmp/re3_tiny.PLD" "$tmp/v/tiny.yaml" re-model
view "$tmp/MOTION.BIN" "$tmp/v/motion.yaml" shenmue-motn
view "$tmp/hand_prop.rig" "$tmp/v/rig.yaml" sims3-rig
# every example, each by the format its document names (so a new codec's example is
# validated with no edit here)
mkdir "$tmp/ex"
for y in "$ex"/*.yaml; do
	b=$(basename "$y" .yaml); f=$(sed -n 's/^format: *//p' "$y" | head -1)
	"$ANIMFS" encode "$y" -o "$tmp/ex/$b" >/dev/null 2>&1 || { fail "encode $(basename "$y")"; continue; }
	view "$tmp/ex/$b" "$tmp/v/ex_$b.yaml" "$f"
done
S=${ANIMFS_SAMPLES:-}
if [ -n "$S" ] && [ -d "$S" ]; then
	i=0
	while IFS= read -r f; do
		i=$((i + 1))
		case "$f" in
		*/sims3-clip/*CLIP.animation) view "$f" "$tmp/v/s$i.yaml" sims3-clip ;;
		*.animation) view "$f" "$tmp/v/s$i.yaml" diesel-animation ;;
		*.jazz) view "$f" "$tmp/v/s$i.yaml" sims3-jazz ;;
		*.grannyrig) view "$f" "$tmp/v/s$i.yaml" sims3-rig ;;
		*.PLD|*.PLW|*.EMD|*.emd) view "$f" "$tmp/v/s$i.yaml" re-model ;;
		*.MOTN|*/motion.bin|*/dashgl_motion*.bin|*/am2_M_*.BIN) view "$f" "$tmp/v/s$i.yaml" shenmue-motn ;;
		*.package)
			for m in $("$ANIMFS" decode "$f/index.yaml" | grep -o 'name: [^,}]*\.jazz' | cut -c7-); do
				i=$((i + 1)); view "$f/$m" "$tmp/v/s$i.yaml" sims3-jazz
			done ;;
		esac
	done < <(find "$S/diesel" "$S/sims3" "$S/sims3-clip" "$S/re3" "$S/shenmue" "$S/shenmue-containers" -type f 2>/dev/null | sort)
else
	echo "note: ../shared/samples not found; only the examples are validated"
fi
for f in $formats; do
	[ -s "$tmp/list.$f" ] || { fail "no view of $f was validated"; continue; }
	# two at a time (the motion banks take a minute each); one result file per view
	xargs -P 2 -I{} sh -c "$check '$tmp/schema/$f.json' '{}' > '{}.out'" < "$tmp/list.$f"
	rc=$?
	out=$(cat $(sed 's/$/.out/' "$tmp/list.$f"))
	echo "$out" | grep -v ': ok$'
	echo "$f: $(echo "$out" | grep -c ': ok$') views valid against the schema"
	[ $rc = 0 ] && ok || fail "$f views do not validate"
done

# Mistakes the codec refuses are refused by the schema as well.
mistake() { # mistake NAME FORMAT VIEW SED-EXPRESSION
	local name=$1 fmt=$2 from=$3 expr=$4 y="$tmp/$1.yaml"
	sed -e "$expr" "$from" > "$y"
	cmp -s "$y" "$from" && { fail "$name: the edit changed nothing"; return; }
	"$ANIMFS" encode "$y" -o "$tmp/encoded_$name" >/dev/null 2>&1 && fail "$name: the codec took it" # no extension: the format is the document's
	if $check "$tmp/schema/$fmt.json" "$y" > "$tmp/$name.out"; then
		fail "$name: the schema took it"
	else
		ok; echo "$name: $(grep -m1 INVALID "$tmp/$name.out" | sed 's/^[^:]*: //')"
	fi
}
w="$tmp/v/walk.yaml"
mistake letter diesel-animation "$w" '0,/^        - \[0.5, 0.0, 60.0, 0.0\]/s//        - [0.5, 0.0, abc, 0.0]/'
mistake quat4 diesel-animation "$w" '0,/^        - \[0.5, 0.000, 0.000, 0.018, 1.000\]/s//        - [0.5, 0.000, 0.000, 0.018]/'
# Euler keys: with the `euler: xyz` header a rotation key of three angles is valid for the
# schema as for the codec; without the header it is the quat4 mistake above; with it, a
# key of two angles is still wrong.
"$ANIMFS" decode --euler "$tmp/walk.animation" > "$tmp/we.yaml" 2>/dev/null
sed '0,/^        - \[0.5, 0.000, 0.000, 0.018, 1.000\].*/s//        - [0.5, 0, 0, 2.0]/' "$tmp/we.yaml" > "$tmp/euler.yaml"
if cmp -s "$tmp/we.yaml" "$tmp/euler.yaml"; then
	fail "euler: the edit changed nothing"
elif ! "$ANIMFS" encode "$tmp/euler.yaml" -o "$tmp/encoded_euler" >/dev/null 2>&1; then
	fail "euler: the codec refused an Euler key under euler: xyz"
else
	$check "$tmp/schema/diesel-animation.json" "$tmp/euler.yaml" > "$tmp/euler.out" && ok ||
		fail "euler: the schema refuses an Euler key under euler: xyz: $(cat "$tmp/euler.out")"
fi
mistake euler2 diesel-animation "$tmp/euler.yaml" '0,/^        - \[0.5, 0, 0, 2.0\]/s//        - [0.5, 0, 2.0]/'
mistake unknownkey diesel-animation "$w" '0,/^    position:/s//    positon:/'
mistake enum diesel-animation "$w" '0,/type: rot_packed/s//type: rot_pakced/'
mistake layout diesel-animation "$w" 's/layout: 32-bit/layout: 16-bit/'
mistake jazzflag sims3-jazz "$tmp/v/wave.yaml" 's/^flags: \[UnilateralActor\]/flags: [UnilateralActr]/'
mistake jazzkey sims3-jazz "$tmp/v/wave.yaml" '0,/^    transitions:/s//    transition:/'
mistake jazzkind sims3-jazz "$tmp/v/wave.yaml" '0,/kind: random/s//kind: randm/'
mistake motnarity shenmue-motn "$tmp/v/motion.yaml" '0,/- \[4, 2, 1.125, 0.0\]/s//- [4, 2, 1.125]/'
mistake motnkey shenmue-motn "$tmp/v/motion.yaml" 's/^  attr_high:/  attr_hi:/'
mistake reletter re-model "$tmp/v/tiny.yaml" '0,/motion: \[-50, 0, 0\]/s//motion: [-50, x, 0]/'
mistake clipkey sims3-clip "$tmp/v/clip.yaml" '0,/^    offset:/s//    offst:/'
mistake cliptype sims3-clip "$tmp/v/clip.yaml" '0,/type: F4_SuperHighPrecision_Quaternion/s//type: F4_SuperHighPrecision_Quat/'
mistake clipevent sims3-clip "$tmp/v/clip.yaml" 's/{type: Sound,/{type: Sond,/'
mistake rerecords re-model "$tmp/v/tiny.yaml" 's/records: re3-relative/records: re3-relativ/'
mistake rekey re-model "$tmp/v/tiny.yaml" '0,/^        y_offset: -905/s//        y_ofset: -905/'
mistake reflag re-model "$tmp/v/tiny.yaml" '0,/\[1, footfall\]/s//[1, footfal]/'
mistake reangle re-model "$tmp/v/tiny.yaml" '0,/- \[0, 5, 0\]/s//- [0, 5]/'
mistake rigkey sims3-rig "$tmp/v/rig.yaml" '0,/^    parent:/s//    parnt:/'
mistake rigref sims3-rig "$tmp/v/rig.yaml" 's/^    info_nodes: \[lid, null, /    info_nodes: [lid, /'

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
