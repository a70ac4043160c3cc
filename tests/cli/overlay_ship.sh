#!/usr/bin/env bash
# `animfs overlay ship MODDIR DEST` (issue 46): a mod folder's files copied to where the
# game loads mods from. A Sims 3 override package (MODDIR/Packages/p.package, the name of
# the package it overrides) goes to the name `overlay status` gives (Overrides/Packages/
# p.override.package), never over the package it fixes, which DEST (a Mods folder) holds
# at MODDIR's name; DEST/Resource.cfg gains the lines that read Overrides/ above
# Packages/, once, and the game's rule (tests/tools/resource_cfg.py) then loads the
# override above the original. A loose file keeps its path (PAYDAY 2's mod_overrides/<mod>).
# Copies have the source's mode less the umask; nothing is replaced without --force (and
# then nothing at all is copied); no temp file stays. No samples needed (examples/).
set -u
A=${ANIMFS:?set ANIMFS to the animfs binary}
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
G=$tmp/game M=$tmp/mod D=$tmp/Mods
mkdir -p "$G/anims" "$G/Packages" "$M" "$D/Packages"
"$A" encode "$src/examples/walk.animation.yaml" -o "$G/anims/walk.animation" &&
	"$A" encode "$src/examples/wave_hello.jazz.yaml" -o "$tmp/wave.jazz" &&
	python3 "$src/tests/mount/mkpackage.py" "$G/Packages/p.package" "02D5DF13:1:$tmp/wave.jazz" \
		"02D5DF13:2:$tmp/wave.jazz" || fail "making GAME"
# the mod: one changed value of a loose file, one of a package's resource
m=S3_02D5DF13_00000000_0000000000000002.jazz
"$A" decode "$G/anims/walk.animation" | sed 's/^length: *[^ #]*/length: 2.5/' > "$tmp/w.yaml" &&
	"$A" decode "$G/Packages/p.package/$m" | sed '0,/speed: 1.0/s//speed: 1.5/' > "$tmp/j.yaml" &&
	"$A" encode "$tmp/w.yaml" -o "$G/anims/walk.animation" --overlay "$M" --game "$G" &&
	"$A" encode "$tmp/j.yaml" -o "$G/Packages/p.package/$m" --overlay "$M" --game "$G" || fail "making MODDIR"
[ -f "$M/Packages/p.package" ] && [ -f "$M/anims/walk.animation" ] || fail "MODDIR: $(find "$M" -type f)"
chmod 664 "$M/anims/walk.animation" && chmod 640 "$M/Packages/p.package"
# DEST: the Mods framework (Packages/ at Priority 500), the package being fixed in it
cp "$G/Packages/p.package" "$D/Packages/p.package"
{ printf 'Priority 500\r\n'
  for g in '*' '*/*' '*/*/*' '*/*/*/*' '*/*/*/*/*'; do printf 'PackedFile Packages/%s.package\r\n' "$g"; done
} > "$D/Resource.cfg"
chmod 640 "$D/Resource.cfg"
"$A" overlay status "$G" "$M" > "$tmp/status" || fail "overlay status"
dest=$(sed -n 's/^install  Packages\/p\.package -> \([^ ]*\) (.*/\1/p' "$tmp/status")
[ "$dest" = Overrides/Packages/p.override.package ] || fail "the install line: $(cat "$tmp/status")"
(umask 022 && "$A" overlay ship "$M" "$D") > "$tmp/out" 2> "$tmp/err" || fail "ship: $(cat "$tmp/err")"
printf '%-8s %s -> %s\n' shipped Packages/p.package "$dest" shipped anims/walk.animation anims/walk.animation |
	cmp -s - <(grep '^shipped' "$tmp/out") || fail "ship said: $(cat "$tmp/out")"
cmp -s "$D/Packages/p.package" "$G/Packages/p.package" || fail "the package being fixed changed"
cmp -s "$D/$dest" "$M/Packages/p.package" || fail "the override is not MODDIR's at $dest"
cmp -s "$D/anims/walk.animation" "$M/anims/walk.animation" || fail "the loose file is not at its path"
[ "$(stat -c %a "$D/$dest") $(stat -c %a "$D/anims/walk.animation")" = "640 644" ] ||
	fail "modes (the source's less umask 022): $(stat -c '%n %a' "$D/$dest" "$D/anims/walk.animation")"
[ "$(stat -c %a "$D/Resource.cfg")" = 640 ] || fail "Resource.cfg's mode changed"
python3 "$src/tests/tools/resource_cfg.py" "$D" Packages/p.package "$dest" > /dev/null ||
	fail "the shipped override does not load above the package it fixes: $(cat "$D/Resource.cfg")"
echo "ok: shipped under the install name, the original untouched, loaded above it"
# again: DEST has them, nothing is copied without --force; with it, replaced (umask 077)
echo changed > "$D/anims/walk.animation"
sums() { (cd "$D" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums > "$tmp/d.sums"
"$A" overlay ship "$M" "$D" > /dev/null 2> "$tmp/err" && fail "a second ship replaced files"
grep -q -- '--force replaces it' "$tmp/err" || fail "the refusal names no --force: $(cat "$tmp/err")"
sums | cmp -s - "$tmp/d.sums" || fail "a refused ship changed DEST"
(umask 077 && "$A" overlay ship --force "$M" "$D") > /dev/null 2> "$tmp/err" || fail "ship --force: $(cat "$tmp/err")"
cmp -s "$D/anims/walk.animation" "$M/anims/walk.animation" || fail "--force did not replace the file"
[ "$(stat -c %a "$D/anims/walk.animation")" = 600 ] || fail "--force under umask 077: $(stat -c %a "$D/anims/walk.animation")"
[ "$(grep -c $'^Priority 501\r$' "$D/Resource.cfg")" = 1 ] || fail "Resource.cfg's lines added twice: $(cat "$D/Resource.cfg")"
[ -z "$(find "$D" -name '.animfs-tmp-*')" ] || fail "temp files left: $(find "$D" -name '.animfs-tmp-*')"
cmp -s "$D/Packages/p.package" "$G/Packages/p.package" || fail "the package being fixed changed"
echo "ok: nothing replaced without --force"
# refusals: no DEST, DEST inside MODDIR
"$A" overlay ship "$M" "$tmp/none" > /dev/null 2>&1 && fail "ship to no folder"
mkdir "$M/out" && "$A" overlay ship "$M" "$M/out" > /dev/null 2>&1 && fail "ship into MODDIR"
rmdir "$M/out"
"$A" overlay ship "$M" > /dev/null 2>&1; [ $? = 2 ] || fail "ship without DEST is not a usage error"
# a package deep in GAME (the game's own GameData/Shared/Packages): its override still lands
# where Resource.cfg's lines read (Overrides/ and one folder below), its folders one name
G2=$tmp/game2 M2=$tmp/mod2 D2=$tmp/Mods2
mkdir -p "$G2/GameData/Shared/Packages" "$M2" "$D2/Packages"
cp "$G/Packages/p.package" "$G2/GameData/Shared/Packages/q.package"
"$A" encode "$tmp/j.yaml" -o "$G2/GameData/Shared/Packages/q.package/$m" --overlay "$M2" --game "$G2" ||
	fail "making the deep MODDIR"
cp "$D/Resource.cfg" "$D2/Resource.cfg" && sed -i '/Priority 501/,$d' "$D2/Resource.cfg" &&
	cp "$G/Packages/p.package" "$D2/Packages/p.package"
"$A" overlay ship "$M2" "$D2" > "$tmp/out2" 2> "$tmp/err" || fail "ship deep: $(cat "$tmp/err")"
deep=Overrides/GameData-Shared-Packages/q.override.package
cmp -s "$D2/$deep" "$M2/GameData/Shared/Packages/q.package" || fail "the deep override is not at $deep: $(cat "$tmp/out2")"
python3 "$src/tests/tools/resource_cfg.py" "$D2" Packages/p.package "$deep" > /dev/null ||
	fail "the deep override is not loaded above Packages/: $(cat "$D2/Resource.cfg")"
echo "ok: a deep package's override is loaded"
echo "overlay_ship: ok"
