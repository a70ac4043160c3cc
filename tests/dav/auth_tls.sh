#!/usr/bin/env bash
# animfs serve beyond loopback: refused without --auth and TLS; with them, HTTPS and a
# password: no password or a wrong one gets 401 and nothing, the right one its views;
# a bad password file or certificate is refused at the start with the reason.
. "$(dirname "$0")/dav.inc"
command -v openssl >/dev/null || { echo "SKIP: openssl missing (scripts/setup installs it)"; exit 77; }
printf 'notes\n' > "$GAME/notes.txt"
for args in "--listen 0.0.0.0:0" "--listen 0.0.0.0:0 --auth $T/users" "--listen [::]:0"; do
  # shellcheck disable=SC2086
  out=$("$ANIMFS" serve "$GAME" $args 2>&1) && fail "serve $args started"
  echo "$out" | grep -q "needs --auth FILE and --tls-cert" || fail "serve $args: $out"
done
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 2 \
  -subj "/CN=127.0.0.1" 2> /dev/null || fail "openssl req"
printf 'bad line\n' > "$T/users"
out=$("$ANIMFS" serve "$GAME" --auth "$T/users" --listen 127.0.0.1:0 2>&1) && fail "a bad --auth file was taken"
echo "$out" | grep -q "users:1: not \"user:hash\"" || fail "bad --auth: $out"
out=$("$ANIMFS" serve "$GAME" --tls-cert "$T/cert.pem" --listen 127.0.0.1:0 2>&1) && fail "--tls-cert alone was taken"
echo "$out" | grep -q "go together" || fail "--tls-cert alone: $out"
printf '# animfs serve users\nmodder:%s\n' "$(openssl passwd -6 's3cret')" > "$T/users"
SCHEME=https start_serve --auth "$T/users" --tls-cert "$T/cert.pem" --tls-key "$T/key.pem"
k=(--cacert "$T/cert.pem")
expect 401 GET /notes.txt "${k[@]}"
grep -q notes "$T/body" && fail "a 401 carried the file"
expect 401 GET /notes.txt "${k[@]}" -u modder:wrong
expect 401 GET /notes.txt "${k[@]}" -u nobody:s3cret
expect 401 PUT /x.txt "${k[@]}" -u modder:wrong -T "$GAME/notes.txt"
[ ! -e "$GAME/x.txt" ] || fail "a PUT with a wrong password landed"
expect 200 GET /notes.txt "${k[@]}" -u modder:s3cret
grep -q notes "$T/body" || fail "the right password did not read the file"
expect 201 PUT /y.txt "${k[@]}" -u modder:s3cret -T "$GAME/notes.txt"
cmp -s "$GAME/y.txt" "$GAME/notes.txt" || fail "the PUT did not land"
# plain HTTP on the HTTPS port gets no file
got=$(curl -s --noproxy '*' -o "$T/body" -w '%{http_code}' "http://${U#https://}/notes.txt" || true)
grep -q notes "$T/body" && fail "plain HTTP read the file ($got)"
stop_serve
echo "PASS: loopback only without --auth and TLS; HTTPS with a password"
