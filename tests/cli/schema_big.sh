#!/usr/bin/env bash
# The slow half of cli/schema (labelled slow; scripts/test runs it, --quick does not):
# the views of the samples over 40 KiB and of the members of containers over 40 KiB,
# 90 MB of YAML in all (the two Shenmue motion banks 14 MB each), start with their
# modeline and validate against their format's schema, one validator run per format.
SCHEMA_TIER=big
. "$(dirname "$0")/schema.inc"
S=${ANIMFS_SAMPLES:-}
if [ -z "$S" ] || [ ! -d "$S" ]; then
	echo "SKIP: ../shared/samples not found (the big sample views are not validated)"
	exit 77
fi
view_samples
echo "samples up to $BIG bytes are cli/schema's"
ls "$tmp"/list.* >/dev/null 2>&1 || { echo "SKIP: no sample over $BIG bytes has a view"; exit 77; }
validate $formats
echo "$n passed, $fails failed"
[ $fails -eq 0 ]
