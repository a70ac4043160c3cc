#!/usr/bin/env bash
# GNOME Files' WebDAV client (gvfs, driven by gio in a private D-Bus session) on animfs
# serve: the folder lists a view per binary, a view reads as its decode, an edited view
# saved by gio (GIO's replace, as gedit and GNOME Files do) gives encode's binary, a
# refused save fails with the server's reason and leaves the binary, and a binary copied
# in, a folder made, a move and a removal land in GAME.
. "$(dirname "$0")/dav.inc"
need_samples
command -v gio >/dev/null && command -v dbus-run-session >/dev/null &&
  [ -x /usr/libexec/gvfsd-dav ] ||
  { echo "SKIP: gvfs (gvfs-backends, gvfs-daemons), gio or dbus missing (scripts/setup installs them)"; exit 77; }
small=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -1 | xargs -n1 basename)
other=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -2 | head -1 | xargs -n1 basename)
cp "$ANIMFS_SAMPLES/diesel/$small" "$GAME/"
cp "$ANIMFS_SAMPLES/diesel/$other" "$T/other.animation"
chmod u+w "$GAME"/*
start_serve
"$PLAIN" decode --schema-ref .animfs/schema "$GAME/$small" > "$T/want.yaml" || fail "decode"
len=$(sed -n 's/^length: *\([^ ]*\).*/\1/p' "$T/want.yaml")
sed "s/^length: *$len /length: 2.5 /" "$T/want.yaml" > "$T/e.yaml"
grep -q "^length: 2.5 " "$T/e.yaml" || fail "cannot make the edit"
"$PLAIN" encode "$T/e.yaml" -o "$T/e.animation" 2>/dev/null || fail "encode of the edit"
sed "s/^length: 2.5 /length: [2.5 /" "$T/e.yaml" > "$T/bad.yaml"
D=dav://${U#http://}
# every step in one session: gvfs's daemons live as long as its bus
cat > "$T/steps.sh" <<STEPS
set -u
fail() { echo "FAIL: \$*"; exit 1; }
gio mount "$D/" || fail "gio mount"
gio list "$D/" > "$T/list" || fail "gio list"
grep -qx "$small.yaml" "$T/list" || fail "the listing has no $small.yaml: \$(cat "$T/list")"
gio cat "$D/$small.yaml" > "$T/got.yaml" || fail "gio cat"
cmp -s "$T/got.yaml" "$T/want.yaml" || fail "the view over gvfs differs from its decode"
gio save "$D/$small.yaml" < "$T/e.yaml" || fail "gio save of the edit"
cmp -s "$GAME/$small" "$T/e.animation" || fail "gio's save did not give encode's binary"
cp "$GAME/$small" "$T/kept.animation"
if gio save "$D/$small.yaml" < "$T/bad.yaml" 2> "$T/bad.err"; then
  fail "gio save of a broken view succeeded"
fi
cmp -s "$GAME/$small" "$T/kept.animation" || fail "a refused save changed the binary"
gio copy "$T/other.animation" "$D/new.animation" || fail "gio copy of a binary in"
cmp -s "$GAME/new.animation" "$T/other.animation" || fail "the binary copied in is not in GAME"
gio mkdir "$D/mods" || fail "gio mkdir"
gio move "$D/new.animation" "$D/mods/new.animation" || fail "gio move"
[ -f "$GAME/mods/new.animation" ] && [ ! -e "$GAME/new.animation" ] || fail "gio move did not move in GAME"
gio list "$D/mods/" | grep -qx new.animation.yaml || fail "the moved binary has no view"
gio remove "$D/mods/new.animation" || fail "gio remove"
[ ! -e "$GAME/mods/new.animation" ] || fail "gio remove left the binary"
gio mount -u "$D/" || fail "gio mount -u"
echo OK
STEPS
timeout 120 dbus-run-session -- bash "$T/steps.sh" > "$T/steps.out" 2> "$T/steps.err"
grep -qx OK "$T/steps.out" || { cat "$T/steps.err" >&2; fail "$(grep FAIL "$T/steps.out" || echo "the gio session ended early")"; }
echo "gio's refusal: $(tr '\n' ' ' < "$T/bad.err")"
stray=$(cd "$GAME" && ls -A | grep -vx "$small" | grep -vx mods || true)
[ -z "$stray" ] || fail "stray files in GAME: $stray"
stop_serve
echo "PASS: gvfs (GNOME Files): list, read, save, refusal, copy, mkdir, move, remove"
