# Siblings are read as the caller (issue 42): a Jazz view takes names from the _KEY
# maps beside it, and a caller who may not read a map sees the view without its names,
# as `animfs decode` run by that caller does; the view of the same file to a user who
# may read the map shows them. Neither user's text reaches the other through the
# shared render cache, whichever renders first. When B makes the map readable to all,
# A's next open shows the names, and when B makes it B's alone again, A's next open
# shows the hashes (issue 43: a text is checked against the siblings it read). Needs
# the Sims 3 sample (skipped without it, said so).
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
need_samples
s=$ANIMFS_SAMPLES/sims3/echoweaver_WarriorCats
[ -d "$s" ] || { echo "SKIP: $s is absent"; exit 77; }
mkdir -m 777 "$GAME/pub" "$T/alone"
cp "$s"/*JAZZ.jazz "$T/alone/pg.jazz"
cp "$s"/*_KEY.keyname "$T/alone/k.keyname"
"$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$T/alone/pg.jazz" > "$T/with-map.yaml"
rm "$T/alone/k.keyname"
"$EXPECT_ANIMFS" decode --schema-ref ../.animfs/schema "$T/alone/pg.jazz" > "$T/without-map.yaml"
cmp -s "$T/with-map.yaml" "$T/without-map.yaml" && fail "precondition: the map must change the view"
cp "$s"/*JAZZ.jazz "$GAME/pub/pg.jazz" && chown "$UA" "$GAME/pub/pg.jazz" && chmod 644 "$GAME/pub/pg.jazz"
cp "$s"/*_KEY.keyname "$GAME/pub/names.keyname" && chown "$UB" "$GAME/pub/names.keyname" &&
  chmod 600 "$GAME/pub/names.keyname"
mount_view_fg -o allow_other
v=$VIEW/pub/pg.jazz.yaml
for round in 1 2; do # B first, then A; after a remount A first, then B
  if [ $round = 1 ]; then order="b a"; else order="a b"; fi
  for who in $order; do
    "as_$who" cat "$v" > "$T/$who.yaml" || fail "$round: $who cannot read the view"
    size=$("as_$who" stat -c %s "$v")
    want=$T/with-map.yaml; [ $who = a ] && want=$T/without-map.yaml
    cmp -s "$T/$who.yaml" "$want" ||
      fail "$round: $who's view is not the decode $who would make ($(diff "$want" "$T/$who.yaml" | head -5))"
    [ "$size" = "$(stat -c %s "$want")" ] || fail "$round: $who's stat shows $size bytes"
  done
  echo "ok $round: order $order: A sees hashes, B sees B's names"
  if [ $round = 2 ]; then
    chmod 644 "$GAME/pub/names.keyname"
    as_a cat "$v" > "$T/a.yaml" || fail "A cannot read the view"
    cmp -s "$T/a.yaml" "$T/with-map.yaml" || fail "the map made readable: A's next open shows no names"
    chmod 600 "$GAME/pub/names.keyname"
    as_a cat "$v" > "$T/a.yaml" || fail "A cannot read the view"
    cmp -s "$T/a.yaml" "$T/without-map.yaml" || fail "the map made B's again: A's next open shows names"
    [ "$(as_a stat -c %s "$v")" = "$(stat -c %s "$T/without-map.yaml")" ] || fail "A's stat after the change"
    as_b cat "$v" > "$T/b.yaml" && cmp -s "$T/b.yaml" "$T/with-map.yaml" || fail "B's view after the changes"
    echo "ok: a map made readable, then unreadable, is seen at A's next open"
  fi
  "$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
  check_daemon
  [ $round = 1 ] && mount_view_fg -o allow_other
done
echo "caller_siblings: ok"
