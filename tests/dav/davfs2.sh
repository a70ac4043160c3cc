#!/usr/bin/env bash
# davfs2 (the kernel file system over WebDAV) mounted on animfs serve: the edits a user
# makes on a mount made this way land as they do through animfs's own mount: a cp, a
# vim and a nano save of a view (the binary is encode's), a refused save (the binary unchanged, the
# line in .animfs/errors), a binary copied in and its view moved, a plain file copied in,
# moved and removed, a member of a Sims 3
# package edited, a part of a split view edited. davfs2 uploads a file after its close,
# so each check waits for the upload (up to 30 s).
. "$(dirname "$0")/dav.inc"
need_samples
command -v mount.davfs >/dev/null || { echo "SKIP: davfs2 missing (scripts/setup installs it)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting davfs2 needs root"; exit 77; }
[ -e /dev/fuse ] || grep -q coda /proc/filesystems || { echo "SKIP: no FUSE or coda for davfs2"; exit 77; }
src="$ANIMFS_SAMPLES/sims3/echoweaver_WarriorCats"
[ -f "$src/WarriorCats.package" ] || { echo "SKIP: ../shared/samples not found"; exit 77; }
small=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -1 | xargs -n1 basename)
cp "$ANIMFS_SAMPLES/diesel/$small" "$GAME/"
cp "$GAME/$small" "$T/spare.animation"
cp "$src/WarriorCats.package" "$GAME/"
mkdir "$GAME/parts"
cp "$GAME/$small" "$GAME/parts/$small"
chmod -R u+w "$GAME"
start_serve --split-over=1 -d
# davfs2's own settings: its buffer at 64 KiB (this kernel answers EINVAL to directory
# reads with a larger one), no questions for a user name, uploads at once
DAV_MNT=$T/mnt
chmod 0755 "$T" # davfs2 drops to its own user: it must reach its cache
mkdir -p "$DAV_MNT" "$T/davcache"
chown root:davfs2 "$T/davcache" 2>/dev/null; chmod 0775 "$T/davcache"
cat > "$T/davfs2.conf" <<CONF
buf_size 64
ask_auth 0
use_locks 1
delay_upload 0
dir_refresh 1
cache_dir $T/davcache
CONF
timeout 60 mount -t davfs "$U/" "$DAV_MNT" -o "conf=$T/davfs2.conf" < /dev/null > "$T/davfs.log" 2>&1 ||
  { cat "$T/davfs.log" >&2; fail "mount -t davfs failed"; }
wait_until() { # wait_until WHAT COMMAND...: up to 30 s for COMMAND to succeed
  local what=$1
  shift
  for _ in $(seq 300); do "$@" && return 0; sleep 0.1; done
  cat "$T/serve.log" >&2
  fail "$what (after 30 s)"
}
same() { cmp -s "$1" "$2"; }
# relisted DIR: davfs2 listed DIR (a view's folder) again since the last call (the
# server's -d log shows its PROPFIND), prodded by an ls past its dir_refresh. A save of one
# part gives its siblings new ETags, which davfs2 learns only so; its next PUT sends the
# ETag it holds back in an If header, and a stale one is refused with 412.
LISTED=0
relisted() {
  sleep 0.5
  ls -l "$1" > /dev/null
  local n
  n=$(grep -c "PROPFIND /${1#$DAV_MNT/}/ 207" "$T/serve.log")
  [ "$n" -gt "$LISTED" ] && LISTED=$n
}
V=$DAV_MNT

# cp of an edited view (the split folders are for parts/; --split-over=1 splits every view
# that can be: the small view in the top folder is one too, so it is edited as parts)
d="$V/$small.yaml"
[ -d "$d" ] || fail "the view is not shown as a folder of parts: $(ls -la "$V")"
"$PLAIN" decode --schema-ref ../.animfs/schema "$GAME/$small" --split "$T/before.yaml" || fail "decode --split"
diff -r "$T/before.yaml" "$d" > /dev/null || fail "the parts over davfs2 differ from decode --split"
part=$(ls "$d" | grep '^objects-' | head -1)
line=$(grep -n '^        - \[' "$d/$part" | sed -n 2p | cut -d: -f1)
[ -n "$line" ] || fail "no key line in $part"
rm -rf "$T/ed.yaml"; cp -r "$T/before.yaml" "$T/ed.yaml"
sed -i "${line}s/\[\([^,]*\), *[^,]*,/[\1, 1.5,/" "$T/ed.yaml/$part"
"$PLAIN" encode "$T/ed.yaml" -o "$T/ed.animation" || fail "encode of the edited parts"
cp "$T/ed.yaml/$part" "$d/$part" || fail "cp of an edited part"
wait_until "the part's save did not give encode's binary" same "$GAME/$small" "$T/ed.animation"
# the save gave every part of the view a new time (the binary's): davfs2 learns it when
# it lists the folder again; a vim that read the file before would find it "changed since
# reading it" at its write and ask (a user answers y; vim -es answers n). A user's ls, past
# davfs2's dir_refresh (set to 1 s here; 60 s by default):
relisted "$d" || true
wait_until "davfs2 did not list the view's folder again after the part save" relisted "$d"

# vim's save of an index.yaml edit in the same view (vim writes over the file)
cp "$T/ed.yaml/index.yaml" "$T/idx.yaml"
len=$(sed -n 's/^length: *\([0-9.]*\).*/\1/p' "$T/idx.yaml")
sed -i "s/^length: *$len /length: 4.5 /" "$T/ed.yaml/index.yaml"
"$PLAIN" encode "$T/ed.yaml" -o "$T/ed2.animation" || fail "encode of the vim edit"
HOME=$T vim -u NONE -i NONE -es -c "%s/^length: *$len /length: 4.5 /" -c wq "$d/index.yaml" ||
  fail "vim could not save"
wait_until "vim's save did not give encode's binary" same "$GAME/$small" "$T/ed2.animation"

# nano's save of the same file (nano writes over it too), typed in tmux
if command -v tmux >/dev/null && command -v nano >/dev/null; then
  . "$(dirname "$0")/../tmux.inc"
  relisted "$d" || true
  wait_until "davfs2 did not list the view's folder again after vim's save" relisted "$d"
  nline=$(grep -n '^length: 4.5 ' "$T/ed.yaml/index.yaml" | cut -d: -f1)
  ntext=$(sed -n "${nline}p" "$T/ed.yaml/index.yaml" | sed 's/^length: 4.5 /length: 5.5 /')
  sed -i "${nline}s/.*/$ntext/" "$T/ed.yaml/index.yaml"
  "$PLAIN" encode "$T/ed.yaml" -o "$T/ed3.animation" || fail "encode of the nano edit"
  nano_write afdavnano "$d/index.yaml" "$nline" "$ntext"
  wait_for afdavnano 'Wrote' || fail "nano did not write the view"
  tmux kill-session -t afdavnano 2>/dev/null
  wait_until "nano's save did not give encode's binary" same "$GAME/$small" "$T/ed3.animation"
  sed -i "s/^length: 5.5 /length: 4.5 /" "$T/ed.yaml/index.yaml"
  NANO=" and nano"
else
  echo "SKIP (part): nano or tmux missing: no nano save over davfs2"
  NANO=""
fi

# a refused save: the binary stays, the line comes
cp "$GAME/$small" "$T/kept.animation"
sed "s/^length: 4.5 /length: [4.5 /" "$T/ed.yaml/index.yaml" > "$T/bad.yaml"
cp "$T/bad.yaml" "$d/index.yaml" 2>/dev/null || true
has_error() { grep -q "$small.yaml/index.yaml:[0-9]*:[0-9]*:" "$V/.animfs/errors" 2>/dev/null ||
              curl -s --noproxy '*' "$U/.animfs/errors" | grep -q "$small.yaml/index.yaml:[0-9]*:[0-9]*:"; }
wait_until "the refused save has no line in .animfs/errors" has_error
same "$GAME/$small" "$T/kept.animation" || fail "a refused save changed the binary"

# a binary copied in, moved, removed. Once its bytes are in GAME the listing shows the
# binary as its view (here a folder of parts, --split-over=1), not by its own name, as the
# mount does: davfs2 knows only listed names, so after its next listing (dir_refresh 1 s,
# or sooner under load) the binary's own name is gone from it and the user works on the
# view. The view's folder moved renames the binary in GAME; a split view is removed by the
# binary's own name only (docs/mount.md), which a WebDAV client cannot name: a file no
# codec claims, listed by its own name, is copied in, moved and removed instead.
cp "$T/spare.animation" "$V/new.animation" || fail "cp of a binary in"
wait_until "the binary copied in is not in GAME" same "$GAME/new.animation" "$T/spare.animation"
shows_view() { ls "$V" > /dev/null && test -d "$V/new.animation.yaml"; }
wait_until "davfs2 does not show the view of the binary copied in" shows_view
mv "$V/new.animation.yaml" "$V/moved.animation.yaml" || fail "mv of the view"
wait_until "the view's mv did not move the binary in GAME" test -f "$GAME/moved.animation" -a ! -e "$GAME/new.animation"
same "$GAME/moved.animation" "$T/spare.animation" || fail "the moved binary changed"
rm "$GAME/moved.animation"
printf 'notes\n' > "$T/notes.txt"
cp "$T/notes.txt" "$V/notes.txt" || fail "cp of a plain file in"
wait_until "the plain file copied in is not in GAME" same "$GAME/notes.txt" "$T/notes.txt"
mv "$V/notes.txt" "$V/moved.txt" || fail "mv"
wait_until "mv did not move in GAME" test -f "$GAME/moved.txt" -a ! -e "$GAME/notes.txt"
same "$GAME/moved.txt" "$T/notes.txt" || fail "the moved file changed"
rm "$V/moved.txt" || fail "rm"
wait_until "rm did not remove in GAME" test ! -e "$GAME/moved.txt"

# a member of a Sims 3 package
P="$V/WarriorCats.package"
cp "$GAME/WarriorCats.package" "$T/orig.package"
[ -f "$P/petgardening.jazz.yaml" ] || fail "the package's member is not listed: $(ls "$P")"
sed 's/Loop Water/Loop Sprinkle/g' "$P/petgardening.jazz.yaml" > "$T/pg.yaml"
cp "$T/pg.yaml" "$P/petgardening.jazz.yaml" || fail "cp of the member"
changed() { ! cmp -s "$GAME/WarriorCats.package" "$T/orig.package"; }
wait_until "the member's edit did not reach the package" changed
"$PLAIN" decode --schema-ref none "$GAME/WarriorCats.package/petgardening.jazz" | grep -q "Loop Water" &&
  fail "'Loop Water' is still in the package"

umount "$DAV_MNT" || fail "umount of davfs2"
stray=$(cd "$GAME" && ls -A | grep -vx "$small" | grep -vx WarriorCats.package | grep -vx parts || true)
[ -z "$stray" ] || fail "stray files in GAME: $stray"
stop_serve
echo "PASS: davfs2: part, vim$NANO saves, a refusal, cp/mv/rm, a package member"
