# The daemon acts as the caller (-o allow_other, the daemon as root), case by case,
# with two users made here (A and B): each case is what a plain folder does.
# 1. a dropping renamed onto root's setuid file leaves A's file, without setuid;
# 2. B's 0600 file, view or swap file moved to or from a dropping name by A: A never
#    reads it, and it keeps B's owner and mode;
# 3. plots, index.yaml and .animfs/errors lines of B's 0600 view, of a file in B's
#    0700 folder and of a member of B's 0600 package: only for those who may read it;
# 4. (tests/mount/race.sh races mkdir and symlink against a hard-link swap);
# 5. A's sed -i of B's view in a folder A may write makes the binary A's file; in a
#    sticky folder it is refused and the binary stays B's;
# 6. scratch is per user, with a quota: A at the quota never stops B;
# and a daemon that is not root refuses allow_other.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
here=$(dirname "$0")
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/walk.animation" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode jazz"
head -c 120 "$T/wave.jazz" > "$T/junk.jazz" # a Jazz cut short: a member that does not decode
mkdir -m 777 "$GAME/pub"
mkdir -m 1777 "$GAME/sticky"
mkdir -m 700 "$GAME/bonly"
chown "$UB" "$GAME/bonly"
put() { cp "$1" "$GAME/$2" && chown "$3" "$GAME/$2" && chmod "$4" "$GAME/$2"; }
printf '#!/bin/sh\necho root\n' > "$T/tool"
put "$T/tool" pub/tool root 4755
printf 'b secret\n' > "$T/b.txt"
put "$T/b.txt" pub/b.txt "$UB" 600
put "$T/walk.animation" pub/b.animation "$UB" 600
put "$T/walk.animation" pub/b2.animation "$UB" 644
put "$T/walk.animation" sticky/b3.animation "$UB" 644
put "$T/walk.animation" bonly/x.animation "$UB" 644
"$PY" "$here/mkpackage.py" "$T/b.package" "02D5DF13:1:$T/wave.jazz" "02D5DF13:2:$T/junk.jazz" ||
  fail "mkpackage"
put "$T/b.package" pub/b.package "$UB" 600
printf 'a\n' > "$T/a.txt" && put "$T/a.txt" pub/a.txt "$UA" 644
printf 'b\n' > "$T/bb.txt" && put "$T/bb.txt" pub/bb.txt "$UB" 644
mount_view_fg -o allow_other
P=$VIEW/pub
owner_mode() { stat -c '%U %a' "$1"; }

# 1. local root
as_a sh -c "printf 'echo mine\n' > '$P/.tool.swp' && mv '$P/.tool.swp' '$P/tool'" ||
  fail "1: A's rename of its dropping onto the setuid file (a plain folder allows it)"
[ "$(owner_mode "$GAME/pub/tool")" = "$UA 644" ] ||
  fail "1: the file after the rename: $(owner_mode "$GAME/pub/tool") (want $UA 644, no setuid)"
grep -q mine "$GAME/pub/tool" || fail "1: A's bytes did not land"
echo "ok 1: a dropping renamed onto root's setuid file is A's, without setuid"

# 2. B's files to and from dropping names
as_a mv "$P/b.txt" "$P/b.txt~" || fail "2: A may move B's file in a 0777 folder"
as_a cat "$P/b.txt~" 2>/dev/null && fail "2: A reads B's 0600 file after moving it to a dropping name"
as_a mv "$P/b.txt~" "$P/b.txt" || fail "2: and back"
[ "$(owner_mode "$GAME/pub/b.txt")" = "$UB 600" ] || fail "2: B's file came back as $(owner_mode "$GAME/pub/b.txt")"
cmp -s "$T/b.txt" "$GAME/pub/b.txt" || fail "2: B's file's bytes changed"
as_a cat "$P/b.txt" 2>/dev/null && fail "2: A reads B's file"
as_b cat "$P/b.txt" >/dev/null || fail "2: B no longer reads its file"
as_a mv "$P/b.animation.yaml" "$P/b.animation.yaml~" || fail "2: A moves B's view to a backup name"
as_a cat "$P/b.animation.yaml~" 2>/dev/null | grep -q format && fail "2: A reads B's 0600 view through its backup"
as_a mv "$P/b.animation.yaml~" "$P/b.animation.yaml" || fail "2: the view back"
[ "$(owner_mode "$GAME/pub/b.animation")" = "$UB 600" ] || fail "2: B's binary came back as $(owner_mode "$GAME/pub/b.animation")"
cmp -s "$T/walk.animation" "$GAME/pub/b.animation" || fail "2: B's binary changed"
as_b sh -c "umask 077; printf 'swap of B\n' > '$P/.bb.txt.swp'" || fail "2: B's swap file"
as_a ls -a "$P" | grep -q '^\.bb\.txt\.swp$' && fail "2: A sees B's swap file"
as_a cat "$P/.bb.txt.swp" 2>/dev/null && fail "2: A reads B's swap file"
as_a mv "$P/.bb.txt.swp" "$P/stolen.txt" 2>/dev/null && fail "2: A moves B's swap file into GAME"
as_b cat "$P/.bb.txt.swp" | grep -q 'swap of B' || fail "2: B lost its swap file"
[ "$(owner_mode "$(scratch_of_user "$UB_UID")")" = "$UB 700" ] || fail "2: B's scratch folder"
echo "ok 2: B's files moved to and from dropping names stay B's and unread by A"

# 3. derived files
as_b cat "$VIEW/.animfs/plot/pub/b.animation.yaml.svg" | grep -q '<svg' || fail "3: B's own plot"
as_a cat "$VIEW/.animfs/plot/pub/b.animation.yaml.svg" 2>/dev/null | grep -q svg &&
  fail "3: A reads the plot of B's 0600 view"
as_a cat "$VIEW/.animfs/plot/bonly/x.animation.yaml.svg" 2>/dev/null | grep -q svg &&
  fail "3: A reads a plot of a file in B's 0700 folder"
as_b ls "$P/b.package" > "$T/members" || fail "3: B lists its package"
m=$(grep -m1 '\.jazz\.yaml$' "$T/members") || fail "3: no Jazz member listed: $(cat "$T/members")"
as_b cat "$P/b.package/index.yaml" | grep -q . || fail "3: B's index.yaml"
as_a cat "$P/b.package/index.yaml" 2>/dev/null && fail "3: A reads the index of B's 0600 package"
as_a cat "$P/b.package/$m" 2>/dev/null && fail "3: A reads a member of B's 0600 package"
as_a cat "$VIEW/.animfs/plot/pub/b.package/$m.svg" 2>/dev/null | grep -q svg &&
  fail "3: A reads the plot of a member of B's 0600 package"
as_b cat "$VIEW/.animfs/errors" | grep -q 'b.package' || fail "3: B does not see the line about its broken member"
as_a cat "$VIEW/.animfs/errors" | grep -q 'b.package' && fail "3: A sees a line about B's 0600 package"
echo "ok 3: plots, index.yaml and error lines only for those who may read the binary"

# 5. sed -i of another's view
as_a sed -i 's/^length: *[^ ]*/length: 6.5/' "$P/b2.animation.yaml" ||
  fail "5: A's sed -i in a folder A may write (a plain folder allows it)"
[ "$(stat -c %U "$GAME/pub/b2.animation")" = "$UA" ] ||
  fail "5: the binary after A's sed -i is $(stat -c %U "$GAME/pub/b2.animation")'s (a plain rename makes it A's)"
[ "$(length_of "$GAME/pub/b2.animation")" = 6.5 ] || fail "5: A's edit did not land"
as_a sed -i 's/^length: *[^ ]*/length: 6.5/' "$VIEW/sticky/b3.animation.yaml" 2>/dev/null &&
  fail "5: A's sed -i replaced B's view in a sticky folder"
cmp -s "$T/walk.animation" "$GAME/sticky/b3.animation" || fail "5: B's binary in the sticky folder changed"
[ "$(stat -c %U "$GAME/sticky/b3.animation")" = "$UB" ] || fail "5: B's binary changed owner"
echo "ok 5: a rename onto a view is a rename: A's file where A may, refused where not"

"$ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon

# 6. per-user scratch quota
mount_view_fg -o allow_other --scratch-mb=1
as_a "$PY" -c "
import errno, os, sys
f = os.open('$P/.a.txt.swp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
try:
    for i in range(32):
        os.write(f, b'x' * 65536)
except OSError as e:
    sys.exit(0 if e.errno == errno.EDQUOT else 'wrong error: %s' % e)
sys.exit('2 MiB of droppings went past a 1 MiB quota')
" || fail "6: A's droppings past the quota"
as_b sh -c "head -c 300000 /dev/zero > '$P/.bb.txt.swp'" || fail "6: A at its quota stopped B's dropping"
[ "$(stat -c %s "$(scratch_of_user "$UB_UID")/pub/.bb.txt.swp")" = 300000 ] || fail "6: B's dropping"
as_a rm "$P/.a.txt.swp" || fail "6: A removes its dropping"
as_a sh -c "head -c 300000 /dev/zero > '$P/.a.txt.swp'" || fail "6: A's room came back"
echo "ok 6: each user's droppings have their own room"
"$ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon

# a daemon that is not root cannot act as another user: it refuses allow_other
mkdir -m 777 "$T/g2" "$T/v2"
out=$(as_a "$ANIMFS" mount "$T/g2" "$T/v2" -o allow_other 2>&1) && {
  fusermount3 -u "$T/v2" 2>/dev/null; fail "a daemon of $UA mounted with allow_other"; }
echo "$out" | grep -q "needs animfs to run as root" || fail "the refusal does not say why: $out"
mountpoint -q "$T/v2" && fail "mounted anyway"
echo "ok: a non-root daemon refuses allow_other"
echo "caller: ok"
