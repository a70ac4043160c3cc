# With -o allow_other, other users get exactly what the backing files allow
# (default_permissions): `nobody` cannot read a 0600 view nor write a 0644 one it
# does not own, can read the 0644 one, and the 0600 binary stays unread and unchanged.
. "$(dirname "$0")/common.inc"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to switch to another user"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "SKIP: no user 'nobody'"; exit 77; }
if command -v setpriv >/dev/null; then
  as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
elif command -v runuser >/dev/null; then
  as_nobody() { runuser -u nobody -- "$@"; }
else
  echo "SKIP: neither setpriv nor runuser"; exit 77
fi
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
chmod 755 "$T" "$GAME" "$VIEW"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/secret.animation" || fail "encode"
cp "$GAME/secret.animation" "$GAME/public.animation"
chmod 600 "$GAME/secret.animation"
chmod 644 "$GAME/public.animation"
cp "$GAME/secret.animation" "$T/orig"
mount_view_fg -o allow_other

as_nobody cat "$VIEW/public.animation.yaml" >/dev/null || fail "nobody cannot read a 0644 view"
out=$(as_nobody cat "$VIEW/secret.animation.yaml" 2>&1) && fail "nobody read a 0600 view"
echo "$out" | grep -q "Permission denied" || fail "0600 view: $out"
out=$(as_nobody cat "$VIEW/secret.animation" 2>&1) && fail "nobody read a 0600 name"
out=$(as_nobody sh -c "echo x >> '$VIEW/public.animation.yaml'" 2>&1) && fail "nobody wrote a 0644 view"
echo "$out" | grep -q "Permission denied" || fail "0644 write: $out"
out=$(as_nobody rm -f "$VIEW/public.animation.yaml" 2>&1) && [ ! -e "$VIEW/public.animation.yaml" ] &&
  fail "nobody removed a view in a 0755 folder of root"
out=$(as_nobody sh -c "echo x > '$VIEW/new.animation.yaml'" 2>&1) && fail "nobody created a view"
cmp -s "$GAME/secret.animation" "$T/orig" || fail "the 0600 binary changed"
cmp -s "$GAME/public.animation" "$T/orig" || fail "the 0644 binary changed"
[ -e "$GAME/new.animation" ] && fail "nobody's create reached GAME"
# the owner (root) still reads both
cat "$VIEW/secret.animation.yaml" >/dev/null || fail "root cannot read the 0600 view"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "permissions: ok"
