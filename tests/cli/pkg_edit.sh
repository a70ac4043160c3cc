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

. "$(dirname "$0")/pkg_check.inc"

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
[ "$(index_of "$tmp/orig.package" | wc -l)" = 38 ] || bad "independent reader: not 38 records"
res=$(compare_packages "$tmp/orig.package" "$pkg" "$tmp")
[ "$res" = "37 1" ] || bad "independent comparison: $res"
[ "$(stat -c %s "$pkg")" -lt 84003 ] || bad "the re-compressed package is not smaller"

# the Jazz holds the edit: the new name's hash (not in the _KEY map) replaces the old name
"$ANIMFS" decode "$pkg/petgardening.jazz" >"$tmp/after.yaml" || bad "decode after the edit"
h=$(fnv32 "Loop Sprinkle")
grep -q "^  - name: $h\$" "$tmp/after.yaml" || bad "state $h (Loop Sprinkle) not found after the edit"
grep -q "Loop Water" "$tmp/after.yaml" && bad "'Loop Water' is still there"
[ "$(diff "$tmp/pg.yaml" "$tmp/after.yaml" | grep -c '^>')" = 3 ] || bad "the edit touched more than 3 lines"

# --- check looks inside packages ---
out=$("$ANIMFS" check "$tmp/wc" 2>&1) || bad "check failed: $out"
case "$out" in *"packages: 1 (1 resources shown inside), 1 rebuilt byte for byte, 0 failed"*) ;; *) bad "check: $out";; esac
grep -qE '^sims3-jazz +2 +[0-9]+ +2 +0 ' <<<"$out" || bad "check did not count the Jazz inside: $out"

echo "$((14 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
