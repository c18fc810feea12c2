#!/bin/sh
# No credential reaches a file, a database or the terminal: query
# parameters and headers not known to be harmless are recorded with their
# values redacted (allowlist, lib/redact.c), URL userinfo is never written
# or printed, and the key a client sent is scrubbed from the error bodies
# that echo it (the mock's 401 does, as OpenAI's does).
. tests/cli/lib.sh

KEY=sk-tracebench-secret-0123456789abcdef
# nothing of these may be found in what tracebench writes
no_secret() {  # FILE...
	! grep -aqE "S1val|S2val|S3val|JWTval|BEARERval|CERTval|PWval|$KEY" "$@"
}

start_mock --ttft-ms 5 --itl-ms 1 --tokens 4
body='{"model":"mock","messages":[{"role":"user","content":"hi"}],"max_tokens":4}'

# ---- the proxy: query parameters and headers by allowlist
start_proxy "$WORK/p.jsonl.gz" --keep-query keepme
curl -sS -H 'Content-Type: application/json' -H 'Cf-Access-Jwt-Assertion: JWTval' \
	-H 'X-Bearer: BEARERval' -H 'X-Client-Cert: CERTval' -H 'User-Agent: tb-test' \
	-d "$body" "$PROXY/v1/chat/completions?api_key=S1val&key=S2val&token=S3val&api-version=2024-02-01&keepme=yes" \
	>/dev/null
stop_proxy INT
zcat "$WORK/p.jsonl.gz" >"$WORK/p.jsonl"
check "proxy: no query or header credential reaches the trace" no_secret "$WORK/p.jsonl"
check "... query values not on the allowlist are recorded as REDACTED" grep -qF \
	'"path":"/v1/chat/completions?api_key=REDACTED&key=REDACTED&token=REDACTED&api-version=2024-02-01&keepme=yes"' \
	"$WORK/p.jsonl"
check "... so are headers the old name-based guess kept (Cf-Access-Jwt-Assertion, X-Bearer, X-Client-Cert)" sh -c \
	"grep -qF '\"Cf-Access-Jwt-Assertion: REDACTED\"' '$WORK/p.jsonl' &&
	 grep -qF '\"X-Bearer: REDACTED\"' '$WORK/p.jsonl' && grep -qF '\"X-Client-Cert: REDACTED\"' '$WORK/p.jsonl'"
check "... a known harmless header keeps its value" grep -qF '"User-Agent: tb-test"' "$WORK/p.jsonl"
check "... and the recorded trace replays (the redacted headers are not sent)" sh -c \
	"'$TB' replay -e '$ENDPOINT' -n 1 --warmup 0 --quiet -o '$WORK/pr.jsonl.gz' '$WORK/p.jsonl.gz' >/dev/null 2>&1"

# ---- the proxy: userinfo of --upstream
UPSTREAM="http://user:PWval@127.0.0.1:${ENDPOINT##*:}" start_proxy "$WORK/u.jsonl.gz"
curl -sS -H 'Content-Type: application/json' -d "$body" "$PROXY/v1/chat/completions" >/dev/null
stop_proxy INT
check "proxy -u http://user:PW@...: the password is in neither the trace nor stderr" sh -c \
	"zcat '$WORK/u.jsonl.gz' >'$WORK/u.jsonl' && grep -qF '\"upstream\":\"http://127.0.0.1:' '$WORK/u.jsonl' &&
	 ! grep -q PWval '$WORK/u.jsonl' '$WORK/proxy.err'"

# ---- replay: userinfo of --endpoint
tb record synth -n 2 --input-tokens 8 --output-tokens 4 -o "$WORK/t.jsonl.gz" 2>/dev/null
tb replay -e "http://user:PWval@127.0.0.1:${ENDPOINT##*:}" -n 2 --warmup 0 \
	-o "$WORK/r.jsonl.gz" "$WORK/t.jsonl.gz" >"$WORK/out" 2>"$WORK/err"
check "replay -e http://user:PW@...: runs (exit 0)" test $? -eq 0
tb analyze load --db "$WORK/r.db" "$WORK/r.jsonl.gz" 2>/dev/null
check "... the password is in neither the results, the database, stdout nor stderr" sh -c \
	"zcat '$WORK/r.jsonl.gz' >'$WORK/r.jsonl' && grep -qF '\"endpoint\":\"http://127.0.0.1:' '$WORK/r.jsonl' &&
	 ! grep -aq PWval '$WORK/r.jsonl' '$WORK/r.db' '$WORK/out' '$WORK/err'"
stop_mock

# ---- error bodies that echo the key: replay, and the proxy
start_mock --ttft-ms 5 --itl-ms 1 --fail-every 1 --fail-status 401
OPENAI_API_KEY=$KEY tb replay -e "$ENDPOINT" -n 2 --warmup 0 --quiet \
	-o "$WORK/e.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/err"
zcat "$WORK/e.jsonl.gz" >"$WORK/e.jsonl"
check "replay, a 401 echoing the key: recorded as http 401" grep -q '"status":401,"error":"http"' "$WORK/e.jsonl"
check "... with its body, the key replaced by REDACTED" grep -qF 'Incorrect API key provided: REDACTED' "$WORK/e.jsonl"
tb analyze load --db "$WORK/e.db" "$WORK/e.jsonl.gz" 2>/dev/null
check "... the key is in neither the results, the database nor stderr" no_secret "$WORK/e.jsonl" "$WORK/e.db" "$WORK/err"
start_proxy "$WORK/pe.jsonl.gz"
curl -sS -H 'Content-Type: application/json' -H "X-Api-Key: $KEY" -d "$body" \
	"$PROXY/v1/chat/completions" >/dev/null
curl -sS -H 'Content-Type: application/json' -H "Authorization: Bearer $KEY" -d "$body" \
	"$PROXY/v1/chat/completions" >/dev/null
stop_proxy INT
zcat "$WORK/pe.jsonl.gz" >"$WORK/pe.jsonl"
check "proxy, 401s echoing the client's key: both recorded" test "$(grep -c '"status":401' "$WORK/pe.jsonl")" -eq 2
check "... the key is not in the trace" no_secret "$WORK/pe.jsonl"

# ---- an upstream that echoes the whole request (URI, every header) in
# its 401: whatever a file redacts is redacted wherever it comes back (the
# mock above, still running)
start_proxy "$WORK/echo.jsonl.gz"
curl -sS -H 'Content-Type: application/json' -H 'X-Custom-Token: hdr-secret-4242' \
	-H 'Cookie: session=cookie-secret-8181' -d "$body" \
	"$PROXY/v1/chat/completions?sig=qry-secret-7373&user=a%2Bb-secret-6262" >"$WORK/echo.out"
stop_proxy INT
zcat "$WORK/echo.jsonl.gz" >"$WORK/echo.jsonl"
check "proxy, an echoing 401: the client saw its request echoed (the test's premise)" \
	grep -q 'hdr-secret-4242' "$WORK/echo.out"
check "... recorded with its body" grep -q '"status":401' "$WORK/echo.jsonl"
for s in hdr-secret-4242 cookie-secret-8181 qry-secret-7373 a+b-secret-6262 a%2Bb-secret-6262; do
	check "... no redacted value in the trace: $s" sh -c "! grep -qF '$s' '$WORK/echo.jsonl'"
done
OPENAI_API_KEY=$KEY tb replay -e "$ENDPOINT/?api_key=ep-secret-5151" -n 2 --warmup 0 --quiet \
	-o "$WORK/eq.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/eq.err"
zcat "$WORK/eq.jsonl.gz" >"$WORK/eq.jsonl"
check "replay, an echoing 401 to an endpoint with a key in its query: recorded" \
	grep -q '"status":401' "$WORK/eq.jsonl"
check "... the query's key in neither the results nor stderr" sh -c \
	"! grep -qF ep-secret-5151 '$WORK/eq.jsonl' '$WORK/eq.err'"
stop_mock

# ---- an endpoint with a query (a key some gateways take there): the
# request's path goes before it, not after (every request was POST /, 404)
start_mock --ttft-ms 5 --itl-ms 1
tb replay -e "$ENDPOINT/?api_key=ep-secret-5151" -n 2 --warmup 0 --quiet \
	-o "$WORK/eq2.jsonl.gz" "$WORK/t.jsonl.gz" >/dev/null 2>"$WORK/eq2.err"
check "replay to an endpoint with a query: both requests answered 200" \
	test "$(requests_of "$WORK/eq2.jsonl.gz" | grep -c '"status":200')" -eq 2
stop_mock
finish
