#!/usr/bin/env bash
# How the Deployments' requests and limits were chosen: the release binary run as
# the five processes the manifests start (each service its own PostgreSQL
# database, JSON logs), resident memory idle, then peak memory and CPU while
# h2load drives the gateway with sign-ins, signed-in reads and readiness checks.
# Needs: `cargo build --release --bin portal`, h2load (Debian's nghttp2-client),
# PostgreSQL at $POSTGRES (trust auth). Not part of `make test`: figures, no verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/portal}
POSTGRES=${POSTGRES:-postgres://postgres@127.0.0.1:5432}
export PGOPTIONS="-c client_min_messages=warning"
KEYS=k8s/overlays/dev/jwt
SERVICES=(auth education wiki files)
declare -A PORT=([auth]=51051 [education]=51052 [wiki]=51053 [files]=51054)
declare -A PID
work="$(mktemp -d)"

cleanup() {
  kill "${PID[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  for s in "${SERVICES[@]}"; do psql -q "$POSTGRES/postgres" -c "DROP DATABASE IF EXISTS measure_$s" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

for s in "${SERVICES[@]}"; do
  psql -q "$POSTGRES/postgres" -c "DROP DATABASE IF EXISTS measure_$s" -c "CREATE DATABASE measure_$s"
  env PORTAL_TARGET="$s" PORTAL_GRPC_ADDR="127.0.0.1:${PORT[$s]}" PORTAL_LOG_FORMAT=json PORTAL_LOG=warn \
    PORTAL_DATABASE_URL="$POSTGRES/measure_$s" PORTAL_DATA_DIR="$work/$s" \
    PORTAL_JWT_PRIVATE_KEY_FILE="$KEYS/private.pem" PORTAL_JWT_PUBLIC_KEY_FILE="$KEYS/public.pem" \
    PORTAL_ADMIN_PASSWORD=measure-admin-password PORTAL_TRUSTED_PROXIES=127.0.0.0/8 \
    "$BIN" > "$work/$s.log" 2>&1 &
  PID[$s]=$!
done
mkdir -p "$work/web" && echo '<!doctype html><title>measure</title>' > "$work/web/index.html"
env PORTAL_TARGET=gateway PORTAL_HTTP_ADDR=127.0.0.1:18080 PORTAL_WEB_DIR="$work/web" \
  PORTAL_LOG_FORMAT=json PORTAL_LOG=warn PORTAL_DATA_DIR="$work/gateway" \
  PORTAL_AUTH_URL=http://127.0.0.1:51051 PORTAL_EDUCATION_URL=http://127.0.0.1:51052 \
  PORTAL_WIKI_URL=http://127.0.0.1:51053 PORTAL_FILES_URL=http://127.0.0.1:51054 \
  "$BIN" > "$work/gateway.log" 2>&1 &
PID[gateway]=$!
# Ready, and every service serving (each line after the first of /readyz's body).
serving() { local body; body=$(curl -sf http://127.0.0.1:18080/readyz) && ! tail -n +2 <<<"$body" | grep -qv ': serving'; }
for _ in $(seq 100); do serving && break; sleep 0.2; done
serving || { tail -n 5 "$work"/*.log; echo "not ready" >&2; exit 1; }
sleep 5

PARTS=(gateway "${SERVICES[@]}")
rss() { awk '/VmRSS/{print $2}' "/proc/$1/status"; }
peak() { awk '/VmHWM/{print $2}' "/proc/$1/status"; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
echo "idle resident memory:"
declare -A T0
for p in "${PARTS[@]}"; do
  echo "  $p: $(( $(rss "${PID[$p]}") / 1024 )) MiB"
  T0[$p]=$(ticks "${PID[$p]}")
done

start=$(date +%s.%N)
printf '{"login":"admin","password":"measure-admin-password"}' > "$work/login.json"
echo "sign-ins (argon2id in auth):"
h2load -n 400 -c 16 -d "$work/login.json" -H 'content-type: application/json' \
  http://127.0.0.1:18080/api/auth/login | grep -E '^(finished|status codes)'
token=$(curl -sf -H 'content-type: application/json' -d @"$work/login.json" http://127.0.0.1:18080/api/auth/login |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["accessToken"])')
echo "signed-in reads (gateway → auth):"
h2load -n 20000 -c 32 -m 4 -H "authorization: Bearer $token" \
  http://127.0.0.1:18080/api/user/get-me | grep -E '^(finished|status codes)'
echo "readiness (gateway → every service):"
h2load -n 20000 -c 32 -m 4 http://127.0.0.1:18080/readyz | grep -E '^(finished|status codes)'
end=$(date +%s.%N)

hz=$(getconf CLK_TCK)
echo "under load (peak resident memory, CPU in cores averaged over the run):"
for p in "${PARTS[@]}"; do
  cpu=$(python3 -c "print(round(($(ticks "${PID[$p]}") - ${T0[$p]}) / $hz / ($end - $start), 2))")
  echo "  $p: $(( $(peak "${PID[$p]}") / 1024 )) MiB, $cpu cores"
done
