# --overlay MODDIR keeps the multi-user rules (issue 32; the daemon as root with
# -o allow_other acts as each caller): A's saves make A's files and folders in MODDIR
# (A's folder); B, who may not write MODDIR, is refused and nothing lands; nobody saves
# a GAME file they may not read (B's 0600 view: EACCES for A, no copy-up); a package
# member's override package is A's too. GAME is unchanged.
. "$(dirname "$0")/common.inc"
. "$(dirname "$0")/users.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
here=$(dirname "$0")
"$EXPECT_ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$T/walk.animation" || fail "encode"
"$EXPECT_ANIMFS" encode "$src/examples/wave_hello.jazz.yaml" -o "$T/wave.jazz" || fail "encode jazz"
mkdir -p "$GAME/pub"
cp "$T/walk.animation" "$GAME/pub/walk.animation"
cp "$T/walk.animation" "$GAME/pub/b.animation" && chown "$UB" "$GAME/pub/b.animation" &&
  chmod 600 "$GAME/pub/b.animation"
"$PY" "$here/mkpackage.py" "$GAME/pub/m.package" "02D5DF13:1:$T/wave.jazz" || fail "mkpackage"
chmod -R go-w "$GAME"
sums() { (cd "$GAME" && find . -type f -print0 | sort -z | xargs -0 sha256sum; find . -printf '%p %u %m\n' | sort); }
sums > "$T/game.sums"
MOD=$T/mod
mkdir -m 755 "$MOD" && chown "$UA" "$MOD"
mount_view_fg -o allow_other --overlay "$MOD"
v=$VIEW/pub/walk.animation.yaml
edit() { sed "s/^length: *[^ #]*/length: $2/" "$1" > "$T/e.yaml" && cat "$T/e.yaml"; }
# A: a copy-up, A's file in A's new folder
edit "$v" 7.25 | as_a sh -c "cat > '$v'" || fail "A's save: $(cat "$VIEW/.animfs/errors")"
[ "$(stat -c %U "$MOD/pub/walk.animation")" = "$UA" ] && [ "$(stat -c %U "$MOD/pub")" = "$UA" ] ||
  fail "MODDIR's copy is not A's: $(ls -la "$MOD" "$MOD/pub")"
# B may not write MODDIR (nor A's copy): refused, nothing changes
edit "$v" 9.5 | as_b sh -c "cat > '$v'" 2>/dev/null && fail "B saved into A's mod folder"
[ "$(length_of "$MOD/pub/walk.animation")" = 7.25 ] || fail "B's refused save changed A's copy"
# B's 0600 GAME file: A may neither read nor save it, no copy lands
as_a cat "$VIEW/pub/b.animation.yaml" >/dev/null 2>&1 && fail "A read B's 0600 view"
edit "$v" 1.5 | as_a sh -c "cat > '$VIEW/pub/b.animation.yaml'" 2>/dev/null && fail "A saved over B's 0600 view"
[ ! -e "$MOD/pub/b.animation" ] || fail "a copy of B's file landed in MODDIR"
# a package member: the override package is A's
m=$VIEW/pub/m.package/S3_02D5DF13_00000000_0000000000000001.jazz.yaml
sed '0,/speed: 1.0/s//speed: 1.5/' "$m" > "$T/j.yaml" || fail "read the member"
as_a sh -c "cat '$T/j.yaml' > '$m'" || fail "A's member save: $(cat "$VIEW/.animfs/errors")"
[ "$(stat -c %U "$MOD/pub/m.package")" = "$UA" ] || fail "the override package is not A's"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
sums | cmp -s - "$T/game.sums" || fail "GAME changed"
echo "ok: overlay saves as the caller"
