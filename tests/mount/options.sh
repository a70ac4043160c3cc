# Mount options: -o ro refuses every change (EROFS) and still shows exact views;
# --cache-mb=0 keeps no text (every open renders again) but sizes and content stay
# right; a relative GAME keeps working after the daemon left the working folder.
. "$(dirname "$0")/common.inc"
copy_samples
bin=$(pick_small)
v="$VIEW/$bin.yaml"
cp "$GAME/$bin" "$T/orig"
cd "$T"
TMPDIR="$T" "$ANIMFS" mount game view -o ro --cache-mb=0 || fail "mount -o ro"
view_decode "$GAME/$bin" > "$T/expect"
[ "$(stat -c %s "$v")" = "$(stat -c %s "$T/expect")" ] || fail "size with no text cache"
cmp -s "$v" "$T/expect" || fail "content with no text cache"
cmp -s "$v" "$T/expect" || fail "content on a second open"
out=$( { echo x >> "$v"; } 2>&1) && fail "write on a read-only mount"
echo "$out" | grep -qi "read-only" || fail "not EROFS: $out"
touch "$VIEW/new" 2>/dev/null && fail "create on a read-only mount"
rm "$v" 2>/dev/null && fail "rm on a read-only mount"
cmp "$GAME/$bin" "$T/orig" || fail "backing changed on a read-only mount"
"$ANIMFS" umount view || fail "umount (relative VIEW)"
out=$("$ANIMFS" mount game view -o nosuch 2>&1) && fail "unknown -o accepted"
echo "$out" | grep -q "unknown option" || fail "unknown -o message: $out"
echo "ok: options"
