#!/usr/bin/env bash
# `make api-check`: schemathesis (tools/requirements.txt) calls every operation of
# /api/openapi.json on the real debug binary, signed in as the bootstrap admin,
# with a fresh data directory and the demo data. Bounded: a few examples per
# operation, a time-out per request, a fixed seed (PORTAL_API_CHECK_SEED to explore
# another). Fails on any answer schemathesis judges wrong, by every check it
# has: a 5xx, a status the document does not list, a body unlike its
# operation's typed schema, another content type, a missing header or a
# token ignored, a method not refused, a request the schema allows refused or
# one it forbids taken (tools/schemathesis.toml names the operations whose
# refusals depend on what JSON Schema cannot say), …
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${PORTAL_BIN:-target/debug/portal}"
[[ -x "$binary" ]] || { echo "api-check: no portal binary at $binary: cargo build --bin portal" >&2; exit 1; }
bash tools/venv.sh

data="$(mktemp -d "${TMPDIR:-/tmp}/portal-api-check.XXXXXX")"
port="${PORTAL_API_CHECK_PORT:-$(.tools/venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
url="http://127.0.0.1:$port"
password="api-check-$RANDOM$RANDOM"

PORTAL_DATA_DIR="$data" PORTAL_HTTP_ADDR="127.0.0.1:$port" PORTAL_PUBLIC_URL="$url" \
  PORTAL_WEB_DIR="$data/no-web" PORTAL_ADMIN_LOGIN=admin PORTAL_ADMIN_PASSWORD="$password" \
  PORTAL_SEED_DEMO=true PORTAL_LOG=warn \
  "$binary" >"$data/portal.log" 2>&1 &
portal=$!
stop() {
  kill "$portal" 2>/dev/null && wait "$portal" 2>/dev/null || true
  rm -rf "$data"
}
trap stop EXIT

for _ in $(seq 240); do
  curl -fsS -o /dev/null "$url/readyz" 2>/dev/null && break
  kill -0 "$portal" 2>/dev/null || { cat "$data/portal.log" >&2; echo "api-check: the portal stopped" >&2; exit 1; }
  sleep 0.25
done

token="$(curl -fsS -H 'Content-Type: application/json' \
  -d "{\"login\":\"admin\",\"password\":\"$password\"}" "$url/api/auth/login" |
  .tools/venv/bin/python -c 'import json, sys; print(json.load(sys.stdin)["data"]["accessToken"])')"

# Run from the data directory: schemathesis leaves its state in the working one.
# Every check schemathesis has runs unless PORTAL_API_CHECK_CHECKS names some or
# PORTAL_API_CHECK_EXCLUDE leaves some out. Not `--checks all`: a check named on
# the command line overrides tools/schemathesis.toml's per-operation settings.
checks=()
[[ -n "${PORTAL_API_CHECK_CHECKS:-}" ]] && checks=(--checks "$PORTAL_API_CHECK_CHECKS")
exclude=()
[[ -n "${PORTAL_API_CHECK_EXCLUDE:-}" ]] && exclude=(--exclude-checks "$PORTAL_API_CHECK_EXCLUDE")
status=0
(cd "$data" && "$OLDPWD/.tools/venv/bin/schemathesis" \
  --config-file "$OLDPWD/tools/schemathesis.toml" run "$url/api/openapi.json" \
  --header "Authorization: Bearer $token" \
  "${checks[@]}" \
  "${exclude[@]}" \
  --phases "${PORTAL_API_CHECK_PHASES:-coverage,fuzzing}" \
  --max-examples "${PORTAL_API_CHECK_EXAMPLES:-5}" \
  --seed "${PORTAL_API_CHECK_SEED:-19}" \
  --request-timeout 20 \
  --workers 2 \
  --generation-database none \
  --generation-with-security-parameters false \
  --no-color) || status=$?
if [[ $status -ne 0 ]]; then
  echo "api-check: the portal's log (errors and warnings):" >&2
  tail -n 100 "$data/portal.log" >&2
fi
exit "$status"
