# Issue 31 in the mount, with what a file keeps beside it: an RE3 EMD's preview carries the
# texture of the .TIM of the same name beside it (none when the .TIM goes), and a preview
# that read its folder is made anew at each stat (its siblings are not in the kept size's
# key), so its size is always the one read; a Sims 3 package's human clips do not take the
# prop rig the package holds (it is no skeleton of theirs). Needs ../shared/samples.
. "$(dirname "$0")/common.inc"
need_samples
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
emd=$ANIMFS_SAMPLES/re3/biohazard-utils_re3_emd_leon_em50.emd
pkg=$ANIMFS_SAMPLES/sims3-clip/echoweaver_SeasonsSymptoms/SeasonsSymptoms.package
[ -f "$emd" ] && [ -f "${emd%.emd}.tim" ] && [ -f "$pkg" ] || { echo "SKIP: the EMD, its TIM or the package missing"; exit 77; }
cp "$emd" "$GAME/em50.emd" && cp "${emd%.emd}.tim" "$GAME/em50.tim" && cp "$pkg" "$GAME/s.package" || fail "copy"
mount_view_fg
G=$VIEW/.animfs/gltf
info() { python3 -c 'import json, struct, sys
b = open(sys.argv[1], "rb").read(); n = struct.unpack_from("<I", b, 12)[0]; j = json.loads(b[20:20 + n])
x = j["asset"]["extras"]["animfs"]
print(len(j.get("images", [])), x.get("texture", "-"), x.get("skeleton_from", "-"))' "$1"; }
g=$G/em50.emd.yaml.glb
s1=$(stat -c %s "$g")
[ "$(info "$g")" = "1 em50.tim beside the file (an EMD keeps its texture there) -" ] || fail "the EMD's preview: $(info "$g")"
[ "$s1" = "$(wc -c < "$g")" ] || fail "stat $s1, read $(wc -c < "$g")"
"$ANIMFS" gltf "$GAME/em50.emd" -o "$T/cli.glb" && [ "$(info "$T/cli.glb")" = "$(info "$g")" ] || fail "the command line differs"
rm "$GAME/em50.tim"
s2=$(stat -c %s "$g") # no read in between: the stat makes it anew
[ "$s2" != "$s1" ] && [ "$s2" = "$(wc -c < "$g")" ] || fail "after the .TIM went: stat $s2 (before $s1), read $(wc -c < "$g")"
[ "$(info "$g")" = "0 none: no em50.TIM beside the file (an EMD keeps its texture there) -" ] || fail "without the TIM: $(info "$g")"
c=$G/s.package/c_buff_dazed_x.clip.yaml.glb
[ "$(info "$c")" = "0 - -" ] || fail "a human clip took the prop rig: $(info "$c")"
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
echo "ok: previews with what is beside the file"
