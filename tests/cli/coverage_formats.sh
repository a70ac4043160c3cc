#!/usr/bin/env bash
# `animfs check --coverage` over every sample: each format shows its numbers (animation
# bytes decoded into fields, and opaque), pinned here so that a regression in any codec
# shows; the Sims 3 state machines and rigs hold no animation data and say so.
set -u
dir="${ANIMFS_SAMPLES:-}"
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	echo "SKIP: ../shared/samples not found"
	exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
out=$("$ANIMFS" check --coverage "$dir")
echo "$out" | sed -n '/^coverage/,$p'
echo "$out" | grep -q "(the codec does not report coverage)" && fail "a format without numbers"
row() { echo "$out" | grep -Eq "^$1 +$2\$" || fail "row $1: $(echo "$out" | grep "^$1 ")"; }
row diesel-animation '29 +921641 +91168 +91\.00%'
row re-model '20 +816849 +5019 +99\.39%'
row shenmue-motn '6 +3830160 +126078 +96\.81%'
row sims3-clip '34 +7032892 +2796 +99\.96%'
row sims3-jazz '11 +0 +0 +- +\(no animation data in these files\)'
row sims3-rig '5 +0 +0 +- +\(no animation data in these files\)'
# a clip's opaque bytes are its 54 bytes of unknown header fields and 12 a event
echo "$out" | grep -E "^opaque .*CLIP\.animation: " | sed 's/.*: \([0-9]*\) of .*/\1/' \
	| awk '$1 < 54 || ($1 - 54) % 12 { bad = 1 } END { exit bad }' \
	|| fail "a clip with opaque bytes beyond its unknown fields and events"
echo "ok"
