# The command line's save of a loose game file and the mount's are one pipeline (issue
# 42): the same edit, saved through the view and by `animfs encode X.yaml -o FILE` into a
# copy of the file, gives the same bytes (the examples' Diesel animation, and the
# smallest Diesel sample when ../shared/samples is there); a save of the same text again
# rewrites neither; with --overlay the copy each makes in its MODDIR is the same file
# (bytes and mode).
. "$(dirname "$0")/common.inc"
here=$(dirname "$0")
src=${ANIMFS_SOURCE_DIR:-$here/../..}
"$ANIMFS" encode "$src/examples/walk.animation.yaml" -o "$GAME/walk.animation" || fail "encode the example"
names=walk.animation
if [ $HAVE_SAMPLES = 1 ]; then
	s=$(ls -S "$ANIMFS_SAMPLES"/diesel/*.animation | tail -1)
	cp "$s" "$GAME/sample.animation" && chmod u+w "$GAME/sample.animation" || fail "copy $s"
	names="$names sample.animation"
else
	echo "note: ../shared/samples not found; the examples' animation only"
fi
mkdir "$T/cli" "$T/mod" "$T/climod"
for n in $names; do cp "$GAME/$n" "$T/cli/$n"; done
# the edits, made from the files' own decodes
for n in $names; do
	"$ANIMFS" decode "$GAME/$n" | sed 's/^length: *\([0-9.]*\)/length: 1\1/' > "$T/$n.e.yaml"
	cmp -s <("$ANIMFS" decode "$GAME/$n") "$T/$n.e.yaml" && fail "$n: the edit changed nothing"
done
mount_view_fg
for n in $names; do
	cp "$T/$n.e.yaml" "$VIEW/$n.yaml" || fail "$n: the save through the view"
	"$ANIMFS" encode "$T/$n.e.yaml" -o "$T/cli/$n" 2>"$T/err" || fail "$n: the CLI's save: $(cat "$T/err")"
	cmp "$GAME/$n" "$T/cli/$n" || fail "$n: the two saves of one edit differ"
	# the same text again: neither writes
	i0=$(stat -c '%i %y' "$GAME/$n") c0=$(stat -c '%i %y' "$T/cli/$n")
	cp "$T/$n.e.yaml" "$VIEW/$n.yaml" || fail "$n: unchanged save through the view"
	"$ANIMFS" encode "$T/$n.e.yaml" -o "$T/cli/$n" 2>"$T/err" || fail "$n: unchanged CLI save: $(cat "$T/err")"
	[ "$(stat -c '%i %y' "$GAME/$n")" = "$i0" ] || fail "$n: an unchanged save through the view rewrote it"
	[ "$(stat -c '%i %y' "$T/cli/$n")" = "$c0" ] || fail "$n: an unchanged CLI save rewrote it"
done
"$EXPECT_ANIMFS" umount "$VIEW"
check_daemon

# --overlay: GAME read-only, a copy in each MODDIR
for n in $names; do "$ANIMFS" decode "$GAME/$n" | sed 's/^length: *1/length: 2/' > "$T/$n.o.yaml"; done
chmod 444 "$GAME"/*.animation
mount_view_fg --overlay "$T/mod"
for n in $names; do
	cp "$T/$n.o.yaml" "$VIEW/$n.yaml" || fail "$n: the save through the view (--overlay)"
	"$ANIMFS" encode "$T/$n.o.yaml" -o "$GAME/$n" --overlay "$T/climod" --game "$GAME" 2>"$T/err" ||
		fail "$n: the CLI's save (--overlay): $(cat "$T/err")"
	cmp "$T/mod/$n" "$T/climod/$n" || fail "$n: the two copies of one edit differ"
	[ "$(stat -c %a "$T/mod/$n")" = "$(stat -c %a "$T/climod/$n")" ] ||
		fail "$n: the copies' modes differ: $(stat -c %a "$T/mod/$n" "$T/climod/$n")"
done
"$EXPECT_ANIMFS" umount "$VIEW"
check_daemon
echo "ok: one edit gives the same bytes from the view and the command line, --overlay too"
