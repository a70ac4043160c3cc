#!/usr/bin/env bash
# Diesel .animation through the command line: all samples round-trip, a one-value
# edit changes exactly that line, and broken input gives exit 1 with a placed message.
set -u
S=${ANIMFS_SAMPLES:-}/diesel
if [ -z "${ANIMFS_SAMPLES:-}" ] || [ ! -d "$S" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# 1. every sample decodes and re-encodes byte for byte
out=$("$ANIMFS" check "$S" 2>&1) || fail "check exited $?: $out"
case "$out" in *"29 of 29 decoded files identical, 0 refused as damaged"*) ;; *) fail "check: $out";; esac

# 2. edit exactly one key value (Hips position key 0 of e_so_kate: 14.8 cm -> 15.5 cm)
kate=$S/phys808__shared_special_e_so_kate.animation
"$ANIMFS" decode "$kate" > "$tmp/kate.yaml" || fail "decode kate"
grep -q '^        - \[0.0, 14.8, 37.84, 78.83\]$' "$tmp/kate.yaml" || fail "Hips key 0 not printed as expected"
sed 's/^        - \[0.0, 14.8, 37.84, 78.83\]$/        - [0.0, 15.5, 37.84, 78.83]/' "$tmp/kate.yaml" > "$tmp/edit.yaml"
[ "$(diff "$tmp/kate.yaml" "$tmp/edit.yaml" | grep -c '^[<>]')" = 2 ] || fail "sed did not change exactly one line"
"$ANIMFS" encode "$tmp/edit.yaml" -o "$tmp/edit.animation" || fail "encode of the edit"
"$ANIMFS" decode "$tmp/edit.animation" > "$tmp/back.yaml" || fail "decode of the edit"
diff -u "$tmp/edit.yaml" "$tmp/back.yaml" || fail "edited YAML does not come back unchanged"
cmp -s "$kate" "$tmp/edit.animation" && fail "the edit did not change the binary"
[ "$(stat -c %s "$tmp/edit.animation")" -gt 100 ] || fail "edited binary too small"

# 3. structural edits keep the file's style: a third-party file (no padding, event
#    names copied): one more event, one key inserted, the last object removed
knife=$S/glorykills__shared_rifle_generic_heister_execution_knife_front.animation
"$ANIMFS" decode "$knife" > "$tmp/knife.yaml" || fail "decode knife"
grep -q '^  dedupe_event_names: false$' "$tmp/knife.yaml" || fail "knife: style not detected"
last_ev=$(grep -n '^  - \[.*\]  # .* s$' "$tmp/knife.yaml" | tail -1 | cut -d: -f1)
last_obj=$(grep -n '^  - name:' "$tmp/knife.yaml" | tail -1 | cut -d: -f1)
awk -v le="$last_ev" -v lo="$last_obj" '
	NR >= lo { next }
	{ print }
	NR == le { print }                      # the last event once more
	' "$tmp/knife.yaml" > "$tmp/knife2.yaml"
# insert a key at 0.05 s after the first key at 1/30 s, with that key's values
awk '!done && /^        - \[0.033333335, / { print; sub(/\[0.033333335, /, "[0.05, "); print; done = 1; next } { print }' \
	"$tmp/knife2.yaml" > "$tmp/knife3.yaml"
[ "$(diff "$tmp/knife.yaml" "$tmp/knife3.yaml" | grep -c '^>')" = 2 ] || fail "knife: edit script did not add 2 lines"
"$ANIMFS" encode "$tmp/knife3.yaml" -o "$tmp/knife3.animation" 2>/dev/null || fail "encode knife edit"
"$ANIMFS" decode "$tmp/knife3.animation" > "$tmp/knife4.yaml" || fail "decode knife edit"
diff -u "$tmp/knife3.yaml" "$tmp/knife4.yaml" || fail "knife: structural edit does not come back unchanged"

# 4. broken inputs: exit 1, a message naming the file and the place, no crash
head -c 800 "$kate" > "$tmp/trunc.animation"
out=$("$ANIMFS" decode "$tmp/trunc.animation" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] || fail "truncated: exit $rc"
case "$out" in *"trunc.animation: byte 0x"*) ;; *) fail "truncated: $out";; esac
printf 'format: diesel-animation\nlength: 1.0\nobjects:\n  - name: a\n    position: {type: pos_u16, keys: [[0.0, 1, 2]]}\n' > "$tmp/garbage.yaml"
out=$("$ANIMFS" encode "$tmp/garbage.yaml" -o "$tmp/garbage.animation" 2>&1); rc=$?
[ $rc = 1 ] || fail "garbage YAML: exit $rc"
case "$out" in *"garbage.yaml:5:38: objects[0].position.keys[0]: a pos_u16 key is"*) ;; *) fail "garbage YAML: $out";; esac
[ -e "$tmp/garbage.animation" ] && fail "garbage YAML left an output file"
printf 'format: diesel-animation\nlength: [1.0\n' > "$tmp/broken.yaml"
out=$("$ANIMFS" encode "$tmp/broken.yaml" -o "$tmp/broken.animation" 2>&1); rc=$?
[ $rc = 1 ] || fail "unparsable YAML: exit $rc"
case "$out" in *"broken.yaml:"[0-9]*:[0-9]*": "*) ;; *) fail "unparsable YAML: $out";; esac

[ $fails = 0 ] && echo "ok: diesel samples"
exit $((fails > 0))
