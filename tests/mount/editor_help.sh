# Help inside the editor, in the mount: every view starts with a yaml-language-server
# modeline whose relative path reaches VIEW/.animfs/schema/<format>.json from the
# view's folder (nested folders and package folders too); the schemas are served
# read-only there; VIEW/.animfs/plot/<view path>.svg is the view's plot, made when read,
# never listed, and absent for a format without curves. No samples needed.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
mkdir -p "$GAME/anims/deep"
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/anims/deep/walk.animation" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$GAME/wave.jazz" || fail "encode"
mount_view_fg
for v in anims/deep/walk.animation.yaml wave.jazz.yaml; do
  line=$(head -1 "$VIEW/$v")
  case "$line" in "# yaml-language-server: \$schema="*) ;; *) fail "$v: no modeline: $line";; esac
  target=${line#*\$schema=}
  [ -f "$(dirname "$VIEW/$v")/$target" ] || fail "$v: $target does not resolve from the view's folder"
  cmp -s "$(dirname "$VIEW/$v")/$target" <("$ANIMFS" schema "$(sed -n 's/^format: *//p' "$VIEW/$v")") ||
    fail "$v: the served schema differs from animfs schema"
done
[ "$(ls "$VIEW/.animfs/schema" | wc -l)" -ge 4 ] || fail "schemas listed: $(ls "$VIEW/.animfs/schema")"
{ echo x > "$VIEW/.animfs/schema/sims3-jazz.json"; } 2>/dev/null && fail "a schema is writable"
# a save through a view keeps it consistent: the view after the save is the render
sed -i 's/^length: *[^ ]*/length: 3.5/' "$VIEW/anims/deep/walk.animation.yaml" || fail "save"
cmp -s "$VIEW/anims/deep/walk.animation.yaml" <(view_decode "$GAME/anims/deep/walk.animation") ||
  fail "the view after a save is not the render"
svg=$VIEW/.animfs/plot/anims/deep/walk.animation.yaml.svg
[ -s "$svg" ] || fail "no plot"
if command -v xmllint >/dev/null; then xmllint --noout "$svg" || fail "the plot is not well-formed"; fi
grep -q '<svg' "$svg" || fail "not an SVG"
[ -e "$VIEW/.animfs/plot/wave.jazz.yaml.svg" ] && fail "a Jazz view has a plot"
[ -z "$(ls -A "$VIEW/.animfs/plot")" ] || fail "plots are listed"
ls -R "$VIEW/anims" | grep -q svg && fail "a plot shows in a game folder"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: editor help in the mount"
