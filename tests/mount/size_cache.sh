#!/usr/bin/env bash
# The persistent size cache: a second mount lists sizes without decoding, and a
# file changed between mounts (or a changed name) is sized anew, never from the cache;
# readers at once of a view the cache sized render it once.
. "$(dirname "$0")/common.inc"
copy_samples
export XDG_CACHE_HOME=$T/cache
sizes() { (cd "$VIEW" && stat -c '%n %s' -- *.yaml); } # "NAME SIZE" a view, one stat for all
truth() { (cd "$GAME" && for f in *.animation; do printf '%s.yaml %s\n' "$f" "$("$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$f" | wc -c)"; done); }

mount_view_fg
first=$(sizes)
"$EXPECT_ANIMFS" umount "$VIEW"; check_daemon
ls "$T/cache/animfs/"sizes-* >/dev/null 2>&1 || fail "no size file kept in XDG_CACHE_HOME/animfs"

# change one file between mounts: a longer length line makes a longer YAML
small=$(pick_small)
"$ANIMFS" decode --schema-ref none "$GAME/$small" | sed 's/^length: *[^ ]*/length: 12.345678/' > "$T/e.yaml"
"$ANIMFS" encode "$T/e.yaml" -o "$GAME/$small" || fail "encode"
mv "$GAME/$(ls "$GAME" | grep -v "^$small" | sed -n 1p)" "$GAME/renamed.animation"

mount_view_fg
second=$(sizes)
[ "$second" = "$(truth)" ] || fail "second mount sizes differ from the decoded texts:
$(diff <(echo "$second") <(truth))"
[ "$first" != "$second" ] || fail "the edited file kept its old size"
# and the texts agree with the sizes
texts=$(cd "$VIEW" && wc -c -- *.yaml | awk '$2 != "total" { print $2, $1 }') # one wc for all
[ "$texts" = "$second" ] || fail "sizes and texts disagree: $(diff <(echo "$second") <(echo "$texts"))"
"$EXPECT_ANIMFS" umount "$VIEW"; check_daemon

# Readers at once of a view whose size the cache knows (so no lookup renders it): the
# kernel asks on several threads, and the binary is rendered once (view.c's flights);
# every reader gets the whole text.
keys_doc "$T/big.yaml" 100000
"$ANIMFS" encode "$T/big.yaml" -o "$GAME/big.animation" || fail "encode big.yaml"
"$EXPECT_ANIMFS" decode --schema-ref .animfs/schema "$GAME/big.animation" > "$T/big.expect" || fail "decode big"
mount_view_fg
ls -l "$VIEW" > /dev/null
"$EXPECT_ANIMFS" umount "$VIEW"; check_daemon
mount_view_fg
ls -l "$VIEW" > /dev/null
before=$(awk '/^renders / {print $2}' "$VIEW/.animfs/stats")
readers=()
for i in 1 2 3 4 5 6 7 8; do
  cat "$VIEW/big.animation.yaml" > "$T/big.$i" &
  readers+=($!)
done
wait "${readers[@]}" || fail "a reader failed"
after=$(awk '/^renders / {print $2}' "$VIEW/.animfs/stats")
[ "$((after - before))" = 1 ] || fail "8 readers at once rendered the view $((after - before)) times"
for i in 1 2 3 4 5 6 7 8; do
  cmp -s "$T/big.$i" "$T/big.expect" || fail "reader $i got another text"
done
"$EXPECT_ANIMFS" umount "$VIEW"; check_daemon
echo ok
