# Listing and exact sizes: every sample (mount/listing_full; mount/listing: a fixed
# representative subset) appears as <name>.yaml with the size and bytes of `animfs decode`, the binary is not listed (its own name still names it), other files pass through, folders show,
# a file a codec claims but cannot decode shows as the plain binary, and a cold mount
# of a thousand files is instant.
. "$(dirname "$0")/common.inc"
need_samples
copy_samples
mkdir -p "$GAME/sub/deeper"
printf 'plain text\n' > "$GAME/sub/readme.txt"
cp "$GAME/$(pick_small)" "$GAME/sub/deeper/moved.animation"
# a claimed name whose content does not decode: first 64 bytes only
head -c 64 "$GAME/$(pick_small)" > "$GAME/broken.animation"
mount_view
# each Diesel sample (mount/listing_full), or those of the representative subset
# (sample_files, tests/samples.inc: the smallest and the largest)
bins=()
while IFS= read -r -d '' f; do
  case $f in "$ANIMFS_SAMPLES"/diesel/*.animation) bins+=("$GAME/$(basename "$f")") ;; esac
done < <(sample_files "$ANIMFS_SAMPLES")
n=0
for bin in "${bins[@]}"; do
  b=$(basename "$bin")
  v="$VIEW/$b.yaml"
  [ -f "$v" ] || fail "$b.yaml not listed"
  view_decode "$bin" > "$T/expect" || fail "decode $b"
  [ "$(stat -c %s "$v")" = "$(stat -c %s "$T/expect")" ] || fail "st_size of $b.yaml differs"
  cmp -s "$v" "$T/expect" || fail "content of $b.yaml differs from decode"
  cmp -s "$VIEW/$b" "$bin" || fail "the binary's own name $b does not name it (unlisted)"
  n=$((n + 1))
done
[ $n -ge 1 ] || fail "no samples"
# (the one that does not decode is listed as itself, from the first listing on)
ls "$VIEW" | grep '\.animation$' | grep -qvx broken.animation && fail "a claimed binary is listed"
ls "$VIEW" | grep -qx broken.animation.yaml && fail "a view of the undecodable file is listed"
[ -f "$VIEW/sub/deeper/moved.animation.yaml" ] || fail "nested view missing"
[ "$(cat "$VIEW/sub/readme.txt")" = "plain text" ] || fail "pass-through read"
echo more >> "$VIEW/sub/readme.txt"
[ "$(tail -1 "$GAME/sub/readme.txt")" = more ] || fail "pass-through write"
[ -f "$VIEW/broken.animation" ] || fail "undecodable file not shown as its binary"
cmp -s "$VIEW/broken.animation" "$GAME/broken.animation" || fail "undecodable pass-through bytes"
[ -e "$VIEW/broken.animation.yaml" ] && fail "undecodable file shown as a view"
[ -f "$VIEW/.animfs/errors" ] || fail ".animfs/errors missing"
{ echo x > "$VIEW/.animfs/errors"; } 2>/dev/null && fail ".animfs/errors is writable"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"

# Every sample of every format: a file `animfs decode` takes shows as its exact view,
# a Sims 3 package as a folder with its index.yaml, any other file as itself (no codec
# yet, or one that refuses it). The default tier checks the smallest and the largest
# file of each format folder and extension (sample_files, tests/samples.inc);
# mount/listing_full, in the slow tier, every file.
cp -r "$ANIMFS_SAMPLES" "$GAME/all"
chmod -R u+w "$GAME/all"
mount_view
views=0 plain=0
while IFS= read -r -d '' f; do
  rel=${f#"$GAME"/}
  if "$EXPECT_ANIMFS" decode --schema-ref none "$f/index.yaml" > "$T/expect" 2>/dev/null; then
    [ -d "$VIEW/$rel" ] || fail "package $rel is not a folder"
    cmp -s "$VIEW/$rel/index.yaml" "$T/expect" || fail "$rel/index.yaml differs from decode"
    views=$((views + 1))
  elif view_decode "$f" > "$T/expect" 2>/dev/null; then
    cmp -s "$VIEW/$rel.yaml" "$T/expect" || fail "$rel.yaml differs from decode"
    [ "$(stat -c %s "$VIEW/$rel.yaml")" = "$(stat -c %s "$T/expect")" ] || fail "$rel.yaml size"
    views=$((views + 1))
  else
    cmp -s "$VIEW/$rel" "$f" || fail "$rel is not passed through"
    plain=$((plain + 1))
  fi
done < <(sample_files "$GAME/all")
echo "all samples: $views views, $plain passed through"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"

# Cold mount of many files: nothing is decoded until a file is stat'ed or opened.
rm -rf "$GAME"/* && mkdir "$GAME/many"
src=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -1)
# (by two tee, not a thousand cp: 0.3 CPU s instead of 9 on a loaded machine)
tee "$GAME"/many/a{1..500}.animation < "$src" > /dev/null || fail "copies"
tee "$GAME"/many/a{501..1000}.animation < "$src" > /dev/null || fail "copies"
start=$(date +%s%N)
mount_view
count=$(ls "$VIEW/many" | grep -c '\.animation\.yaml$')
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$count" = 1000 ] || fail "listed $count of 1000"
echo "mount + cold listing of 1000 files: ${ms} ms"
[ $ms -lt 5000 ] || fail "cold mount and listing took ${ms} ms"
echo "ok: listing"
