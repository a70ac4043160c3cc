# The kernel keeps names and attributes by default (issue 43), and is told of every
# change: a stat of a name it knows is answered while the daemon is stopped (so the
# cache is on), yet it shows what a stat of GAME implies once the change is made:
#  - behind the mount's back (the daemon watches GAME): a binary replaced by one of
#    another length, a binary in a folder made after the mount, a binary replaced by a
#    folder (the view's name goes), a folder removed, a new file;
#  - through the mount: a binary removed by its own name takes its view's name along;
#  - .animfs/errors's size after a refused save and after `animfs errors --clear`;
# listings (kept by the daemon between opens) show every change at once, or once the
# daemon read it for a binary rewritten in place;
# a process inside a folder of the view keeps its working folder across the changes;
# -o attr_cache=0 keeps nothing (the stat waits for the stopped daemon).
# On a kernel that cannot be told (before protocol 7.44) the default keeps nothing:
# then only the last check runs, and the test says so.
# No samples needed.
. "$(dirname "$0")/common.inc"
inside=
mkdir -p "$GAME/sub"
for n in 1 2 3; do
  "$PLAIN" encode "$ANIMFS_SOURCE_DIR/examples/walk.animation.yaml" -o "$GAME/w$n.animation" >/dev/null ||
    fail "precondition: encode"
done
# a second binary whose view has another length (a longer name of its first object)
sed 's/^\(  - name: *\)\([A-Za-z_]*\)/\1\2_renamed_for_a_longer_view/' \
  "$ANIMFS_SOURCE_DIR/examples/walk.animation.yaml" > "$T/long.yaml"
"$PLAIN" encode "$T/long.yaml" -o "$T/long.animation" >/dev/null || fail "precondition: long"
cp "$GAME/w1.animation" "$GAME/sub/s.animation"

size_of() { stat -c %s "$1" 2>/dev/null; }
# stat while the daemon is stopped: 0 when the kernel answered, 124 when it asked
# (the first statx of a mount that asks for a birth time asks the daemon once, which
# answers that it has none: mount_view_fg's own stat below)
stat_stopped() {
  local rc
  kill -STOP "$DAEMON"
  timeout 2 stat "$@" >/dev/null 2>&1
  rc=$?
  kill -CONT "$DAEMON"
  return $rc
}
# poll: the kernel is told of a change behind the mount's back by the daemon's watch,
# as it happens (not within the stat that follows the change: a few ms)
within() { # within SECONDS COMMAND...: COMMAND true within SECONDS
  local t=$1 i
  shift
  for ((i = 0; i < t * 50; i++)); do
    "$@" && return 0
    sleep 0.02
  done
  return 1
}

mount_view_fg
stat "$VIEW/sub" >/dev/null
grep -q "names and attributes kept" "$T/daemon.log" && kept=1 || kept=0
# Linux 6.16 brought the notification (FUSE protocol 7.44): from there on it is kept
kernel=$(uname -r | sed 's/[^0-9.].*//')
if [ "$(printf '%s\n6.16\n' "$kernel" | sort -V | head -1)" = 6.16 ] && [ $kept = 0 ]; then
  fail "Linux $kernel can be told to drop its names, yet the mount keeps none: $(cat "$T/daemon.log")"
fi
if [ $kept = 1 ] && ! grep -q "changes told to the kernel at once: yes" "$T/daemon.log"; then
  fail "names are kept but changes in GAME are not told: $(cat "$T/daemon.log")"
fi
if [ $kept = 1 ]; then
  want=$("$PLAIN" decode --schema-ref .animfs/schema "$T/long.animation" | wc -c)
  short=$(size_of "$VIEW/w1.animation.yaml")
  [ "$want" != "$short" ] || fail "precondition: two lengths"
  stat_stopped "$VIEW/w1.animation.yaml" || fail "a stat of a known name asked the stopped daemon"
  echo "ok: the kernel answers a known name's stat itself"
  # a working folder inside the view
  (cd "$VIEW/sub" && exec sleep 30) &
  inside=$!
  trap 'kill $inside 2>/dev/null; cleanup' EXIT

  # a binary replaced behind the mount's back
  cp "$T/long.animation" "$GAME/w1.animation"
  within 5 test "$(size_of "$VIEW/w1.animation.yaml")" = "$want" ||
    fail "a binary replaced in GAME: its view's size is still $(size_of "$VIEW/w1.animation.yaml"), want $want"
  [ "$(wc -c < "$VIEW/w1.animation.yaml")" = "$want" ] || fail "the replaced binary's view reads short"
  stat_stopped "$VIEW/w1.animation.yaml" || fail "the new size is not kept"
  echo "ok: a binary replaced behind the mount's back shows its new size"

  # a folder made after the mount: watched too
  mkdir "$GAME/later"
  cp "$GAME/w2.animation" "$GAME/later/l.animation"
  within 5 test -e "$VIEW/later/l.animation.yaml" || fail "a binary in a new folder"
  s0=$(size_of "$VIEW/later/l.animation.yaml")
  stat_stopped "$VIEW/later/l.animation.yaml" || fail "a name in a new folder is not kept"
  sleep 0.2 # the watch of the new folder is set when its creation is read (a few ms)
  cp "$T/long.animation" "$GAME/later/l.animation"
  within 5 test "$(size_of "$VIEW/later/l.animation.yaml")" != "$s0" ||
    fail "a binary replaced in a folder made after the mount: size still $s0"
  [ "$(size_of "$VIEW/later/l.animation.yaml")" = "$(wc -c < "$VIEW/later/l.animation.yaml")" ] ||
    fail "a binary replaced in a folder made after the mount: its size is not its length"
  echo "ok: a folder made after the mount is watched"

  # a binary replaced by a folder: its view's name goes, the name is a folder
  size_of "$VIEW/w2.animation.yaml" >/dev/null || fail "precondition: w2's view"
  rm "$GAME/w2.animation" && mkdir "$GAME/w2.animation"
  within 5 test ! -e "$VIEW/w2.animation.yaml" || fail "a binary replaced by a folder: its view is still there"
  [ -d "$VIEW/w2.animation" ] || fail "the folder that replaced a binary is not a folder in the view"
  echo "ok: a binary replaced by a folder"

  # a folder removed behind the mount's back, and a new file
  rm -r "$GAME/later"
  within 5 test ! -e "$VIEW/later/l.animation.yaml" || fail "a removed folder's view is still there"
  printf 'new\n' > "$GAME/new.txt"
  [ "$(cat "$VIEW/new.txt")" = new ] || fail "a new file is not seen at once"
  echo "ok: a removed folder and a new file"

  # through the mount: the binary removed by its own name takes its view along, at once
  size_of "$VIEW/w3.animation.yaml" >/dev/null || fail "precondition: w3's view"
  rm "$VIEW/w3.animation" || fail "rm of a binary by its own name"
  [ ! -e "$VIEW/w3.animation.yaml" ] || fail "the view of a binary removed through the mount is still there"
  echo "ok: a binary removed through the mount takes its view's name at once"

  # listings: kept by the daemon between opens, never past a change
  ls "$VIEW/sub" > /dev/null && ls "$VIEW/sub" > "$T/l0" || fail "ls sub"
  cp "$GAME/sub/s.animation" "$GAME/sub/t.animation"
  ls "$VIEW/sub" | grep -qx t.animation.yaml || fail "a binary made behind the mount's back is not listed at once"
  rm "$GAME/sub/t.animation"
  ls "$VIEW/sub" | grep -q '^t\.' && fail "a binary removed behind the mount's back is still listed"
  : > "$VIEW/sub/notes.txt"
  ls "$VIEW/sub" | grep -qx notes.txt || fail "a file made through the mount is not listed at once"
  rm "$VIEW/sub/notes.txt"
  ls "$VIEW/sub" | grep -qx notes.txt && fail "a file removed through the mount is still listed"
  cmp -s "$T/l0" <(ls "$VIEW/sub") || fail "the listing changed: $(ls "$VIEW/sub")"
  # a binary rewritten in place (its folder unchanged) that no longer decodes: listed
  # by its own name once the daemon read the change
  printf 'not an animation any more' > "$T/junk"
  cp "$GAME/sub/s.animation" "$T/s.keep"
  dd if="$T/junk" of="$GAME/sub/s.animation" conv=notrunc status=none
  within 5 sh -c "ls '$VIEW/sub' | grep -qx s.animation" ||
    fail "a binary rewritten to junk in place is still listed as its view: $(ls "$VIEW/sub")"
  cp "$T/s.keep" "$GAME/sub/s.animation"
  within 5 sh -c "ls '$VIEW/sub' | grep -qx s.animation.yaml" || fail "the binary put back is not listed as its view"
  echo "ok: listings follow every change"

  # the working folder inside the view survives the changes
  kill -0 $inside 2>/dev/null || fail "precondition: the process inside"
  [ "$(readlink "/proc/$inside/cwd")" = "$VIEW/sub" ] ||
    fail "a working folder in the view became '$(readlink "/proc/$inside/cwd")'"
  kill $inside 2>/dev/null
  wait $inside 2>/dev/null
  inside=
  echo "ok: a working folder in the view stays itself"

  # .animfs/errors: its size follows its lines
  "$ANIMFS" errors --clear "$VIEW" || fail "errors --clear (the junk binary's line)"
  [ "$(size_of "$VIEW/.animfs/errors")" = 0 ] || fail "precondition: no errors: $(cat "$VIEW/.animfs/errors")"
  sed 's/^length: .*/length: 1.5x/' "$VIEW/sub/s.animation.yaml" > "$T/bad.yaml"
  cp "$T/bad.yaml" "$VIEW/sub/s.animation.yaml" 2>/dev/null && fail "a bad save was taken"
  [ "$(size_of "$VIEW/.animfs/errors")" -gt 0 ] || fail ".animfs/errors's size after a refused save: 0"
  [ "$(size_of "$VIEW/.animfs/errors")" = "$(wc -c < "$VIEW/.animfs/errors")" ] ||
    fail ".animfs/errors's size is not its length"
  "$ANIMFS" errors --clear "$VIEW" || fail "errors --clear"
  [ "$(size_of "$VIEW/.animfs/errors")" = 0 ] || fail ".animfs/errors's size after --clear: $(size_of "$VIEW/.animfs/errors")"
  echo "ok: .animfs/errors's size follows its lines"
else
  echo "SKIPPED: this kernel cannot be told to drop its names (protocol < 7.44): names are not kept by default"
fi
kill $inside 2>/dev/null
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon

# -o attr_cache=0: nothing kept
mount_view_fg -o attr_cache=0
stat "$VIEW/sub" >/dev/null
stat "$VIEW/sub/s.animation.yaml" >/dev/null || fail "precondition: a view"
stat_stopped "$VIEW/sub/s.animation.yaml" && fail "with attr_cache=0 the kernel answered a stat itself"
grep -q "names and attributes kept" "$T/daemon.log" && fail "attr_cache=0 said names are kept"
echo "ok: -o attr_cache=0 keeps nothing"
