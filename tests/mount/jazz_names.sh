# A name typed into a Jazz view survives the save: the state that shows as a hash
# (no name map knows it) is renamed in the view; after the save the view shows the
# new name (the daemon's user dictionary, ANIMFS_NAMES, learned it), and so does a
# fresh mount. No samples needed.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
ANIMFS_NAMES= "$ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$GAME/wave.jazz" || fail "encode"
export ANIMFS_NAMES=$T/names.txt
v=$VIEW/wave.jazz.yaml
mount_view_fg
hash=$(sed -n 's/^  - name: \(0x[0-9A-F]*\)$/\1/p' "$v" | head -1)
[ -n "$hash" ] || fail "no state shows as a hash: $(head -30 "$v")"
sed "s/$hash/WaveAtNeighbour/g" "$v" > "$T/new.yaml"
cp "$T/new.yaml" "$v" || fail "the save was refused: $(cat "$VIEW/.animfs/errors")"
grep -q '^  - name: WaveAtNeighbour$' "$v" || fail "the view shows the state as $(grep -c "$hash" "$v") hashes"
grep -q "$hash" "$v" && fail "the hash is still shown"
grep -qx 'WaveAtNeighbour' "$ANIMFS_NAMES" || fail "the daemon did not learn the name"
cmp -s "$v" <(view_decode "$GAME/wave.jazz") || fail "the view differs from a decode"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
mount_view_fg
grep -q '^  - name: WaveAtNeighbour$' "$v" || fail "the name is gone after a remount"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "jazz_names: ok"
