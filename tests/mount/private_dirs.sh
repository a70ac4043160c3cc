# The daemon's own folders in HOME (the size cache, the editors' droppings) are
# reached through no link: with HOME's .cache/animfs and the state folder's animfs
# links to somewhere else, the mount says so (naming each path), keeps no size file,
# puts the droppings in a temporary folder of its own, and creates or writes nothing
# where the links point. A folder of its own there is given mode 0700.
. "$(dirname "$0")/common.inc"
copy_samples
export HOME=$T/home
unset XDG_CACHE_HOME
mkdir -p "$HOME/.cache" "$T/elsewhere" "$T/elsewhere2" "$XDG_STATE_HOME"
ln -s "$T/elsewhere" "$HOME/.cache/animfs"
ln -s "$T/elsewhere2" "$XDG_STATE_HOME/animfs"
f=$(pick_small)
mount_view_fg
cat "$VIEW/$f.yaml" > /dev/null || fail "read a view"
printf 'swap\n' > "$VIEW/.$f.yaml.swp" || fail "a dropping"
[ -f "$VIEW/.$f.yaml.swp" ] || fail "the dropping is not shown"
scratch=$(cat "$VIEW/.animfs/scratch")
case "$scratch" in "$T"/animfs-scratch-*) ;; *) fail "droppings in $scratch, not a temporary folder";; esac
"$ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
[ -L "$HOME/.cache/animfs" ] && [ -L "$XDG_STATE_HOME/animfs" ] || fail "a link was replaced"
[ -z "$(ls -A "$T/elsewhere")" ] && [ -z "$(ls -A "$T/elsewhere2")" ] ||
  fail "written through a link: $(ls -lAR "$T/elsewhere" "$T/elsewhere2")"
grep -q "no size cache: $HOME/.cache/animfs is a symbolic link: not followed" "$T/daemon.log" ||
  fail "the cache's link is not named: $(cat "$T/daemon.log")"
grep -q "$XDG_STATE_HOME/animfs is a symbolic link: not followed" "$T/daemon.log" ||
  fail "the state's link is not named: $(cat "$T/daemon.log")"
grep -q "go to a temporary folder" "$T/daemon.log" || fail "the fallback is not said"
[ ! -e "$scratch" ] || fail "the temporary scratch folder was left behind"

# Folders of its own: made (or made again) 0700, the size file inside
rm "$HOME/.cache/animfs" "$XDG_STATE_HOME/animfs"
mkdir -m 0755 "$HOME/.cache/animfs"
mount_view_fg
cat "$VIEW/$f.yaml" > /dev/null || fail "read a view (2)"
"$ANIMFS" umount "$VIEW" >/dev/null || fail "umount (2)"
check_daemon
[ "$(stat -c %a "$HOME/.cache/animfs")" = 700 ] || fail "the cache folder is not 0700"
[ "$(stat -c %a "$XDG_STATE_HOME/animfs")" = 700 ] || fail "the state folder is not 0700"
ls "$HOME/.cache/animfs" | grep -q '^sizes-' || fail "no size file in the cache folder"
grep -q "not followed\|owned by" "$T/daemon.log" && fail "a refusal of its own folders: $(cat "$T/daemon.log")"

# Another user's folder where the cache goes (a daemon run by root): not used
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
  rm -rf "$HOME/.cache/animfs"
  mkdir -m 0777 "$HOME/.cache/animfs"
  chown nobody "$HOME/.cache/animfs"
  mount_view_fg
  cat "$VIEW/$f.yaml" > /dev/null || fail "read a view (3)"
  "$ANIMFS" umount "$VIEW" >/dev/null || fail "umount (3)"
  check_daemon
  [ -z "$(ls -A "$HOME/.cache/animfs")" ] || fail "written into another user's folder"
  grep -q "$HOME/.cache/animfs is owned by uid $(id -u nobody)" "$T/daemon.log" ||
    fail "another's cache folder is not named: $(cat "$T/daemon.log")"
fi
echo "ok: the cache and state folders through no link, 0700, the daemon's own"
