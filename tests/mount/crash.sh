# Crash safety: the daemon is made to _exit() at each step of a save (ANIMFS_FAULT,
# a test-only switch read at mount start). Afterwards the backing file is complete,
# old or new, never a mix; a temporary file the crash left is never shown in the
# view, and the next mount removes it (its process is gone), anywhere in GAME. No samples needed: GAME holds the walk example's binary.
# Then the same for a save into an AFS, a Sims 3 package and a gzip'd PKS, streamed
# (copies of the old ranges; the gzip stream deflated into the temp file), and a kill -9
# in the middle of such a save; a PKS's save and its revert keep to the memory bound as
# well, in the daemon and on the command line. The saves are streamed at any size (the
# gzip layer goes to a temporary file past 4 MiB): the default tier's archives are 4 MiB
# (the gzip'd PKS 6 MiB); mount/crash_full (ANIMFS_TEST_FULL=1, slow) uses 48 MiB (the
# gzip'd PKS 47 MiB), where the memory bound tells a held archive from a streamed one.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/orig" || fail "encode example"
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
  "$EXPECT_ANIMFS" umount "$VIEW" || fail "$step: umount"
  check_daemon
done

# A streamed rebuild (issue 28): a save into a large archive (48 MiB: an AFS, a Sims 3
# package, a PKS; tests/tools/big_archive.py) assembles the new archive in the temp file
# from copies of the old one's ranges. Killed at a fault step, or by kill -9 while it
# copies, the archive is the old bytes or the new ones (what `animfs encode` of the same
# edit gives), never a mix.
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
"$EXPECT_ANIMFS" encode "$src/examples/MOTION.BIN.yaml" -o "$T/MOTION.BIN" || fail "encode the MOTN example"
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode the Jazz example"

# the archives' size (MiB): small in the default tier, 48 in mount/crash_full
if [ "${ANIMFS_TEST_FULL:-}" = 1 ]; then big_mib=48 gz_mib=47; else big_mib=4 gz_mib=6; fi
# big_save KIND FILE MEMBER|"" SED FULL [MIB]: the archive FILE (MIB MiB, default $big_mib, of
# KIND; gzpks: a PKS in a gzip layer) in GAME, its member MEMBER (""; the package's Jazz)
# edited by SED through the mount; FULL=1 also kills the daemon at fault steps and by
# kill -9 in the middle of a save.
big_save() {
  local kind=$1 file=$2 member=$3 edit=$4 full=$5 mib=${6:-$big_mib} step rc got landed try writer
  python3 "$src/tests/tools/big_archive.py" "${kind#gz}" "$mib" "$T/$([ "$kind" = package ] && echo wave.jazz || echo MOTION.BIN)" "$T/big" ||
    fail "$kind: cannot build the archive"
  if [ "$kind" = gzpks ]; then # a gzip layer around it (level 1: the noise stays as large)
    python3 -c 'import gzip, sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[1], "wb").write(gzip.compress(d, 1, mtime=0))' "$T/big" ||
      fail "$kind: cannot gzip the archive"
  fi
  [ -n "$member" ] || member=$("$EXPECT_ANIMFS" decode "$T/big/index.yaml" | grep -o 'name: S3_02D5DF13_[^}]*' | head -1 | cut -c7-)
  [ -n "$member" ] || fail "$kind: no member to edit"
  local v="$VIEW/$file/$member.yaml"
  # the expected new bytes: the same edit by the command line
  rm -rf "$T/want" && mkdir -p "$T/want" && cp "$T/big" "$T/want/$file"
  "$EXPECT_ANIMFS" decode "$T/want/$file/$member" > "$T/big_orig.yaml" || fail "$kind: decode the member"
  sed "$edit" "$T/big_orig.yaml" > "$T/big_new.yaml"
  cmp -s "$T/big_orig.yaml" "$T/big_new.yaml" && fail "$kind: the edit did not apply"
  # the command line's peak memory (VmHWM, as /usr/bin/time's %M reads it) within the
  # bound of a --cache-mb=16 daemon as well (ASan's quarantine off)
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
    /usr/bin/time -f %M -o "$T/cli_rss" "$ANIMFS" encode "$T/big_new.yaml" -o "$T/want/$file/$member" ||
    fail "$kind: encode into the archive"
  echo "$kind: the command line's VmHWM saving into a $mib MiB $file: $(cat "$T/cli_rss") kB"
  [ "$(cat "$T/cli_rss")" -le $(((16 + 64) * 1024)) ] || fail "$kind: the command line peaked over the bound"
  cmp -s "$T/want/$file" "$T/big" && fail "$kind: the encode changed nothing"
  old_or_new() { # $1: what happened
    cmp -s "$GAME/$file" "$T/big" && { echo old; return; }
    cmp -s "$GAME/$file" "$T/want/$file" && { echo new; return; }
    fail "$1: the $kind is neither the old bytes nor the new ones"
  }
  # first a save and its revert with no fault: the mount writes the command line's
  # bytes, then the original ones again; its copy of the original (the first replace of
  # a save) then stands, so the fault below stops the archive's own replace
  rm -rf "${GAME:?}"/* "$GAME"/.animfs-tmp-* 2>/dev/null
  cp "$T/big" "$GAME/$file"
  # under --cache-mb=16 the daemon's peak memory (VmHWM) stays under the bound, 80 MiB,
  # though the archive is 48 MiB (it held it three times and more before: the file, the
  # container's copy, the new image; ASan's quarantine is off, as in archive_sizes.sh)
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" mount_view_fg --cache-mb=16
  cat "$T/big_new.yaml" > "$v" || fail "$kind: the save failed: $(cat "$T/daemon.log")"
  cmp -s "$GAME/$file" "$T/want/$file" || fail "$kind: the mount's save differs from the command line's"
  cat "$T/big_orig.yaml" > "$v" || fail "$kind: the revert failed"
  cmp -s "$GAME/$file" "$T/big" || fail "$kind: the revert does not give the original bytes"
  cat "$v" "$VIEW/$file/index.yaml" >/dev/null || fail "$kind: the views do not read after the saves"
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status")
  echo "$kind: the daemon's VmHWM after a save and a revert of a $mib MiB $file: $hwm kB (bound $(((16 + 64) * 1024)) kB)"
  [ "$hwm" -le $(((16 + 64) * 1024)) ] || fail "$kind: the daemon peaked at $hwm kB, over --cache-mb + 64 MiB"
  "$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
  check_daemon
  [ "$full" = 1 ] || return 0
  for step in after-temp-write after-rename; do
    ANIMFS_FAULT=$step mount_view_fg
    cat "$T/big_new.yaml" > "$v" 2>/dev/null && fail "$kind $step: the save succeeded though the daemon died"
    rc=0; wait "$DAEMON" || rc=$?
    [ $rc = 86 ] || fail "$kind $step: the daemon exited with $rc, not at the fault: $(cat "$T/daemon.log")"
    fusermount3 -u "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" || fail "$kind $step: stale mount stays"
    got=$(old_or_new "$kind $step")
    case $step in
      after-rename) [ "$got" = new ] || fail "$kind $step: the renamed file is not the new one" ;;
      *) [ "$got" = old ] || fail "$kind $step: the old file was changed" ;;
    esac
  done
  # kill -9 while the save copies (the temp file exists): tried until a kill lands in
  # the middle of a save (a temp file left), at most 5 times; each time old or new
  landed=0
  for try in 1 2 3 4 5; do
    rm -rf "${GAME:?}"/* "$GAME"/.animfs-tmp-* 2>/dev/null
    cp "$T/big" "$GAME/$file"
    mount_view_fg
    cat "$v" >/dev/null || fail "$kind: the member view does not read"
    (cat "$T/big_new.yaml" > "$v") 2>/dev/null &
    writer=$!
    for _ in $(seq 20000); do
      compgen -G "$GAME/.animfs-tmp-*" >/dev/null && break
      kill -0 "$writer" 2>/dev/null || break
    done
    kill -9 "$DAEMON"
    wait "$DAEMON" 2>/dev/null || true
    wait "$writer" 2>/dev/null || true
    fusermount3 -u "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" || fail "$kind kill -9: stale mount stays"
    got=$(old_or_new "$kind kill -9 (try $try)")
    if compgen -G "$GAME/.animfs-tmp-*" >/dev/null; then
      [ "$got" = old ] || fail "$kind kill -9: a temp file stays, yet the archive is not the old one"
      landed=1
      echo "$kind kill -9 (try $try): in the middle of the save, $(stat -c %s "$GAME"/.animfs-tmp-* | head -1) of $(stat -c %s "$T/want/$file") bytes in the temp file; the archive is the $got one"
      break
    fi
    echo "$kind kill -9 (try $try): the save had ended; the archive is the $got one"
  done
  [ $landed = 1 ] || echo "note: no kill landed in the middle of a $kind save (the old-or-new check still ran)"
}
motn_edit='s/\[8, 1, 1\.0\]/[8, 1, 1.5]/'
big_save afs BIG.AFS MOTION.BIN "$motn_edit" 1
big_save package BIG.package "" 's/weight: 3\.0,/weight: 2.5,/' 1
big_save pks BIG.PKS MOTION.MOTN "$motn_edit" 0
# a gzip layer's save is streamed (the PKS planned over the inflated bytes, the stream
# deflated into the temp file; a layer past 4 MiB is inflated into a temporary file):
# within the bound at 47 MiB (mount/crash_full), the most a layer may hold, killed too
# (a 48 MiB PKS inflates past AF_MAX_LAYER)
big_save gzpks BIG.PKS MOTION.MOTN "$motn_edit" 1 $gz_mib

# an unknown fault name is refused, not ignored
out=$(ANIMFS_FAULT=nonsense "$ANIMFS" mount "$GAME" "$VIEW" 2>&1) && fail "unknown ANIMFS_FAULT accepted"
echo "$out" | grep -q "ANIMFS_FAULT" || fail "unknown ANIMFS_FAULT message: $out"
echo "crash: ok"
