# Crash safety with --overlay MODDIR (issue 32): the daemon _exit()s at each step of a
# save (ANIMFS_FAULT, as in crash.sh), for a copy-up of a loose file, a save into
# MODDIR's copy and an override package of a package member. Afterwards MODDIR's file is
# old or new, never a mix (old: absent before the first copy-up), GAME is unchanged,
# and the next mount sweeps the temp files the crash left in MODDIR. No samples needed.
# The fault steps are one replace's (af_replace_file_pieces, crash.sh walks all four):
# the default tier crashes after the temp file's write and after the rename (the
# old and the new outcome), mount/overlay_crash_full (ANIMFS_TEST_FULL=1, slow) at every
# step, after-temp-fsync and before-rename too.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
here=$(dirname "$0")
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode walk"
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode jazz"
python3 "$here/mkpackage.py" "$GAME/m.package" "02D5DF13:1:$T/wave.jazz" || fail "mkpackage"
chmod -R a-w "$GAME"
sums() { (cd "$GAME" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
sums > "$T/game.sums"
MOD=$T/mod
ov_mount() { mount_view_fg --overlay "$MOD"; }
# crash STEP VIEW EDIT: a save of VIEW (sed EDIT) that the daemon dies in
crash() {
  local step=$1 v=$2 edit=$3
  ANIMFS_FAULT=$step ov_mount
  sed "$edit" "$v" > "$T/new.yaml" || fail "$step: read $v"
  cmp -s "$T/new.yaml" "$v" && fail "$step: the edit changed nothing"
  cat "$T/new.yaml" > "$v" 2>/dev/null && fail "$step: the save succeeded though the daemon died"
  rc=0; wait "$DAEMON" || rc=$?
  [ $rc = 86 ] || fail "$step: the daemon exited with $rc, not at the fault: $(cat "$T/daemon.log")"
  fusermount3 -u "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" || fail "$step: stale mount stays"
}
temps() { find "$MOD" -name '.animfs-tmp-*' | wc -l; }
swept() { # swept WHAT [THEN]: the next mount's walk removes the crash's temp files in
  # MODDIR; THEN (a command) runs in that mount before its umount
  ov_mount
  for _ in $(seq 100); do [ "$(temps)" = 0 ] && break; sleep 0.05; done
  [ "$(temps)" = 0 ] || fail "$1: the mount did not sweep MODDIR's temp files"
  find "$VIEW" -name '*animfs-tmp*' | grep -q . && fail "$1: the view shows a temp file"
  [ $# -lt 2 ] || $2
  "$EXPECT_ANIMFS" umount "$VIEW" || fail "$1: umount"
  check_daemon
}
save_35() { # a save into MODDIR's copy (or its copy-up), for the crash of the next save
  sed 's/^length: *[^ #]*/length: 3.5/' "$VIEW/walk.animation.yaml" > "$T/e.yaml"
  cat "$T/e.yaml" > "$VIEW/walk.animation.yaml" || fail "$step: a save"
}
steps="after-temp-write after-rename"
[ "${ANIMFS_TEST_FULL:-}" = 1 ] && steps="after-temp-write after-temp-fsync before-rename after-rename"
for step in $steps; do
  rm -rf "$MOD"; mkdir "$MOD"
  # the first save of a GAME file: a copy-up
  crash $step "$VIEW/walk.animation.yaml" 's/^length: *[^ #]*/length: 7.25/'
  if [ $step = after-rename ]; then
    [ "$(length_of "$MOD/walk.animation")" = 7.25 ] || fail "$step: the copy-up is not whole"
  else
    [ ! -e "$MOD/walk.animation" ] || fail "$step: a copy-up was left before its rename"
  fi
  [ $step = after-rename ] || [ "$(temps)" = 1 ] || fail "$step: want one temp file, found $(temps)"
  # the sweeping mount saves into MODDIR's copy; then a crash in the next save leaves
  # its old bytes or the new
  swept "$step copy-up" save_35
  crash $step "$VIEW/walk.animation.yaml" 's/^length: *[^ #]*/length: 9.75/'
  want=3.5; [ $step = after-rename ] && want=9.75
  [ "$(length_of "$MOD/walk.animation")" = $want ] || fail "$step: MODDIR's copy is not whole ($want)"
  swept "$step save"
  # a package member: the override package, or none
  crash $step "$VIEW/m.package/S3_02D5DF13_00000000_0000000000000001.jazz.yaml" \
    '0,/speed: 1.0/s//speed: 1.5/'
  if [ $step = after-rename ]; then
    python3 "$here/pkgread.py" diff "$GAME/m.package" "$MOD/m.package" | grep -q '^changed 02D5DF13 ' ||
      fail "$step: the override package is not whole"
  else
    [ ! -e "$MOD/m.package" ] || fail "$step: an override package was left before its rename"
  fi
  swept "$step package"
  sums | cmp -s - "$T/game.sums" || fail "$step: GAME changed"
  echo "ok: $step"
done
echo "overlay crash: ok"
