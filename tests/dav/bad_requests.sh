#!/usr/bin/env bash
# Hostile and broken requests get a clear 4xx (or 5xx for what the server will not do),
# the server keeps serving, and nothing in GAME changes: paths out of GAME in every
# encoding, malformed and entity-laden XML, infinite depth, unknown methods, bad ranges,
# over-long names and headers, bodies past the bound, a lock held by another token.
. "$(dirname "$0")/dav.inc"
printf 'a\n' > "$GAME/a.txt"
mkdir "$GAME/sub"
printf 'secret\n' > "$T/outside.txt"
ln -s "$T/outside.txt" "$GAME/link.txt"
start_serve
before=$(game_sum)

# paths out of GAME: dot segments (plain and encoded), encoded slash, NUL, a link
raw() { curl -s --noproxy '*' --path-as-is -o "$T/body" -w '%{http_code}' "$@"; }
for p in "/../outside.txt" "/sub/../../outside.txt" "/%2e%2e/outside.txt" "/%2E%2E%2Foutside.txt" \
         "/sub%2f..%2f..%2foutside.txt" "/a.txt%00.yaml" "/.%2e/outside.txt" "/sub/%2e%2e/%2e%2e/outside.txt"; do
  got=$(raw "$U$p")
  case $got in 4??) ;; *) fail "GET $p: $got";; esac
  grep -q secret "$T/body" && fail "GET $p read a file outside GAME"
done
got=$(raw "$U/link.txt")
case $got in 4??) ;; *) fail "GET of a link out of GAME: $got";; esac
grep -q secret "$T/body" && fail "a link led out of GAME"
expect 400 PUT "/%2e%2e/x.txt" --path-as-is -T "$GAME/a.txt"
expect 400 MOVE /a.txt -H "Destination: $U/../moved.txt"
expect 400 COPY /a.txt -H "Destination: $U/sub%2f..%2f..%2fx.txt"
expect 502 COPY /a.txt -H "Destination: http://elsewhere.invalid/x.txt"
[ ! -e "$T/x.txt" ] && [ ! -e "$T/moved.txt" ] || fail "a write landed outside GAME"
# over-long names and paths
long=$(head -c 300 /dev/zero | tr '\0' a)
expect 414 GET "/$long"
got=$(dav GET "/$(head -c 40000 /dev/zero | tr '\0' a)")
case $got in 4??) ;; *) fail "a 40 kB URL: $got";; esac

# XML: malformed, wrong root, a DOCTYPE with entities (billion laughs), too deep
expect 400 PROPFIND / -H "Depth: 0" --data-binary '<D:propfind xmlns:D="DAV:"><D:prop>'
expect 400 PROPFIND / -H "Depth: 0" --data-binary '<propfind xmlns=""><allprop/></propfind>'
expect 400 PROPFIND / -H "Depth: 0" --data-binary '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><D:propfind xmlns:D="DAV:"><D:prop><D:x>&b;</D:x></D:prop></D:propfind>'
deep=$(printf '<a>%.0s' $(seq 200))
expect 400 PROPPATCH /a.txt --data-binary "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><x xmlns=\"u:\">$deep</x></D:prop></D:set></D:propertyupdate>"
expect 400 LOCK /a.txt --data-binary '<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope></D:lockinfo>'
# infinite depth and bad depths
expect 403 PROPFIND / -H "Depth: infinity"
grep -q "propfind-finite-depth" "$T/body" || fail "Depth infinity without propfind-finite-depth"
expect 400 PROPFIND / -H "Depth: 2"
# unknown methods, bad ranges, a partial PUT
expect 501 BREW /a.txt
expect 501 TRACE /a.txt
expect 416 GET /a.txt -H "Range: bytes=10-20"
expect 200 GET /a.txt -H "Range: bytes=x-y"
expect 400 PUT /a.txt -H "Content-Range: bytes 0-1/2" -T "$GAME/a.txt"
# an XML body past its bound, a PUT past --max-body announced, huge headers
head -c $((2 << 20)) /dev/zero | tr '\0' ' ' > "$T/big.xml"
expect 413 PROPFIND / -H "Depth: 0" --data-binary @"$T/big.xml"
got=$(dav PUT /huge.txt -H "Content-Length: 99999999999999" --data-binary "x" 2>/dev/null || true)
case $got in 413|400|000) ;; *) fail "a PUT announcing 90 TB: $got";; esac
got=$(dav GET /a.txt -H "X-Big: $(head -c 70000 /dev/zero | tr '\0' b)")
case $got in 4??) ;; *) fail "a 70 kB header: $got";; esac
# MKCOL with a body, in a missing folder; PUT into a missing folder
expect 415 MKCOL /newdir --data-binary "x"
expect 409 MKCOL /no/such/dir
expect 409 PUT /no/such.txt -T "$GAME/a.txt"
# a lock held by another: its token is needed
lockxml='<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>'
expect 200 LOCK /a.txt --data-binary "$lockxml" -D "$T/h"
token=$(sed -n 's/^[Ll]ock-[Tt]oken: *<\(.*\)>.*/\1/p' "$T/h" | tr -d '\r')
expect 423 PUT /a.txt -T "$T/big.xml"
expect 423 DELETE /a.txt
expect 423 MOVE /a.txt -H "Destination: $U/b.txt"
expect 423 LOCK /a.txt --data-binary "$lockxml"
expect 412 PUT /a.txt -H "If: (<opaquelocktoken:00000000-0000-4000-8000-000000000000>)" -T "$T/big.xml"
expect 400 PUT /a.txt -H "If: (<unterminated" -T "$T/big.xml"
expect 409 UNLOCK /sub -H "Lock-Token: <$token>"
expect 204 UNLOCK /a.txt -H "Lock-Token: <$token>"

# still serving, GAME as it was
expect 200 GET /a.txt
[ "$(game_sum)" = "$before" ] || fail "GAME changed"
stop_serve
echo "PASS: every hostile request refused, GAME unchanged, the server serving"
