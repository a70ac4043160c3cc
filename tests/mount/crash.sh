# Crash safety: the daemon is made to _exit() at each step of a save (ANIMFS_FAULT,
# a test-only switch read at mount start). Afterwards the backing file is complete,
# old or new, never a mix; a temporary file the crash left is never shown in the
# view, and the next mount removes it (its process is gone), anywhere in GAME. No samples needed: GAME holds the walk example's binary.
# Then the same for a save into a 48 MiB AFS, streamed (copies of the old ranges), and
# a kill -9 in the middle of such a save.
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

# A streamed rebuild (issue 28): a save into a large AFS assembles the new archive in
# the temp file from copies of the old one's ranges. Killed at a fault step, or by
# kill -9 while it copies, the AFS is the old bytes or the new ones (what `animfs
# encode` of the same edit gives), never a mix.
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
"$ANIMFS" encode "$src/examples/MOTION.BIN.yaml" -o "$T/MOTION.BIN" || fail "encode the MOTN example"
python3 - "$T/MOTION.BIN" "$T/big.AFS" <<'PY'
import os, struct, sys
motn = open(sys.argv[1], 'rb').read()
noise = os.urandom(1 << 20) * 48  # 48 MiB the save must carry over
members = [(b'MOTION.BIN', motn), (b'NOISE.BIN', noise)]
first = 2048
toc, data, recs, pos = b'', b'', b'', first
for name, body in members:
    toc += struct.pack('<II', pos, len(body))
    recs += struct.pack('<32s6HI', name, 2000, 1, 1, 0, 0, 0, len(body))
    pad = (-len(body)) % 2048
    data += body + bytes(pad)
    pos += len(body) + pad
head = b'AFS\0' + struct.pack('<I', len(members)) + toc + struct.pack('<II', pos, len(recs))
head += bytes(first - len(head))
open(sys.argv[2], 'wb').write(head + data + recs + bytes((-len(recs)) % 2048))
PY
[ -s "$T/big.AFS" ] || fail "cannot build the AFS"
afs_v="$VIEW/BIG.AFS/MOTION.BIN.yaml"
# the expected new bytes: the same edit by the command line
mkdir -p "$T/want" && cp "$T/big.AFS" "$T/want/BIG.AFS"
"$ANIMFS" decode "$T/want/BIG.AFS/MOTION.BIN" | sed 's/\[8, 1, 1\.0\]/[8, 1, 1.5]/' > "$T/afs_new.yaml"
grep -q '\[8, 1, 1\.5\]' "$T/afs_new.yaml" || fail "the AFS edit did not apply"
"$ANIMFS" encode "$T/afs_new.yaml" -o "$T/want/BIG.AFS/MOTION.BIN" || fail "encode into the AFS"
cmp -s "$T/want/BIG.AFS" "$T/big.AFS" && fail "the encode changed nothing"
old_or_new() { # $1: what happened
  cmp -s "$GAME/BIG.AFS" "$T/big.AFS" && { echo old; return; }
  cmp -s "$GAME/BIG.AFS" "$T/want/BIG.AFS" && { echo new; return; }
  fail "$1: the AFS is neither the old bytes nor the new ones"
}
# first a save and its revert with no fault: the mount writes the command line's bytes,
# then the original ones again; its copy of the original (the first replace of a save)
# then stands, so the fault below stops the AFS's own replace
rm -rf "${GAME:?}"/* "$GAME"/.animfs-tmp-* 2>/dev/null
cp "$T/big.AFS" "$GAME/BIG.AFS"
"$ANIMFS" decode "$T/big.AFS/MOTION.BIN" > "$T/afs_orig.yaml" || fail "decode the AFS member"
# under --cache-mb=16 the daemon's peak memory (VmHWM) stays under the bound, 80 MiB,
# though the AFS is 48 MiB (it held it three times and more before: the file, the
# container's copy, the new image; ASan's quarantine is off, as in archive_sizes.sh)
ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0" mount_view_fg --cache-mb=16
cat "$T/afs_new.yaml" > "$afs_v" || fail "AFS: the save failed"
cmp -s "$GAME/BIG.AFS" "$T/want/BIG.AFS" || fail "AFS: the mount's save differs from the command line's"
cat "$T/afs_orig.yaml" > "$afs_v" || fail "AFS: the revert failed"
cmp -s "$GAME/BIG.AFS" "$T/big.AFS" || fail "AFS: the revert does not give the original bytes"
cat "$afs_v" "$VIEW/BIG.AFS/index.yaml" >/dev/null || fail "AFS: the views do not read after the saves"
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$DAEMON/status")
echo "AFS: the daemon's VmHWM after a save and a revert of a 48 MiB AFS: $hwm kB (bound $(((16 + 64) * 1024)) kB)"
[ "$hwm" -le $(((16 + 64) * 1024)) ] || fail "AFS: the daemon peaked at $hwm kB, over --cache-mb + 64 MiB"
"$ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
for step in after-temp-write after-rename; do
  ANIMFS_FAULT=$step mount_view_fg
  cat "$T/afs_new.yaml" > "$afs_v" 2>/dev/null && fail "AFS $step: the save succeeded though the daemon died"
  rc=0; wait "$DAEMON" || rc=$?
  [ $rc = 86 ] || fail "AFS $step: the daemon exited with $rc, not at the fault: $(cat "$T/daemon.log")"
  fusermount3 -u "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" || fail "AFS $step: stale mount stays"
  got=$(old_or_new "AFS $step")
  case $step in
    after-rename) [ "$got" = new ] || fail "AFS $step: the renamed file is not the new one" ;;
    *) [ "$got" = old ] || fail "AFS $step: the old file was changed" ;;
  esac
done
# kill -9 while the save copies (the temp file exists): tried until a kill lands in
# the middle of a save (a temp file left), at most 5 times; each time old or new
landed=0
for try in 1 2 3 4 5; do
  rm -rf "${GAME:?}"/* "$GAME"/.animfs-tmp-* 2>/dev/null
  cp "$T/big.AFS" "$GAME/BIG.AFS"
  mount_view_fg
  cat "$afs_v" >/dev/null || fail "AFS: the member view does not read"
  (cat "$T/afs_new.yaml" > "$afs_v") 2>/dev/null &
  writer=$!
  for _ in $(seq 20000); do
    compgen -G "$GAME/.animfs-tmp-*" >/dev/null && break
    kill -0 "$writer" 2>/dev/null || break
  done
  kill -9 "$DAEMON"
  wait "$DAEMON" 2>/dev/null || true
  wait "$writer" 2>/dev/null || true
  fusermount3 -u "$VIEW" 2>/dev/null || fusermount3 -uz "$VIEW" || fail "AFS kill -9: stale mount stays"
  got=$(old_or_new "AFS kill -9 (try $try)")
  if compgen -G "$GAME/.animfs-tmp-*" >/dev/null; then
    [ "$got" = old ] || fail "AFS kill -9: a temp file stays, yet the AFS is not the old one"
    landed=1
    echo "AFS kill -9 (try $try): in the middle of the save, $(stat -c %s "$GAME"/.animfs-tmp-* | head -1) of $(stat -c %s "$T/want/BIG.AFS") bytes in the temp file; the AFS is the $got one"
    break
  fi
  echo "AFS kill -9 (try $try): the save had ended; the AFS is the $got one"
done
[ $landed = 1 ] || echo "note: no kill landed in the middle of a save (the old-or-new check still ran)"

# an unknown fault name is refused, not ignored
out=$(ANIMFS_FAULT=nonsense "$ANIMFS" mount "$GAME" "$VIEW" 2>&1) && fail "unknown ANIMFS_FAULT accepted"
echo "$out" | grep -q "ANIMFS_FAULT" || fail "unknown ANIMFS_FAULT message: $out"
echo "crash: ok"
