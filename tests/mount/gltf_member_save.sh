# Issue 45 (item 3) in the mount, for a container's member: a glTF written to the preview of
# a CLIP inside a real Sims 3 package (VIEW/.animfs/gltf/X.package/<clip>.clip.yaml.glb) goes
# back into the package through the member's save, the one a YAML save of that member takes:
# unedited, the package byte-identical; one key edited, the member's decode differs only
# there and the package is what `animfs import --into X.package/<clip>` makes; a hostile
# glTF refused, the package as it was, the reason in .animfs/errors. A MOTN member of a PKS
# (whose codec takes no glTF back today) never changes its container. Needs the samples.
. "$(dirname "$0")/common.inc"
src=${ANIMFS_SOURCE_DIR:-$(dirname "$0")/../..}
edit() { python3 "$src/tests/tools/glb_edit.py" "$@"; }
S=$ANIMFS_SAMPLES/sims3-clip/echoweaver_SeasonsSymptoms/SeasonsSymptoms.package
[ -f "$S" ] || { echo "SKIP: $S not found (../shared/samples)"; exit 77; }
K=$ANIMFS_SAMPLES/shenmue-containers/syn_pks_2motn.PKS
cp "$S" "$GAME/S.package" && chmod 644 "$GAME/S.package"
cp "$S" "$T/orig.package"
[ -f "$K" ] && cp "$K" "$GAME/m.PKS" && chmod 644 "$GAME/m.PKS"
M=c_buff_dazed_x.clip
mount_view_fg
P=$VIEW/.animfs/gltf/S.package/$M.yaml.glb
[ "$(stat -c %a "$P")" = 644 ] || fail "a member's preview is not writable: $(stat -c %a "$P")"
ls "$VIEW/.animfs/gltf/S.package" | grep -qx "$M.yaml.glb" || fail "the member's preview is not listed"
for v in "$VIEW"/S.package/*.yaml; do # every member's view, to see that only one changes
	cat "$v" > "$T/before.$(basename "$v")" || fail "read $v"
done
cp "$P" "$T/w.glb" || fail "read the member's preview"
[ "$(head -c 4 "$T/w.glb")" = glTF ] || fail "the member's preview is no GLB"
# no edit: the package stays as it was, byte for byte
cp "$T/w.glb" "$P" || fail "save of the unedited preview"
cmp -s "$GAME/S.package" "$T/orig.package" || fail "an unedited member preview changed the package"
grep -q "S.package/$M.yaml.glb: note: 0 channels changed" "$VIEW/.animfs/errors" ||
	fail "no note of no change: $(cat "$VIEW/.animfs/errors")"
# one key of one channel: the package is what animfs import --into makes of it
edit "$T/w.glb" "$T/e.glb" set b__ROOT_bind__ rotation 2 0.1 0 0 0.995 || fail "glb_edit"
cp "$T/orig.package" "$T/cli.package"
"$ANIMFS" import "$T/e.glb" --into "$T/cli.package/$M" > "$T/cli.out" || fail "animfs import --into the member"
cmp -s "$T/cli.package" "$T/orig.package" && fail "animfs import --into changed nothing"
cp "$T/e.glb" "$P" || fail "save of the edited member preview"
cmp -s "$GAME/S.package" "$T/cli.package" || fail "the mount's save differs from animfs import --into"
grep -q "S.package/$M.yaml.glb: note: changed: c_buff_dazed_x: b__ROOT_bind__ rotation: 144 keys" "$VIEW/.animfs/errors" ||
	fail "no note of the changed channel: $(cat "$VIEW/.animfs/errors")"
grep -q "S.package/$M.yaml.glb: note: 1 channel changed" "$VIEW/.animfs/errors" || fail "no note of the count"
# the member's decode differs from the original's only at that key, by the edit (one step)
"$ANIMFS" decode --schema-ref none "$T/orig.package/$M" > "$T/a.yaml" || fail "decode the original member"
"$ANIMFS" decode --schema-ref none "$GAME/S.package/$M" > "$T/b.yaml" || fail "decode the saved member"
python3 - "$T/a.yaml" "$T/b.yaml" <<'PY' || fail "the member's decode differs elsewhere"
import math, re, sys
a, b = (open(p).read().split("\n") for p in sys.argv[1:3])
assert len(a) == len(b), "line counts differ"
diff = [i for i in range(len(a)) if a[i] != b[i]]
assert len(diff) == 1, "lines %s differ" % diff
i = diff[0]
sub = next(a[j] for j in range(i, -1, -1) if "sub_target:" in a[j])
tgt = next(a[j] for j in range(i, -1, -1) if "target:" in a[j] and "sub_target" not in a[j])
quantum = float(re.search(r"quantum ([0-9.e-]+)", next(a[j] for j in range(i, -1, -1) if "quantum" in a[j])).group(1))
assert "b__ROOT_bind__" in tgt and "Orientation" in sub, (tgt, sub)
assert b[i].strip().startswith("2: ["), b[i]
got = [float(x) for x in b[i].split("[")[1].split("]")[0].split(",")]
want = [0.1, 0, 0, 0.995]
n = math.sqrt(sum(x * x for x in want))
err = max(abs(g - w / n) for g, w in zip(got, want))
assert err <= 1.5 * quantum, (got, err, quantum)
print("changed: line %d, %s %s, largest error %.6f (quantum %g)" % (i + 1, tgt.strip(), sub.strip(), err, quantum))
PY
for f in "$T"/before.*.yaml; do
	v=${f#"$T"/before.}
	case $v in "$M.yaml" | index.yaml) continue ;; esac # (the index: the member's new size)
	cmp -s "$f" "$VIEW/S.package/$v" || fail "$v changed with another member's preview save"
done
# refused: the package as it was, the reason in .animfs/errors naming the preview
cp "$GAME/S.package" "$T/before.package"
for k in nan:"not a finite number" buflen:"byteLength 2147483648" nojoint:"no such bone" count:"do not fit"; do
	edit "$T/w.glb" "$T/h.glb" "${k%%:*}" || fail "glb_edit ${k%%:*}"
	cp "$T/h.glb" "$P" 2> /dev/null && fail "${k%%:*}: the save succeeded"
	cmp -s "$GAME/S.package" "$T/before.package" || fail "${k%%:*}: the package changed"
	grep -q "S.package/$M.yaml.glb: .*${k#*:}" "$VIEW/.animfs/errors" ||
		fail "${k%%:*}: not in the errors: $(cat "$VIEW/.animfs/errors")"
done
# a MOTN member: its preview back into the PKS never changes it (the codec refuses, or
# nothing changed); a refusal of a writable preview says why in .animfs/errors
if [ -f "$K" ]; then
	cp "$GAME/m.PKS" "$T/m.PKS"
	Q=$VIEW/.animfs/gltf/m.PKS/M_SYNA.MOTN.yaml.glb
	cp "$Q" "$T/q.glb" || fail "read the MOTN member's preview"
	mode=$(stat -c %a "$Q")
	if ! cp "$T/q.glb" "$Q" 2> /dev/null && [ "$mode" = 644 ]; then
		grep -q "m.PKS/M_SYNA.MOTN.yaml.glb: " "$VIEW/.animfs/errors" || fail "a MOTN member's refusal says nothing"
	fi
	cmp -s "$GAME/m.PKS" "$T/m.PKS" || fail "a MOTN member's unedited preview changed its PKS"
	echo "a MOTN member's preview: mode $mode, its PKS unchanged"
else
	echo "note: $K not found: the MOTN member part skipped"
fi
"$EXPECT_ANIMFS" umount "$VIEW" || fail "umount"
check_daemon
cmp -s "$GAME/S.package" "$T/cli.package" || fail "the package after umount"
echo "ok: glTF saved to a container member's preview in the mount"
