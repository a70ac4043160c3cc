# --overlay under -o allow_other, raced (slow): the kernel keeps one set of attributes
# per inode and checks each open against it (default_permissions), so every caller
# must be shown the same owner and mode of a view. While A saves a view of a GAME file
# (a copy-up into A's MODDIR), root reads that view and B stats and reads every view in
# a loop: none of A's opens for writing nor of A's saves may be refused (when each caller
# was shown their own owner, another's answer landing during A's open refused it:
# EACCES, 4 of 60 saves).
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
N=${ANIMFS_RACE_SAVES:-20} OPENS=${ANIMFS_RACE_OPENS:-3000}
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/walk.animation" || fail "encode"
mkdir -p "$GAME/pub"
for i in $(seq "$N"); do cp "$T/walk.animation" "$GAME/pub/w$i.animation"; done
chmod -R go-w "$GAME"
MOD=$T/mod
mkdir -m 755 "$MOD" && chown "$UA" "$MOD"
mount_view_fg -o allow_other --overlay "$MOD"
# B (who may read every view but write none) and root keep the attributes changing
# hands, while $T/go is there (cleanup's rm of $T ends them, whatever ends the test)
touch "$T/go"
readers="while [ -e '$T/go' ]; do for f in '$VIEW'/pub/*.yaml; do stat \"\$f\" >/dev/null 2>&1;
  head -c 64 \"\$f\" >/dev/null 2>&1; done; done"
as_b sh -c "$readers" &
READERS=$!
sh -c "$readers" &
READERS="$READERS $!"
# A opens views of GAME files for writing, over and over (a close with nothing changed
# lands nothing: every open is another permission check against the shown attributes)
as_a "$PY" - "$VIEW/pub" "$OPENS" > "$T/opens" <<'PY' || fail "A's opens: $(cat "$T/opens")"
import errno, os, sys
d, n = sys.argv[1], int(sys.argv[2])
refused = 0
for i in range(n):
    try:
        os.close(os.open(os.path.join(d, "w%d.animation.yaml" % (1 + i % 4)), os.O_WRONLY))
    except OSError as e:
        if e.errno != errno.EACCES:
            raise
        refused += 1
print(refused)
PY
[ -z "$(ls "$MOD")" ] || fail "opens with nothing written landed files in MODDIR: $(ls -R "$MOD")"
# and A saves N views (each a copy-up) through the shell, root's sed reading each view
refused=0
for i in $(seq "$N"); do
  v=$VIEW/pub/w$i.animation.yaml
  if ! sed "s/^length: *[^ #]*/length: 7.25/" "$v" | as_a sh -c "cat > '$v'" 2>>"$T/refusals"; then
    refused=$((refused + 1))
  fi
done
rm -f "$T/go"; wait $READERS
landed=$(find "$MOD/pub" -name '*.animation' -user "$UA" 2>/dev/null | wc -l)
echo "$(cat "$T/opens") of $OPENS opens for writing refused; $refused of $N saves refused;" \
  "$landed copies landed in MODDIR"
[ "$(cat "$T/opens")" = 0 ] || fail "A's opens for writing refused: $(cat "$T/opens") of $OPENS"
[ "$refused" = 0 ] || fail "A's saves refused: $(sort "$T/refusals" | uniq -c | head -5)"
[ "$landed" = "$N" ] || fail "only $landed of $N copies are A's in MODDIR"
for i in 1 "$N"; do
  [ "$(length_of "$MOD/pub/w$i.animation")" = 7.25 ] || fail "w$i's copy does not hold the save"
done
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: $OPENS opens for writing and $N saves of overlay views under allow_other, none refused"
