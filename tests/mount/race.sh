# The swap race (mount/race_full in the slow tier, ANIMFS_TEST_FULL=1: 5 s for each of
# the five operations on the root-only folder, thousands of tries each; 10 s for mkdir
# and symlink, the race issue 27 saw won; mount/race in the default tier: 1 s each, the
# same operations and checks; ANIMFS_RACE_SECONDS sets all seven): `nobody` swaps a folder it owns in GAME with a
# link to a root-only folder in a tight loop while it reads, lists, renames a dropping
# onto, chmods and truncates a file in that folder through the view (-o allow_other,
# daemon as root).
# No byte, name or mode of the root-only folder may leak or change. Then it puts a hard
# link (and a symlink) to a root file outside GAME where it makes folders and links
# through the view: the file outside keeps its owner, mode and bytes (the daemon acts
# as the caller: nothing is given away by name after a create).
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/multiuser.inc"
secs=1 vsecs=1
[ "${ANIMFS_TEST_FULL:-}" = 1 ] && secs=5 vsecs=10
secs=${ANIMFS_RACE_SECONDS:-$secs} vsecs=${ANIMFS_RACE_SECONDS:-$vsecs}
mkdir -m 777 "$GAME/pub"
mkdir -m 777 "$GAME/pub/d"
printf 'public\n' > "$GAME/pub/d/f.txt"
chown -R nobody:"$NOBODY_GID" "$GAME/pub/d"
printf 'x\n' > "$SECRET/only-secret.txt" && chmod 600 "$SECRET/only-secret.txt"
ln -s "$SECRET" "$GAME/pub/lnk"
chown -h nobody:"$NOBODY_GID" "$GAME/pub/lnk"
want=$(secret_state)
[ -n "$want" ] || fail "precondition: the root-only folder's state"
mount_view_fg -o allow_other
for op in read list rename chmod truncate; do
  out=$(as_nobody "$PY" "$(dirname "$0")/race.py" $op "$secs" "$GAME" "$VIEW" 2>&1) ||
    fail "$op: $out"
  echo "$out"
  [ "$(secret_state)" = "$want" ] || fail "$op: the root-only folder changed: $(secret_state)"
done
# a root file outside GAME that nobody may write (0666: protected_hardlinks lets
# nobody link it), raced against the view's mkdir and symlink of that name
printf 'victim\n' > "$T/victim" && chmod 666 "$T/victim"
victim_state() { stat -c '%u:%g %a %s' "$T/victim"; md5sum < "$T/victim"; }
vwant=$(victim_state)
for op in mkdir symlink; do
  chmod 777 "$GAME/pub/d"
  out=$(as_nobody "$PY" "$(dirname "$0")/race.py" $op "$vsecs" "$GAME" "$VIEW" "$T/victim" 2>&1) ||
    fail "$op: $out"
  echo "$out"
  [ "$(victim_state)" = "$vwant" ] || fail "$op: the file outside GAME changed: $(victim_state)"
done
"$EXPECT_ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
[ "$(secret_state)" = "$want" ] || fail "the root-only folder changed"
ls -A "$GAME/pub" | grep -q fuse_hidden && fail ".fuse_hidden names in GAME"
echo "ok: race"
