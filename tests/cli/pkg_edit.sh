#!/usr/bin/env bash
# A Jazz state machine edited inside a copy of the sample Sims 3 package from the
# command line (X.package/NAME.jazz), then checked independently: this script parses
# the DBPF index itself with od and compares the stored bytes of every other resource.
set -u
src="${ANIMFS_SAMPLES:-}/sims3/echoweaver_WarriorCats"
[ -f "$src/WarriorCats.package" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/wc" && chmod -R u+w "$tmp/wc"
pkg="$tmp/wc/WarriorCats.package"
cp "$pkg" "$tmp/orig.package"

# --- an independent DBPF 2.0 index reader: "type group insthi instlo offset stored" ---
index_of() {
	local f=$1 count ix size itype p k i
	count=$(od -An -tu4 -j 36 -N4 "$f" | tr -d ' ')
	size=$(od -An -tu4 -j 44 -N4 "$f" | tr -d ' ')
	ix=$(od -An -tu4 -j 64 -N4 "$f" | tr -d ' ')
	read -r -a w <<<"$(od -An -tu4 -v -j "$ix" -N "$size" "$f" | tr '\n' ' ')"
	itype=${w[0]}; p=1
	local sh=(0 0 0) v=(0 0 0)
	for k in 0 1 2; do if (( itype >> k & 1 )); then sh[$k]=${w[$p]}; p=$((p+1)); fi; done
	for ((i = 0; i < count; i++)); do
		for k in 0 1 2; do
			if (( itype >> k & 1 )); then v[$k]=${sh[$k]}; else v[$k]=${w[$p]}; p=$((p+1)); fi
		done
		echo "${v[0]} ${v[1]} ${v[2]} ${w[$p]} ${w[$((p+1))]} $(( ${w[$((p+2))]} & 0x7FFFFFFF ))"
		p=$((p+5))
	done
}
stored() { tail -c +$(( $2 + 1 )) "$1" | head -c "$3"; }

# FNV-1 32 of a lower-cased ASCII name, for the hash a new state name gets
fnv32() {
	local s=${1,,} h=2166136261 i c
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '%d' "'${s:i:1}"
		h=$(( (h * 16777619) & 0xFFFFFFFF ^ c ))
	done
	printf '0x%08X' "$h"
}

# --- the package as a folder ---
"$ANIMFS" decode "$pkg/index.yaml" >"$tmp/index.yaml" || bad "decode index.yaml"
[ "$(grep -c '^  - {type: ' "$tmp/index.yaml")" = 38 ] || bad "index.yaml does not list 38 resources"
grep -q 'tag: JAZZ, group: 0x00000000, instance: 0x91B95750336A8701, offset: 38114, stored: 2691, size: 7132, compressed: true, name: petgardening.jazz}' \
	"$tmp/index.yaml" || bad "index.yaml lacks the Jazz line"
"$ANIMFS" decode "$pkg/petgardening.jazz" >"$tmp/pg.yaml" || bad "decode petgardening.jazz"
"$ANIMFS" decode "$pkg/S3_02D5DF13_00000000_91B95750336A8701.jazz" | cmp -s - "$tmp/pg.yaml" ||
	bad "the s3pe name does not give the same document"
# the package's own _KEY names the hashes, exactly as the exported pair beside it does
"$ANIMFS" decode "$tmp/wc/S3_02D5DF13_00000000_91B95750336A8701%%+JAZZ.jazz" | cmp -s - "$tmp/pg.yaml" ||
	bad "the resource inside the package decodes differently from its export"
grep -q '^  - name: Loop Water$' "$tmp/pg.yaml" || bad "state 'Loop Water' not shown by name"

# --- unchanged save: nothing written ---
out=$("$ANIMFS" encode "$tmp/pg.yaml" -o "$pkg/petgardening.jazz" 2>&1) || bad "unchanged encode failed: $out"
case "$out" in *"unchanged; the package was not rewritten"*) ;; *) bad "no 'unchanged' note: $out";; esac
cmp -s "$pkg" "$tmp/orig.package" || bad "an unchanged save changed the package"

# --- a bad document: error with line:column, package untouched, no temp file ---
sed 's/^  - name: Loop Water$/  - name: Loop Sprinkle/' "$tmp/pg.yaml" >"$tmp/bad.yaml"
out=$("$ANIMFS" encode "$tmp/bad.yaml" -o "$pkg/petgardening.jazz" 2>&1) && bad "a dangling reference was accepted"
case "$out" in *"bad.yaml:"*:*": states["*"dangling reference"*) ;; *) bad "unexpected error text: $out";; esac
cmp -s "$pkg" "$tmp/orig.package" || bad "a failed save changed the package"
ls -a "$tmp/wc" | grep -q animfs-tmp && bad "a temporary file was left behind"

# --- the edit: rename a state everywhere ---
sed 's/Loop Water/Loop Sprinkle/g' "$tmp/pg.yaml" >"$tmp/ed.yaml"
"$ANIMFS" encode "$tmp/ed.yaml" -o "$pkg/petgardening.jazz" || bad "encode of the edit failed"
cmp -s "$pkg" "$tmp/orig.package" && bad "the edit did not change the package"

# independent check: same records in the same order; the 37 others byte-identical
index_of "$tmp/orig.package" >"$tmp/before"
index_of "$pkg" >"$tmp/after"
[ "$(wc -l <"$tmp/before")" = 38 ] || bad "independent reader: $(wc -l <"$tmp/before") records"
same=0; jazz=0
while read -r t g hi lo off size <&3 && read -r t2 g2 hi2 lo2 off2 size2 <&4; do
	[ "$t $g $hi $lo" = "$t2 $g2 $hi2 $lo2" ] || bad "record key changed: $t $g $hi $lo -> $t2 $g2 $hi2 $lo2"
	if [ "$t" = $((0x02D5DF13)) ]; then jazz=$((jazz+1)); continue; fi
	if cmp -s <(stored "$tmp/orig.package" "$off" "$size") <(stored "$pkg" "$off2" "$size2") && [ "$size" = "$size2" ]; then
		same=$((same+1))
	else
		bad "resource $t/$hi$lo changed"
	fi
done 3<"$tmp/before" 4<"$tmp/after"
[ "$same" = 37 ] && [ "$jazz" = 1 ] || bad "$same of 37 other resources identical, $jazz Jazz"
[ "$(stat -c %s "$pkg")" -lt 84003 ] || bad "the re-compressed package is not smaller"

# the Jazz holds the edit: the new name's hash (not in the _KEY map) replaces the old name
"$ANIMFS" decode "$pkg/petgardening.jazz" >"$tmp/after.yaml" || bad "decode after the edit"
h=$(fnv32 "Loop Sprinkle")
grep -q "^  - name: $h\$" "$tmp/after.yaml" || bad "state $h (Loop Sprinkle) not found after the edit"
grep -q "Loop Water" "$tmp/after.yaml" && bad "'Loop Water' is still there"
[ "$(diff "$tmp/pg.yaml" "$tmp/after.yaml" | grep -c '^>')" = 3 ] || bad "the edit touched more than 3 lines"

# --- check looks inside packages ---
out=$("$ANIMFS" check "$tmp/wc" 2>&1) || bad "check failed: $out"
case "$out" in *"packages: 1 (1 Jazz inside), 1 rebuilt byte for byte, 0 failed"*) ;; *) bad "check: $out";; esac
grep -qE '^sims3-jazz +2 +[0-9]+ +2 +0 ' <<<"$out" || bad "check did not count the Jazz inside: $out"

echo "$((14 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
