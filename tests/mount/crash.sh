# Crash safety: the daemon is made to _exit() at each step of a save (ANIMFS_FAULT,
# a test-only switch read at mount start). Afterwards the backing file is complete,
# old or new, never a mix; a temporary file the crash left is never shown in the
# view, and the next mount removes it (its process is gone), anywhere in GAME. No samples needed: GAME holds the walk example's binary.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/orig" || fail "encode example"
v="$VIEW/walk.animation.yaml"

for step in after-temp-write after-temp-fsync before-rename after-rename; do
  rm -rf "${GAME:?}"/* "$GAME"/.animfs-tmp-* 2>/dev/null
  cp "$T/orig" "$GAME/walk.animation"
  # a temp file deep in GAME of a save whose process is gone (pid 1 never saves here,
  # so a pid that is surely not running is used: the largest there can be)
  mkdir -p "$GAME/mods/deep"
  dead=$(( $(cat /proc/sys/kernel/pid_max) ))
  echo x > "$GAME/mods/deep/.animfs-tmp-$dead-1-old.animation"
  ANIMFS_FAULT=$step mount_view_fg
  sed 's/^length: *[^ #]*/length: 7.25/' "$v" > "$T/new.yaml" || fail "$step: read view"
  grep -q '^length: 7.25' "$T/new.yaml" || fail "$step: edit did not apply"
  cat "$T/new.yaml" > "$v" 2>/dev/null && fail "$step: the save succeeded though the daemon died"
  rc=0; wait "$DAEMON" || rc=$?
  [ $rc = 86 ] || fail "$step: the daemon exited with $rc, not at the fault: $(cat "$T/daemon.log")"
  fusermount3 -u "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" || fail "$step: stale mount stays"
  # the binary is whole: the old bytes, or (once renamed) the new document
  if [ $step = after-rename ]; then
    [ "$(length_of "$GAME/walk.animation")" = 7.25 ] || fail "$step: the new file is not whole"
  else
    cmp -s "$GAME/walk.animation" "$T/orig" || fail "$step: the old file was changed"
  fi
  temps=$(ls -A "$GAME" | grep -c '^\.animfs-tmp-' || true)
  case $step in
    after-rename) [ "$temps" = 0 ] || fail "$step: a temporary file remains" ;;
    *) [ "$temps" = 1 ] || fail "$step: expected the crash to leave one temp file, found $temps" ;;
  esac
  # restart: the temp file is not in the view; once stale, a listing sweeps it
  mount_view_fg
  ls -A "$VIEW" | grep -q animfs-tmp && fail "$step: the view shows a temporary file"
  view_decode "$GAME/walk.animation" | cmp -s - "$v" || fail "$step: view differs from decode"
  # the mount's walk of GAME removes what the crash left (its process is gone)
  for _ in $(seq 100); do
    [ -z "$(ls -A "$GAME" | grep '^\.animfs-tmp-')" ] && break; sleep 0.05
  done
  [ -z "$(ls -A "$GAME" | grep '^\.animfs-tmp-')" ] || fail "$step: the mount did not remove the temp file"
  [ -e "$GAME/mods/deep/.animfs-tmp-$dead-1-old.animation" ] && fail "$step: a deep temp file stays"
  # a temp file of a live process, or a fresh one, is left alone
  touch "$GAME/.animfs-tmp-$$-1-walk.animation"
  ls "$VIEW" >/dev/null
  [ -e "$GAME/.animfs-tmp-$$-1-walk.animation" ] || fail "$step: a live process's temp file was removed"
  rm -f "$GAME/.animfs-tmp-$$-1-walk.animation"
  # and the mount still saves
  sed 's/^length: *[^ #]*/length: 8.5/' "$v" > "$T/new.yaml"
  cat "$T/new.yaml" > "$v" || fail "$step: save after restart"
  [ "$(length_of "$GAME/walk.animation")" = 8.5 ] || fail "$step: save after restart did not arrive"
  "$ANIMFS" umount "$VIEW" || fail "$step: umount"
  check_daemon
done

# an unknown fault name is refused, not ignored
out=$(ANIMFS_FAULT=nonsense "$ANIMFS" mount "$GAME" "$VIEW" 2>&1) && fail "unknown ANIMFS_FAULT accepted"
echo "$out" | grep -q "ANIMFS_FAULT" || fail "unknown ANIMFS_FAULT message: $out"
echo "crash: ok"
