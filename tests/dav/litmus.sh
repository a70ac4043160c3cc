#!/usr/bin/env bash
# litmus (the WebDAV server test suite) against `animfs serve` of a scratch GAME: every
# test of its basic, copymove, props, locks and http suites passes (docs/serve.md).
. "$(dirname "$0")/dav.inc"
command -v litmus >/dev/null || { echo "SKIP: litmus missing (scripts/setup installs it)"; exit 77; }
start_serve
out=$(cd "$T" && timeout 300 litmus "$U/" 2>&1) || { echo "$out" >&2; fail "litmus failed"; }
echo "$out" | grep summary
for suite in basic copymove props locks http; do
  echo "$out" | grep -q "summary for \`$suite': of [0-9]* tests run: [0-9]* passed, 0 failed" ||
    { echo "$out" >&2; fail "litmus $suite did not pass whole"; }
done
# a request URI with a fragment is refused, not taken for its collection (litmus warns)
echo "$out" | grep -q "WARNING" && { echo "$out" | grep WARNING >&2; fail "litmus warned"; }
stop_serve
echo "PASS: litmus basic, copymove, props, locks, http all pass"
