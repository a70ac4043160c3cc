# Acting as the caller, differentially (-o allow_other, the daemon as root): users A
# and B run one table of operations (tests/mount/differential.py) on a plain folder
# (a tmpfs where one can be mounted) and on the view of a copy of it; every outcome,
# owner, mode, content and who-may-read must be the same on both sides. Then what A is
# shown of B's files A may not read (views and their sizes, plots, previews, error
# lines, the daemon's stats) is what the plain folder shows of the binary (EACCES where
# its open is refused), and B and root get the real outputs.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
PLAIN=$T/plain
mkdir "$PLAIN"
if mount -t tmpfs -o mode=755 animfs-diff "$PLAIN" 2>/dev/null; then
  trap 'umount "$PLAIN" 2>/dev/null; cleanup; cleanup_users' EXIT
  echo "plain side: a tmpfs"
else
  echo "note: no tmpfs could be mounted here; the plain side is a folder beside GAME"
fi
mount_view_fg -o allow_other
"$PY" "$(dirname "$0")/differential.py" "$ANIMFS" "$src/examples/walk.animation.yaml" \
  "$PLAIN" "$GAME" "$VIEW" || fail "the view differs from the plain folder (lines above)"
"$EXPECT_ANIMFS" umount "$VIEW" >/dev/null || fail "umount"
check_daemon
echo "ok: differential"
