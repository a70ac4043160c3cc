# Issue 28: the daemon's heap under the render cache's churn stays within the bound. A
# folder whose YAML is many times --cache-mb=64 (3,000 generated Diesel animations of
# ~90 KB views, and every sample beside them: 370 MB of YAML, as scripts/bench 3000) is
# listed and read twice: the cache keeps, evicts and replaces texts, and a text of the
# heap leaves a hole there when it goes. With blocks up to 256 KiB from the heap the
# daemon peaked at 133-147 MiB, over the bound of --cache-mb + 64 = 128 MiB; its peak
# (VmHWM) stays within it, every view read whole.
. "$(dirname "$0")/common.inc"
[ -d "$ANIMFS_SAMPLES" ] || { echo "SKIP: no samples (the motion banks' renders on a full cache are part of it)"; exit 77; }
# an unsanitized daemon (tests/samples.inc): ASan's heap says nothing of glibc's
[ "$PLAIN" != "$ANIMFS" ] || { echo "SKIP: the unsanitized build is not there (scripts/test makes it)"; exit 77; }
ANIMFS=$PLAIN
gen=$(dirname "$PLAIN")/animfs-bench
[ -x "$gen" ] || gen=${ANIMFS_BUILD_DIR:?}/animfs-bench
"$gen" gen "$T/g" 3000 >/dev/null || fail "cannot generate the animations"
mv "$T/g/anims" "$GAME/views"
while IFS= read -r f; do
  rel=${f#"$ANIMFS_SAMPLES"/}
  mkdir -p "$GAME/views/samples_${rel%%/*}"
  cp "$f" "$GAME/views/samples_${rel%%/*}/$(tr / _ <<< "$rel")"
done < <(find "$ANIMFS_SAMPLES" -type f ! -name SOURCES.md)
ANIMFS_SIZE_CACHE=0 mount_view_fg --cache-mb=64
pid=$(cat "$VIEW/.animfs/pid")
ls -lR "$VIEW/views" >/dev/null || fail "ls -lR"
mapfile -t views < <(find "$VIEW/views" -name '*.yaml' | sort)
[ "${#views[@]}" -gt 3000 ] || fail "only ${#views[@]} views"
bytes=$(cat "${views[@]}" | wc -c)
cat "${views[@]}" >/dev/null || fail "the second read"
[ "$bytes" -gt $((300 << 20)) ] || fail "only $bytes bytes of YAML"
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
"$EXPECT_ANIMFS" umount "$VIEW"
check_daemon
echo "${#views[@]} views, $((bytes >> 20)) MiB of YAML read twice under --cache-mb=64: daemon VmHWM $((hwm >> 10)) MiB (bound 128)"
[ "$hwm" -le $((128 << 10)) ] || fail "the daemon peaked at $((hwm >> 10)) MiB, over --cache-mb + 64 = 128 MiB"
echo "cache_heap: ok"
