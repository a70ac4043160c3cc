#!/usr/bin/env bash
# `animfs encode X.yaml --overlay MODDIR` (issue 32): the command line saves as the mount
# with --overlay does. GAME (read-only) is never written: a loose binary lands in MODDIR
# at its GAME path, a package member as MODDIR's package of only the changed resources
# (the independent reader pkgread.py checks), which goes again when the edit is undone;
# `animfs overlay status` names each change and where an override package goes; --overlay needs --game, and each refusal
# names the option that fixes it. No samples needed (examples/).
set -u
A=${ANIMFS:?set ANIMFS to the animfs binary}
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mnt=$(dirname "$0")/../mount
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
G=$tmp/game M=$tmp/mod
mkdir -p "$G/anims" "$M"
"$A" encode "$src/examples/walk.animation.yaml" -o "$G/anims/walk.animation" || fail "encode walk"
"$A" encode "$src/examples/wave_hello.jazz.yaml" -o "$tmp/wave.jazz" || fail "encode jazz"
python3 "$mnt/mkpackage.py" "$G/p.package" "02D5DF13:1:$tmp/wave.jazz" "02D5DF13:2:$tmp/wave.jazz" || fail "mkpackage"
chmod -R a-w "$G"
sums() { (cd "$G" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums > "$tmp/game.sums"
"$A" decode "$G/anims/walk.animation" | sed 's/^length: *[^ #]*/length: 2.5/' > "$tmp/w.yaml"
# refused (issue 46): each refusal names the option that fixes it, and writes nothing
refused() { # refused WANTED-EXIT TEXT CMD...: exit WANTED-EXIT, TEXT in the message
	local want=$1 text=$2 out rc; shift 2
	out=$("$@" 2>&1); rc=$?
	[ "$rc" = "$want" ] || fail "exit $rc, not $want: $*: $out"
	case "$out" in *"$text"*) ;; *) fail "'$text' not in: $out" ;; esac
}
# GAME is never guessed from the current folder
(cd "$G" && refused 2 "--overlay needs --game GAME" "$A" encode "$tmp/w.yaml" -o anims/walk.animation --overlay "$M")
refused 1 "give -o a path in GAME, or --game the game folder it is in" \
	"$A" encode "$tmp/w.yaml" -o "$tmp/walk.animation" --overlay "$M" --game "$G"
refused 1 "(--game names the game folder)" \
	"$A" encode "$tmp/w.yaml" -o "$G/anims/walk.animation" --overlay "$M" --game "$tmp/nogame"
refused 1 "make it first; --overlay names the folder the changes go to" \
	"$A" encode "$tmp/w.yaml" -o "$G/anims/walk.animation" --overlay "$tmp/nomod" --game "$G"
refused 1 "give --overlay a folder outside GAME, or a GAME outside the mod folder" \
	"$A" encode "$tmp/w.yaml" -o "$G/anims/walk.animation" --overlay "$tmp" --game "$G"
refused 2 "--game goes with --overlay MODDIR" "$A" encode "$tmp/w.yaml" -o "$tmp/x.animation" --game "$G"
# a game's own mod folder inside the GAME given (PAYDAY 2: mounting assets/ with
# assets/mod_overrides/<mod> in it): GAME should be the unpacked assets; mount says so too
P=$tmp/PAYDAY2/assets O=$tmp/mods/mod_overrides
mkdir -p "$P/mod_overrides/My Mod" "$O" "$tmp/view"
cp "$G/anims/walk.animation" "$P/walk.animation"
refused 1 "give as --game what the mod changes, the game's assets unpacked (a copy outside the game folder)" \
	"$A" encode "$tmp/w.yaml" -o "$P/walk.animation" --game "$P" --overlay "$P/mod_overrides/My Mod"
refused 1 "give as GAME what the mod changes, the game's assets unpacked (a copy outside the game folder)" \
	"$A" mount "$P" "$tmp/view" --overlay "$P/mod_overrides/My Mod"
# --overlay-layout pd2 with the mod_overrides folder itself as MODDIR
refused 1 "give --overlay '$O/<mod>', or leave out --overlay-layout" \
	"$A" encode "$tmp/w.yaml" -o "$G/anims/walk.animation" --game "$G" --overlay "$O" --overlay-layout pd2
refused 1 "give --overlay '$O/<mod>', or leave out --overlay-layout" \
	"$A" mount "$G" "$tmp/view" --overlay "$O" --overlay-layout pd2
[ -z "$(find "$P/mod_overrides/My Mod" "$O" "$M" -mindepth 1)" ] || fail "a refused encode wrote: $(find "$P" "$O" "$M")"
mountpoint -q "$tmp/view" && fail "a refused mount mounted"
# a loose file
"$A" encode "$tmp/w.yaml" -o "$G/anims/walk.animation" --overlay "$M" --game "$G" || fail "encode --overlay"
[ "$("$A" decode "$M/anims/walk.animation" | sed -n 's/^length: *\([^ ]*\).*/\1/p')" = 2.5 ] ||
  fail "MODDIR's walk.animation is not the edit"
# a member of a package: the override holds that resource only
m=S3_02D5DF13_00000000_0000000000000002.jazz
"$A" decode "$G/p.package/$m" > "$tmp/j0.yaml" || fail "decode the member"
sed '0,/speed: 1.0/s//speed: 1.5/' "$tmp/j0.yaml" > "$tmp/j.yaml"
cmp -s "$tmp/j0.yaml" "$tmp/j.yaml" && fail "no speed to edit"
"$A" encode "$tmp/j.yaml" -o "$G/p.package/$m" --overlay "$M" --game "$G" || fail "encode a member --overlay"
python3 "$mnt/pkgread.py" diff "$G/p.package" "$M/p.package" | grep -v '^order ok$' > "$tmp/diff"
printf '%s\n' "changed 02D5DF13 00000000 0000000000000002" "removed 02D5DF13 00000000 0000000000000001" |
  cmp -s - "$tmp/diff" || fail "the override package: $(cat "$tmp/diff")"
"$A" overlay status "$G" "$M" > "$tmp/status" || fail "overlay status"
grep -v '^install ' "$tmp/status" > "$tmp/changes"
printf '%-8s %s\n' changed anims/walk.animation changed "p.package/$m" | cmp -s - "$tmp/changes" ||
  fail "overlay status: $(cat "$tmp/status")"
# where the override goes (issue 46): a name of its own, in a folder Resource.cfg reads
# above Mods/Packages. The rule as the game's Resource.cfg gives it (simswiki.info
# "Sims 3:Resource.cfg": a higher Priority overrides a lower one; the Mods framework
# reads Packages/*.package .. five folders deep at Priority 500), applied to a Mods
# folder where the package being fixed is itself a mod in Packages/.
line=$(grep '^install ' "$tmp/status") || fail "no install line: $(cat "$tmp/status")"
dest=$(echo "$line" | sed -n 's/^install  p\.package -> \([^ ]*\) (.*/\1/p')
[ "$dest" = Overrides/p.override.package ] || fail "install line: $line"
mods=$tmp/Mods
mkdir -p "$mods/Packages" "$mods/$(dirname "$dest")"
cp "$G/p.package" "$mods/Packages/p.package" && cp "$M/p.package" "$mods/Packages/p.override.package" &&
  cp "$M/p.package" "$mods/$dest" || fail "install"
cmp -s "$G/p.package" "$mods/Packages/p.package" || fail "installing the override replaced the mod it fixes"
{ printf 'Priority 500\n'
  for g in '*' '*/*' '*/*/*' '*/*/*/*' '*/*/*/*/*'; do printf 'PackedFile Packages/%s.package\n' "$g"; done
  echo "$line" | sed 's/^[^(]*(Mods\/Resource.cfg: //; s/, above .*//' | grep -o '"[^"]*"' | tr -d '"'
} > "$mods/Resource.cfg"
python3 "$src/tests/tools/resource_cfg.py" "$mods" Packages/p.package "$dest" > /dev/null ||
  fail "the override does not load above the package it fixes: $(cat "$mods/Resource.cfg")"
# undone: no override
"$A" encode "$tmp/j0.yaml" -o "$G/p.package/$m" --overlay "$M" --game "$G" 2>/dev/null || fail "encode the original"
[ ! -e "$M/p.package" ] || fail "the override stays though nothing differs"
# a path outside GAME is refused
"$A" encode "$tmp/w.yaml" -o "$tmp/elsewhere.animation" --overlay "$M" --game "$G" 2>/dev/null &&
  fail "a file outside GAME was encoded into MODDIR"
sums | cmp -s - "$tmp/game.sums" || fail "GAME changed"
echo "ok: encode --overlay"
