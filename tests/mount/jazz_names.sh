# A name typed into a Jazz view survives the save: the state that shows as a hash
# (no name map knows it) is renamed in the view; after the save the view shows the
# new name (the daemon's user dictionary, ANIMFS_NAMES, learned it), and so does a
# fresh mount. Another view, read before, shows the names written into the dictionary
# behind the daemon's back at its next open (its text read the dictionary). No samples
# needed for that.
# Then (issue 43) a Jazz view follows the _KEY name map beside it without a remount:
# the next open after the map is added, changed in place, replaced by a link (never
# read: as if unreadable), made unreadable or removed shows the text a decode makes
# then (the kernel's pages and the render cache's text of before are not used), its
# stat the same size. Needs the Sims 3 samples (that part is skipped without them, said so).
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
ANIMFS_NAMES= "$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$GAME/wave.jazz" || fail "encode"
cp "$GAME/wave.jazz" "$GAME/other.jazz"
export ANIMFS_NAMES=$T/names.txt
v=$VIEW/wave.jazz.yaml
mount_view_fg
hash=$(sed -n 's/^  - name: \(0x[0-9A-F]*\)$/\1/p' "$v" | head -1)
[ -n "$hash" ] || fail "no state shows as a hash: $(head -30 "$v")"
for i in 1 2; do grep -q "^  - name: $hash\$" "$VIEW/other.jazz.yaml" || fail "precondition: the other view shows the hash"; done
sed "s/$hash/WaveAtNeighbour/g" "$v" > "$T/new.yaml"
cp "$T/new.yaml" "$v" || fail "the save was refused: $(cat "$VIEW/.animfs/errors")"
grep -q '^  - name: WaveAtNeighbour$' "$v" || fail "the view shows the state as $(grep -c "$hash" "$v") hashes"
grep -q "$hash" "$v" && fail "the hash is still shown"
grep -qx 'WaveAtNeighbour' "$ANIMFS_NAMES" || fail "the daemon did not learn the name"
grep -o 'name: .*' "$src/examples/wave_hello.jazz.yaml" | sed 's/name: //; s/"//g' >> "$ANIMFS_NAMES"
grep -q '^  - name: Greet$' "$VIEW/other.jazz.yaml" ||
  fail "the other view, read before, does not show the names added to the dictionary"
cmp -s "$VIEW/other.jazz.yaml" <(view_decode "$GAME/other.jazz") || fail "the other view differs from a decode"
cmp -s "$v" <(view_decode "$GAME/wave.jazz") || fail "the view differs from a decode"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
mount_view_fg
grep -q '^  - name: WaveAtNeighbour$' "$v" || fail "the name is gone after a remount"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon

s=$ANIMFS_SAMPLES/sims3/echoweaver_WarriorCats
m2=$ANIMFS_SAMPLES/sims3/echoweaver_PetDisease
if [ ! -d "$s" ] || [ ! -d "$m2" ]; then
  echo "SKIP part: the Jazz samples ($s, $m2) are absent: the name map's changes are not tested"
  echo "jazz_names: ok"
  exit 0
fi
mkdir "$GAME/cats"
cp "$s"/*JAZZ.jazz "$GAME/cats/pg.jazz"
map=$GAME/cats/names.keyname v=$VIEW/cats/pg.jazz.yaml
cp "$s"/*_KEY.keyname "$T/map1"
cp "$m2"/*_KEY.keyname "$T/map2"
# the view as a decode makes it now, read by new processes twice (pages kept), its size
same_as_decode() {
  view_decode "$GAME/cats/pg.jazz" > "$T/want.yaml" 2> /dev/null || fail "$1: decode"
  for i in 1 2; do
    cmp -s "$v" "$T/want.yaml" || fail "$1 (read $i): the view shows $(diff "$T/want.yaml" "$v" | head -6)"
  done
  [ "$(stat -c %s "$v")" = "$(stat -c %s "$T/want.yaml")" ] || fail "$1: stat shows $(stat -c %s "$v") bytes"
  md5sum < "$T/want.yaml"
}
jazz_round() { # jazz_round [MOUNT OPTIONS]
  rm -f "$map"
  mount_view_fg "$@"
  echo "mount $*"
  h0=$(same_as_decode "without a map")
  cp "$T/map1" "$map"
  h1=$(same_as_decode "a map added")
  [ "$h1" != "$h0" ] || fail "precondition: the map must change the view"
  cat "$T/map2" > "$map" # in place: the same inode
  h2=$(same_as_decode "the map changed in place")
  [ "$h2" != "$h1" ] || fail "precondition: the other map must change the view"
  cp "$T/map1" "$T/map1.new" && mv "$T/map1.new" "$map" # replaced by a rename
  [ "$(same_as_decode "the map replaced")" = "$h1" ] || fail "the map replaced: not the first map's names"
  rm "$map" && ln -s "$T/map1" "$map" # a link is never read as a sibling
  [ "$(same_as_decode "the map a link")" = "$h0" ] || fail "the map a link: names shown"
  rm "$map" && cp "$T/map1" "$map"
  same_as_decode "the map back" > /dev/null
  if [ "$(id -u)" != 0 ]; then # root reads it anyway
    chmod 000 "$map"
    [ "$(same_as_decode "the map unreadable")" = "$h0" ] || fail "the map unreadable: names shown"
    chmod 644 "$map"
    same_as_decode "the map readable again" > /dev/null
  fi
  rm "$map"
  [ "$(same_as_decode "the map removed")" = "$h0" ] || fail "the map removed: names shown"
  "$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
  check_daemon
  echo "ok: the view follows its name map ($*)"
}
jazz_round
jazz_round -o attr_cache=60
echo "jazz_names: ok"
