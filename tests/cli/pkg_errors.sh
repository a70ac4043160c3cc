#!/usr/bin/env bash
# Package paths on the command line when something is wrong: unknown resource names,
# the package itself, damaged and non-2.0 packages, documents of another format.
# The package must stay byte for byte as it was after every failure.
set -u
src="${ANIMFS_SAMPLES:-}/sims3/echoweaver_WarriorCats/WarriorCats.package"
[ -f "$src" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
fails=0; n=0
t() { # t NAME EXPECTED_RC CMD... ; output in $out
	local name=$1 want=$2; shift 2
	n=$((n+1))
	out=$("$@" 2>&1); local rc=$?
	if [ "$rc" != "$want" ]; then echo "FAIL $name: exit $rc, wanted $want"; echo "$out"; fails=$((fails+1)); fi
}
has() { case "$out" in *"$1"*) ;; *) echo "FAIL: output lacks '$1':"; echo "$out"; fails=$((fails+1));; esac; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
p="$tmp/W.package"
cp "$src" "$p" && chmod u+w "$p"

t unknown-name 1 "$ANIMFS" decode "$p/nope.jazz"
has "W.package: no resource 'nope.jazz' in the package; it has index.yaml, petgardening.jazz"
t whole-package 0 "$ANIMFS" decode "$p"
has "members: # 1 shown as YAML below"
t index-to-file 0 "$ANIMFS" decode "$p/index.yaml" -o "$tmp/index.yaml"
grep -q '^package: W.package$' "$tmp/index.yaml" || { echo "FAIL: index.yaml -o"; fails=$((fails+1)); }

"$ANIMFS" decode "$p/petgardening.jazz" >"$tmp/pg.yaml"
t unknown-target 1 "$ANIMFS" encode "$tmp/pg.yaml" -o "$p/other.txt"
has "other.txt: a new resource's name ends in .jazz, .clip or .rig (its type)"
t other-format 1 "$ANIMFS" encode "$ANIMFS_SOURCE_DIR/examples/walk.animation.yaml" -o "$p/petgardening.jazz"
has "walk.animation.yaml:4:9: format diesel-animation, but petgardening.jazz is a sims3-jazz file"
printf '# broken\nformat: sims3-jazz\nname: [oops\n' >"$tmp/broken.yaml"
t broken-yaml 1 "$ANIMFS" encode "$tmp/broken.yaml" -o "$p/petgardening.jazz"
has "broken.yaml:"
cmp -s "$p" "$src" || { echo "FAIL: a failed encode changed the package"; fails=$((fails+1)); }

# damaged: the index runs past the end of a truncated copy
head -c 80000 "$src" >"$tmp/cut.package"
t damaged 1 "$ANIMFS" decode "$tmp/cut.package/index.yaml"
has "cut.package: byte 0x40: the index at 0x143F3, 1072 bytes, runs past the end of the 80000-byte file"
mkdir "$tmp/game" && cp "$tmp/cut.package" "$tmp/game/"
t check-damaged 1 "$ANIMFS" check "$tmp/game"
has "FAIL $tmp/game/cut.package: package: byte 0x40:"
has "packages: 1 (0 resources shown inside), 0 rebuilt byte for byte, 0 failed, 1 refused as damaged"
has "0 of 0 decoded files identical, 1 refused as damaged"

# DBPF 2.1 (The Sims 4) is not ours: not a folder, not claimed by check
{ head -c 8 "$src"; printf '\001\000\000\000'; tail -c +13 "$src"; } >"$tmp/game/s4.package"
rm "$tmp/game/cut.package"
t v21-path 1 "$ANIMFS" decode "$tmp/game/s4.package/index.yaml"
has "cannot open"
t v21-check 0 "$ANIMFS" check "$tmp/game"
has "not claimed: 1 file"

# a header field the rebuild writes its own way: the check compares the rebuild with
# the file as it is handed over in pieces and names the first byte that differs
rm "$tmp/game/s4.package"
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[0x28] ^= 0x5A; open(sys.argv[2], "wb").write(d)' \
  "$src" "$tmp/game/hdr.package"
size=$(stat -c %s "$src")
t check-rebuild-differs 1 "$ANIMFS" check "$tmp/game"
has "FAIL $tmp/game/hdr.package: a sims3-package rebuild without edits differs from offset 0x28 ($size bytes in, $size out)"
has "packages: 1 (1 resources shown inside), 0 rebuilt byte for byte, 1 failed"

echo "$((n - fails)) of $n passed"
[ $fails -eq 0 ]
