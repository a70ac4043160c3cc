# Editors save through the view: the exact syscall sequences of vim (backupcopy=yes
# and no), emacs, gedit and sed -i, then real vim headless (backupcopy=auto and yes).
# Each edits one number; an independent decode of the backing file must show it, and
# GAME must gain no stray file.
. "$(dirname "$0")/common.inc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
copy_samples
bin=$(pick_small)
v="$VIEW/$bin.yaml"
mount_view_fg
before=$(game_listing)
value=10
for ed in vim-yes vim-no emacs gedit sed; do
  value=$((value + 1))
  sed "s/^length: *[^ ]*/length: $value.5/" "$v" > "$T/new.yaml"
  python3 "$(dirname "$0")/editors.py" "$ed" "$v" "$T/new.yaml" || fail "$ed save failed"
  got=$(length_of "$GAME/$bin")
  [ "$got" = "$value.5" ] || fail "$ed: backing length is '$got', expected $value.5"
  [ "$(game_listing)" = "$before" ] || fail "$ed: GAME changed: $(game_listing)"
  [ "$(length_of "$GAME/$bin")" = "$(sed -n 's/^length: *\([^ ]*\).*/\1/p' "$v")" ] ||
    fail "$ed: view does not show the saved value"
  # the view after a save comes from the save's own check; it must be the render
  cmp -s "$v" <(view_decode "$GAME/$bin") || fail "$ed: view differs from a decode of the saved binary"
  echo "ok: $ed"
done
# the same editors on a plain file: it is written in place, backups stay out of GAME
printf 'plain v0\n' > "$GAME/notes.txt"
before=$(game_listing)
for ed in vim-yes vim-no emacs gedit sed; do
  printf 'plain %s\n' "$ed" > "$T/new.txt"
  python3 "$(dirname "$0")/editors.py" "$ed" "$VIEW/notes.txt" "$T/new.txt" ||
    fail "$ed save of a plain file failed"
  [ "$(cat "$GAME/notes.txt")" = "plain $ed" ] || fail "$ed: plain file not saved"
  [ "$(game_listing)" = "$before" ] || fail "$ed: GAME changed: $(game_listing)"
done
rm -f "$VIEW/notes.txt~"
# emacs leaves its backup: it is a scratch file, visible in the view, never in GAME
[ -f "$v~" ] || fail "emacs backup not visible in the view"
rm -f "$v~"

if command -v vim >/dev/null; then
  for bc in auto yes no; do
    value=$((value + 1))
    timeout 60 vim -N -u DEFAULTS -i NONE -es -c "set backupcopy=$bc" \
      -c "%s/^length: *[^ ]*/length: $value.25/" -c 'wq' "$v" </dev/null 2>"$T/vim.err" ||
      fail "vim backupcopy=$bc exited with $?: $(cat "$T/vim.err") (.animfs/errors: $(cat "$VIEW/.animfs/errors"); daemon: $(tail -5 "$T/daemon.log"))"
    got=$(length_of "$GAME/$bin")
    [ "$got" = "$value.25" ] || fail "vim backupcopy=$bc: backing length is '$got'"
    [ "$(game_listing)" = "$before" ] || fail "vim backupcopy=$bc: GAME changed"
    echo "ok: real vim backupcopy=$bc"
  done
else
  echo "note: vim not installed; real-vim part skipped"
fi
ls -A "$VIEW" | grep -v '\.animation\.yaml$' | grep -v '^notes.txt$' | grep -qv '^\.animfs$' &&
  fail "editor files left in the view: $(ls -A "$VIEW")"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
[ "$(length_of "$GAME/$bin")" = "$value.25" ] || fail "edit not on disk after umount"
echo "ok: editors"
