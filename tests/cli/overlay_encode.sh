#!/usr/bin/env bash
# `animfs encode X.yaml --overlay MODDIR` (issue 32): the command line saves as the mount
# with --overlay does. GAME (read-only) is never written: a loose binary lands in MODDIR
# at its GAME path, a package member as MODDIR's package of only the changed resources
# (the independent reader pkgread.py checks), which goes again when the edit is undone;
# `animfs overlay status` names each change. No samples needed (examples/).
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
# a loose file, from inside GAME (GAME: the current folder)
"$A" decode "$G/anims/walk.animation" | sed 's/^length: *[^ #]*/length: 2.5/' > "$tmp/w.yaml"
(cd "$G" && "$A" encode "$tmp/w.yaml" -o anims/walk.animation --overlay "$M") || fail "encode --overlay"
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
printf '%-8s %s\n' changed anims/walk.animation changed "p.package/$m" | cmp -s - "$tmp/status" ||
  fail "overlay status: $(cat "$tmp/status")"
# undone: no override
"$A" encode "$tmp/j0.yaml" -o "$G/p.package/$m" --overlay "$M" --game "$G" 2>/dev/null || fail "encode the original"
[ ! -e "$M/p.package" ] || fail "the override stays though nothing differs"
# a path outside GAME is refused
"$A" encode "$tmp/w.yaml" -o "$tmp/elsewhere.animation" --overlay "$M" --game "$G" 2>/dev/null &&
  fail "a file outside GAME was encoded into MODDIR"
sums | cmp -s - "$tmp/game.sums" || fail "GAME changed"
echo "ok: encode --overlay"
