#!/usr/bin/env bash
# `make upgrade-drill`: k8s/README.md's upgrade and rollback, across two real
# releases, on this machine. Not in `make test`: it builds a second binary.
#
# Release N is built from its git tag (the newest `v*` tag, or
# UPGRADE_DRILL_FROM=<ref>): `git archive` of it into target/upgrade-drill/src-<commit>
# (no worktree of this repository is touched), built there with its own lock file
# under `nice -n 19` (target/upgrade-drill/target, kept for the next run). N+1 is
# today's binary (PORTAL_BIN, default target/debug/portal). UPGRADE_DRILL_OLD_BIN
# names a binary of N built before, instead of building it.
#
# The split topology as the manifests run it, on PostgreSQL servers of its own
# (initdb in a temporary directory; never the machine's running server): two
# replicas of each service and two gateways, each process with its release's
# k8s/base/*.env and the Deployment's own settings, each service migrated first
# by its release's `portal migrate` (the init container) and started with
# PORTAL_MIGRATE=check. Four writers create departments through the gateways the
# whole time, logging each acknowledged title and each refused call. Then:
#   upgrade to N+1:  per service, N+1's `portal migrate`, then each replica stopped
#                    (SIGTERM: it drains) and started again on N+1; then each
#                    gateway, taken out of the writers' rotation first (its
#                    endpoint removed, as preStop's sleep allows) and put back once
#                    ready;
#   roll back to N:  the same with N's binary and N's env files; N's `portal
#                    migrate` must apply nothing;
# and at the end, read through a gateway of N: every acknowledged write must be
# there. Prints the figures; fails if a write was lost or a step did not work.
# KEEP_DRILL=1 keeps its directory (each process's log in logs/, the refused
# calls in refusals, with the answer's reason and message).
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C

from="${UPGRADE_DRILL_FROM:-$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)}"
if [[ -z $from ]]; then
  echo "upgrade-drill: no release tag (v*) to go back to: tag the release N (git tag v1.0.0 <commit>) or set UPGRADE_DRILL_FROM=<ref>" >&2
  exit 1
fi
sha="$(git rev-parse --verify "$from^{commit}")"
new_bin="$(realpath "${PORTAL_BIN:-target/debug/portal}")"
[[ -x $new_bin ]] || { echo "upgrade-drill: no N+1 binary at $new_bin (cargo build --bin portal)" >&2; exit 1; }
pg_bin="${PG_BIN:-}"
if [[ -z $pg_bin ]]; then
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x $candidate/initdb ]] && { pg_bin=$candidate; break; }
  done
fi
[[ -n $pg_bin && -x $pg_bin/initdb ]] || { echo "upgrade-drill: no PostgreSQL server binaries (set PG_BIN)" >&2; exit 1; }

note() { printf 'upgrade-drill: %s\n' "$*"; }
seconds() { python3 -c "print(f'{$EPOCHREALTIME - $1:.1f}')"; }

# --- Release N, built from its tag.
drill="$PWD/target/upgrade-drill"
old_src="$drill/src-$sha"
if [[ ! -f $old_src/Cargo.toml ]]; then
  mkdir -p "$old_src"
  git archive "$sha" | tar -x -C "$old_src"
fi
build_started=$EPOCHREALTIME
if [[ -n ${UPGRADE_DRILL_OLD_BIN:-} ]]; then
  old_bin="$(realpath "$UPGRADE_DRILL_OLD_BIN")"   # N already built (by this script before)
else
  (cd "$old_src" && CARGO_TARGET_DIR="$drill/target" nice -n 19 cargo build --locked --bin portal --quiet)
  old_bin="$drill/target/debug/portal"
fi
note "release N = $from ($sha), built in $(seconds "$build_started") s; N+1 = $new_bin"

# --- PostgreSQL of its own.
work="$(mktemp -d "${TMPDIR:-/tmp}/portal-upgrade-drill.XXXXXX")"
as_pg=()
if [[ $(id -u) == 0 ]]; then
  chown postgres: "$work"
  as_pg=(runuser -u postgres --)
fi
pids=()
cleanup() {
  local status=$?
  touch "$work/stop" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  [[ -n ${KEEP_DRILL:-} ]] && echo "upgrade-drill: kept $work" >&2 || rm -rf "$work"
  exit $status
}
trap cleanup EXIT INT TERM
# A free port below the kernel's ephemeral range (ip_local_port_range), none
# given before. Each replica has an address nothing listens at between its
# rollouts, which the gateways keep watching: a port of the ephemeral range may
# meanwhile go to any other process binding port 0, and a `cargo test` auth
# server there (keys of its own) is a serving replica of auth to the gateways,
# refusing the writers' token with 401 until it stops.
free_port() {
  python3 - "$work/ports" <<'PY'
import os, random, socket, sys
given = set(open(sys.argv[1]).read().split()) if os.path.exists(sys.argv[1]) else set()
try:
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
except (OSError, ValueError, IndexError):
    low = 32768
for _ in range(1000):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", random.randrange(10000, low) if low > 11000 else 0))
        except OSError:
            continue
        port = str(s.getsockname()[1])
    if port not in given:
        open(sys.argv[1], "a").write(port + "\n")
        print(port)
        break
else:
    sys.exit("upgrade-drill: no free port")
PY
}
pg_port=$(free_port)
"${as_pg[@]}" "$pg_bin/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
printf "port = %s\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nmax_connections = 200\n" "$pg_port" "$work" >> "$work/pg/postgresql.conf"
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w start >/dev/null
for service in auth education wiki files; do
  "$pg_bin/psql" -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -c "CREATE DATABASE $service"
done

# --- The topology: ports and settings. Each replica has two addresses, `a` and
# `b`: a rollout starts the new process on the other one before it stops the old
# (maxSurge, as the Deployments roll), and the gateways know all four addresses
# of a service as they would know its headless Service's changing pods: an address
# nothing answers at takes no calls until its health does (k8s/README.md, «Load
# balancing»).
SERVICES=(auth education wiki files)
declare -A port color
for service in "${SERVICES[@]}" gateway; do
  for replica in 1 2; do
    port[$service-$replica-a]=$(free_port); port[$service-$replica-b]=$(free_port)
    color[$service-$replica]=a
  done
done
urls() {
  local list="" replica c
  for replica in 1 2; do for c in a b; do list+="${list:+,}http://127.0.0.1:${port[$1-$replica-$c]}"; done; done
  echo "$list"
}
mkdir -p "$work/web" "$work/data" "$work/blobs" "$work/logs"
admin_password=drill-admin-password
jwt=k8s/overlays/dev/jwt
env_file() { grep -v '^\s*#' "$1" | grep '=' || true; }

# The environment of process $1 (auth-1-a, gateway-2-b, …) of release $2 (src dir).
settings() {
  local name=$1 src=$2 part=${1%%-*}
  local -a env=(PATH="$PATH" HOME="$HOME" PORTAL_WEB_DIR="$work/web" PORTAL_DATA_DIR="$work/data" PORTAL_LOG_FORMAT=json)
  if [[ $part == gateway ]]; then
    mapfile -t -O "${#env[@]}" env < <(env_file "$src/k8s/base/gateway.env"; env_file "$src/k8s/base/limits.env")
    env+=(PORTAL_TARGET=gateway PORTAL_HTTP_ADDR="127.0.0.1:${port[$name]}" PORTAL_METRICS_ADDR="127.0.0.1:$(free_port)"
      PORTAL_AUTH_URL="$(urls auth)" PORTAL_EDUCATION_URL="$(urls education)" PORTAL_WIKI_URL="$(urls wiki)"
      PORTAL_FILES_URL="$(urls files)" PORTAL_TRUSTED_PROXIES=127.0.0.0/8)
  else
    mapfile -t -O "${#env[@]}" env < <(env_file "$src/k8s/base/service.env")
    env+=(PORTAL_TARGET="$part" PORTAL_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/$part"
      PORTAL_JWT_PUBLIC_KEY_FILE="$PWD/$jwt/public.pem" PORTAL_GRPC_ADDR="127.0.0.1:${port[$name]}"
      PORTAL_METRICS_ADDR="127.0.0.1:$(free_port)" PORTAL_TRUSTED_PROXIES=127.0.0.0/8 PORTAL_MIGRATE=check
      PORTAL_INTERNAL_KEY_FILE="$PWD/k8s/overlays/dev/internal/key")
    case $part in
      auth) env+=(PORTAL_JWT_PRIVATE_KEY_FILE="$PWD/$jwt/private.pem" PORTAL_ADMIN_PASSWORD="$admin_password") ;;
      *) env+=(PORTAL_AUTH_URL="$(urls auth)") ;;
    esac
    case $part in
      wiki) env+=(PORTAL_EDUCATION_URL="$(urls education)") ;;
      education) env+=(PORTAL_WIKI_URL="$(urls wiki)") ;;
      files)
        mapfile -t -O "${#env[@]}" env < <(env_file "$src/k8s/base/limits.env")
        env+=(PORTAL_FILES_STORE="$work/blobs" PORTAL_WIKI_URL="$(urls wiki)"
          PORTAL_FILES_LINK_KEY_FILE="$PWD/k8s/overlays/dev/files-link/key") ;;
    esac
  fi
  printf '%s\n' "${env[@]}"
}

declare -A pid_of log_of
starts=0
start_process() { # name with its address (auth-1-b), binary, release src
  local -a env
  mapfile -t env < <(settings "$1" "$3")
  starts=$((starts + 1))
  log_of[$1]="$work/logs/$1.$starts.log"
  env -i "${env[@]}" "$2" > "${log_of[$1]}" 2>&1 &
  pid_of[$1]=$!
  pids+=($!)
}
wait_listening() { # name: the service's gRPC server serves (its log says so)
  local i
  for i in $(seq 1 600); do
    grep -q '"gRPC service listening' "${log_of[$1]}" && return 0
    kill -0 "${pid_of[$1]}" 2>/dev/null || { tail -20 "${log_of[$1]}" >&2; echo "upgrade-drill: $1 exited" >&2; exit 1; }
    sleep 0.1
  done
  echo "upgrade-drill: $1 never listened" >&2; exit 1
}
gateway_serving() { # name: /readyz 200 and every upstream serving
  local body
  body="$(curl -s -f --max-time 2 "http://127.0.0.1:${port[$1]}/readyz")" || return 1
  ! tail -n +2 <<<"$body" | grep -v ': serving' | grep -q .
}
wait_gateway() {
  local i
  for i in $(seq 1 600); do
    gateway_serving "$1" && return 0
    kill -0 "${pid_of[$1]}" 2>/dev/null || { tail -20 "${log_of[$1]}" >&2; echo "upgrade-drill: $1 exited" >&2; exit 1; }
    sleep 0.1
  done
  echo "upgrade-drill: $1 never served: $(curl -s "http://127.0.0.1:${port[$1]}/readyz")" >&2; exit 1
}
stop_process() { # name: SIGTERM, then wait for it to drain and exit
  local pid=${pid_of[$1]} i
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 800); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
migrate() { # service, binary, release src: its init container; prints its line
  local -a env
  mapfile -t env < <(settings "$1-1-a" "$3")
  env -i "${env[@]}" PORTAL_LOG_FORMAT=text "$2" migrate > "$work/logs/$1-migrate.log" 2>&1 \
    || { cat "$work/logs/$1-migrate.log" >&2; echo "upgrade-drill: $1: portal migrate failed" >&2; exit 1; }
  grep -o "$1 database is up to date.*" "$work/logs/$1-migrate.log" | sed 's/\x1b\[[0-9;]*m//g' | head -1
}

current() { echo "$1-${color[$1]}"; }
other() { [[ ${color[$1]} == a ]] && echo b || echo a; }
# The gateways the writers use (as the gateway Service's endpoints).
publish() { local g; for g in gateway-1 gateway-2; do echo "${port[$(current $g)]}"; done > "$work/gateways.new"; mv "$work/gateways.new" "$work/gateways"; }

# Rolls every part onto binary $1 of release src $2, as a rollout does: per
# service, its `portal migrate` (the first new pod's init container), then each
# replica: the new one started, ready, found by the gateways (they look again
# every 5 s), then the old one sent SIGTERM (it says NOT_SERVING and drains).
roll() {
  local bin=$1 src=$2 label=$3 service replica old new line
  for service in "${SERVICES[@]}"; do
    line="$(migrate "$service" "$bin" "$src")"
    echo "$label: $line" >> "$work/migrations"
    for replica in 1 2; do
      old="$(current "$service-$replica")"; new="$service-$replica-$(other "$service-$replica")"
      start_process "$new" "$bin" "$src"
      wait_listening "$new"
      sleep 6
      stop_process "$old"
      color[$service-$replica]=${new##*-}
    done
  done
  for replica in 1 2; do
    old="$(current "gateway-$replica")"; new="gateway-$replica-$(other "gateway-$replica")"
    start_process "$new" "$bin" "$src"
    wait_gateway "$new"
    color[gateway-$replica]=${new##*-}
    publish              # the new endpoint in, the old one out (preStop's sleep)
    sleep 2
    stop_process "$old"
  done
}

# --- Start at N.
started=$EPOCHREALTIME
for service in "${SERVICES[@]}"; do
  echo "N: $(migrate "$service" "$old_bin" "$old_src")" >> "$work/migrations"
  for replica in 1 2; do start_process "$service-$replica-a" "$old_bin" "$old_src"; done
done
for replica in 1 2; do start_process "gateway-$replica-a" "$old_bin" "$old_src"; done
for service in "${SERVICES[@]}"; do for replica in 1 2; do wait_listening "$service-$replica-a"; done; done
for gateway in gateway-1-a gateway-2-a; do wait_gateway "$gateway"; done
publish
note "the split topology at N serves (10 processes), in $(seconds "$started") s"

# --- Writers, the whole time.
phase() { echo "$1" > "$work/phase.new"; mv "$work/phase.new" "$work/phase"; }
phase N
python3 - "$work" "$admin_password" <<'PY' &
import json, os, sys, threading, time, urllib.request, urllib.error
work, password = sys.argv[1], sys.argv[2]
def gateways():
    return open(f"{work}/gateways").read().split()
def call(port, path, body=None, token=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST" if body is not None else "GET",
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=15) as response:
        return json.load(response)
token = call(gateways()[0], "/api/auth/login", {"login": "admin", "password": password})["data"]["accessToken"]
open(f"{work}/token", "w").write(token)
lock = threading.Lock()
acks, refusals = open(f"{work}/acks", "a"), open(f"{work}/refusals", "a")
def writer(w):
    n = 0
    while not os.path.exists(f"{work}/stop-writers"):
        n += 1
        phase = open(f"{work}/phase").read().strip()
        ports = gateways()
        port = ports[(w + n) % len(ports)]
        title = f"Запись {w}-{n}"
        try:
            answer = call(port, "/api/department/create", {"title": title, "users": []}, token)
            ok = answer.get("success") is True
            why = "" if ok else f"envelope {answer.get('errorMessage')}"
        except urllib.error.HTTPError as error:
            # The envelope's reason and message tell apart, say, a stale
            # token (ACCESS_REVOKED) from one not accepted (UNAUTHENTICATED).
            try:
                envelope = json.load(error)
                detail = f" {envelope.get('reason')} «{envelope.get('errorMessage')}»"
            except Exception:
                detail = ""
            ok, why = False, f"HTTP {error.code}{detail}"
        except Exception as error:
            ok, why = False, type(error).__name__
        with lock:
            if ok:
                acks.write(f"{phase}\t{title}\n"); acks.flush()
            else:
                refusals.write(f"{phase}\t{title}\t{why}\n"); refusals.flush()
        time.sleep(0.02)
threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
for t in threads: t.start()
for t in threads: t.join()
PY
writers_pid=$!
pids+=($writers_pid)
for i in $(seq 1 100); do [[ -s $work/acks ]] && break; sleep 0.1; done
[[ -s $work/acks ]] || { echo "upgrade-drill: the writers wrote nothing" >&2; exit 1; }
sleep 3

# --- Upgrade to N+1, steady, roll back to N, steady.
phase upgrade; began=$EPOCHREALTIME
roll "$new_bin" "$PWD" "N+1"
upgrade_seconds=$(seconds "$began")
phase N+1; sleep 3
phase rollback; began=$EPOCHREALTIME
roll "$old_bin" "$old_src" "N again"
rollback_seconds=$(seconds "$began")
phase "N again"; sleep 3
touch "$work/stop-writers"; wait "$writers_pid"

# --- Count, reading through a gateway of N.
python3 - "$work" "$(head -1 "$work/gateways")" "$upgrade_seconds" "$rollback_seconds" <<'PY'
import collections, json, sys, urllib.request
work, port, upgrade, rollback = sys.argv[1:5]
request = urllib.request.Request(f"http://127.0.0.1:{port}/api/department/get-all")
request.add_header("Authorization", f"Bearer {open(f'{work}/token').read()}")
stored = {row["title"] for row in json.load(urllib.request.urlopen(request, timeout=30))["data"]}
acks = [line.rstrip("\n").split("\t") for line in open(f"{work}/acks")]
refusals = [line.rstrip("\n").split("\t") for line in open(f"{work}/refusals")]
by_phase = collections.Counter(phase for phase, _ in acks)
refused = collections.defaultdict(collections.Counter)
for phase, _, why in refusals:
    refused[phase][why] += 1
lost = [title for _, title in acks if title not in stored]
unacknowledged = {title for _, title, _ in refusals} & stored
print(f"upgrade-drill: {len(acks)} writes acknowledged ({', '.join(f'{p}: {n}' for p, n in by_phase.items())}); "
      f"{len(lost)} lost; read back through N: {len(stored)} departments")
for phase in ("N", "upgrade", "N+1", "rollback", "N again"):
    if refused[phase]:
        print(f"upgrade-drill: refused during {phase}: {sum(refused[phase].values())} ({dict(refused[phase])})")
print(f"upgrade-drill: refused calls in all: {len(refusals)} ({len(unacknowledged)} of them stored all the same: answered with an error after the write)")
print(f"upgrade-drill: the upgrade took {upgrade} s, the rollback {rollback} s")
sys.exit(1 if lost else 0)
PY
status=$?
sed 's/^/upgrade-drill: /' "$work/migrations"
if grep "^N again:" "$work/migrations" | grep -qv "applied now: none"; then
  echo "upgrade-drill: N's portal migrate applied something on the rollback" >&2
  status=1
fi
((status == 0)) && note "PASSED in $(seconds "$started") s" || note "FAILED"
exit $status
