#!/usr/bin/env bash
# `make examples`: runs both example clients of docs/integration.md against the real
# debug binary (fresh data directory, demo data, bootstrap admin), as an
# integration engineer would, and fails loudly on any deviation:
#   the admin registers a system (REST) → the Python client (grpcio +
#   requests-oauthlib) gets a token by client credentials, syncs 5,000 staff, syncs
#   them again (nothing changes), assigns a demo course to a department by its HR
#   code, pulls training records since a cursor, follows the watch stream while a
#   demo learner completes a test (the record must arrive within 1 s); the account
#   is disabled and the token endpoint answers 401 invalid_client; then the Rust
#   client (tonic), on a second account: token, 100 staff, records, one completion
#   on the watch stream.
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${PORTAL_BIN:-target/debug/portal}"
client="${PORTAL_EXAMPLE_CLIENT:-target/debug/portal-example-client}"
[[ -x "$binary" ]] || { echo "examples: no portal binary at $binary: cargo build --bin portal" >&2; exit 1; }
[[ -x "$client" ]] || { echo "examples: no Rust example at $client: cargo build -p portal-example-client" >&2; exit 1; }
py="$(bash examples/python/venv.sh)"
python_client=(env PYTHONUNBUFFERED=1 "$py" examples/python/portal_client.py)

data="$(mktemp -d "${TMPDIR:-/tmp}/portal-examples.XXXXXX")"
port="${PORTAL_EXAMPLES_PORT:-$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
url="http://127.0.0.1:$port"
password="examples-$RANDOM$RANDOM"

PORTAL_DATA_DIR="$data" PORTAL_HTTP_ADDR="127.0.0.1:$port" PORTAL_PUBLIC_URL="$url" \
  PORTAL_WEB_DIR="$data/no-web" PORTAL_ADMIN_LOGIN=admin PORTAL_ADMIN_PASSWORD="$password" \
  PORTAL_SEED_DEMO=true PORTAL_LOG=warn \
  "$binary" >"$data/portal.log" 2>&1 &
portal=$!
watcher=""
stop() {
  [[ -n "$watcher" ]] && kill "$watcher" 2>/dev/null
  kill "$portal" 2>/dev/null && wait "$portal" 2>/dev/null || true
  rm -rf "$data"
}
trap stop EXIT

fail() {
  echo "examples: FAILED: $*" >&2
  echo "examples: the portal's log (last lines):" >&2
  tail -n 40 "$data/portal.log" >&2
  exit 1
}
step() { echo "examples: $*"; }

# A field of JSON: `get JSON EXPR`, EXPR a Python expression on `d`.
get() {
  "$py" -c 'import json, sys
d = json.loads(sys.argv[1])
r = eval(sys.argv[2])
print(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))' "$1" "$2"
}

# A REST call in the portal's envelope: `rest METHOD PATH TOKEN [JSON]` prints `data`.
rest() {
  local method=$1 path=$2 token=$3 body=${4:-} answer status
  local args=(-sS -X "$method" -H "Authorization: Bearer $token" -w '\n%{http_code}')
  [[ -n "$body" ]] && args+=(-H 'Content-Type: application/json' --data "$body")
  answer="$(curl "${args[@]}" "$url$path")" || fail "$method $path: no answer"
  status="${answer##*$'\n'}"
  answer="${answer%$'\n'*}"
  [[ "$status" == 200 ]] || fail "$method $path answered HTTP $status: $answer"
  get "$answer" 'd["data"]'
}

sign_in() {
  local answer
  answer="$(curl -sS -H 'Content-Type: application/json' \
    -d "{\"login\":\"$1\",\"password\":\"$2\"}" "$url/api/auth/login")"
  get "$answer" 'd["data"]["accessToken"]' 2>/dev/null || fail "sign-in as $1 answered: $answer"
}

# `check NAME JSON EXPR`: EXPR (Python on `d`) must hold for JSON.
check() {
  [[ "$(get "$2" "bool($3)")" == true ]] || fail "$1: expected $3, got $2"
}

# A demo learner takes one of their tests with tries left and submits the first
# answer of each question. Prints the time (epoch seconds) just before the submit
# and the attempt's id.
complete_a_test() {
  local token tests test_id attempt attempt_id answers before
  token="$(sign_in "$1" "$1-demo-password")"
  tests="$(rest GET /api/test/get-my-tests "$token")"
  test_id="$(get "$tests" '[t["summary"]["id"] for t in d if t["summary"]["numberOfTriesLeft"] > 0][0]')" ||
    fail "$1 has no test with tries left: $tests"
  attempt="$(rest POST /api/test/start-attempt "$token" "{\"testId\":$test_id}")"
  answers="$(get "$attempt" '[{"questionId": q["id"], "answerId": q["answers"][0]["id"]} for q in d["questions"]]')"
  attempt_id="$(get "$attempt" 'd["attemptId"]')"
  before="$("$py" -c 'import time; print(time.time())')"
  rest POST /api/test/complete-test "$token" \
    "{\"testId\":$test_id,\"userId\":0,\"attemptId\":$attempt_id,\"questionWithAnswers\":$answers}" >/dev/null
  echo "$before $attempt_id"
}

# `watch_one CLIENT... ` runs `CLIENT watch` in the background from the cursor in
# $cursor until one record, waits until its stream is open, has a learner
# complete a test, and checks the record came within 1 s of the submit.
watch_one() {
  local learner=$1
  shift
  "$@" watch --after "$cursor" --max 1 --timeout 30 >"$data/watch.out" 2>"$data/watch.err" &
  watcher=$!
  for _ in $(seq 200); do
    grep -q "watching after" "$data/watch.err" && break
    kill -0 "$watcher" 2>/dev/null || fail "watch stopped before its stream opened: $(cat "$data/watch.err")"
    sleep 0.05
  done
  grep -q "watching after" "$data/watch.err" || fail "the watch stream did not open in 10 s: $(cat "$data/watch.err")"
  local completed before attempt_id
  completed="$(complete_a_test "$learner")"
  read -r before attempt_id <<<"$completed"
  wait "$watcher" || fail "watch ended without a record: $(cat "$data/watch.err")"
  watcher=""
  local line
  line="$(head -n 1 "$data/watch.out")"
  [[ -n "$line" ]] || fail "watch printed nothing"
  local delay
  delay="$(get "$line" "round(d['receivedAt'] - $before, 3)")"
  check "the watch stream's record is the attempt just completed" "$line" "str(d['record']['attemptId']) == '$attempt_id'"
  check "the completion on the watch stream within 1 s" "$delay" 'd <= 1.0'
  step "  the watch stream delivered $learner's completion ${delay} s after the submit: $line"
}

# Staff as HR knows them: `staff FILE COUNT PREFIX` writes a sync-staff body.
staff() {
  "$py" - "$@" <<'EOF'
import json, sys
path, count, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
surnames = ["Иванов", "Петров", "Сидоров", "Кузнецов", "Попов", "Соколов", "Лебедев", "Козлов"]
names = ["Андрей", "Иван", "Олег", "Павел", "Сергей", "Юрий", "Максим", "Денис"]
patronymics = ["Андреевич", "Иванович", "Олегович", "Павлович", "Сергеевич"]
departments = [{"code": f"{prefix}-D{n:02}", "title": f"Отделение {prefix} №{n}"} for n in range(1, 21)]
positions = [{"code": f"{prefix}-P{n:02}", "title": f"Должность {prefix} №{n}"} for n in range(1, 11)]
people = [{
    "employeeNumber": f"{prefix}{n:05}",
    "surname": surnames[n % len(surnames)],
    "name": names[n // len(surnames) % len(names)],
    "lastName": patronymics[n % len(patronymics)],
    "login": f"{prefix.lower()}{n:05}",
    "email": f"{prefix.lower()}{n:05}@hospital.example",
    "departmentCodes": [departments[n % len(departments)]["code"]],
    "positionCodes": [positions[n % len(positions)]["code"]],
    "dismissed": False,
} for n in range(1, count + 1)]
with open(path, "w", encoding="utf-8") as file:
    json.dump({"departments": departments, "positions": positions, "people": people}, file, ensure_ascii=False)
EOF
}

for _ in $(seq 240); do
  curl -fsS -o /dev/null "$url/readyz" 2>/dev/null && break
  kill -0 "$portal" 2>/dev/null || { cat "$data/portal.log" >&2; echo "examples: the portal stopped" >&2; exit 1; }
  sleep 0.25
done

admin="$(sign_in admin "$password")"
all_scopes='["staff.read","staff.write","training.read","training.assign","equipment.read","equipment.write"]'
account="$(rest POST /api/service-account/create "$admin" \
  "{\"name\":\"Кадровая система (пример Python)\",\"description\":\"examples/run.sh\",\"scopes\":$all_scopes}")"
account_id="$(get "$account" 'd["id"]')"
export PORTAL_URL="$url"
export PORTAL_CLIENT_ID PORTAL_CLIENT_SECRET
PORTAL_CLIENT_ID="$(get "$account" 'd["clientId"]')"
PORTAL_CLIENT_SECRET="$(get "$account" 'd["clientSecret"]')"
step "registered service account $account_id (client id $PORTAL_CLIENT_ID) with every scope"

# --- Python -----------------------------------------------------------------------
step "Python (grpcio + requests-oauthlib)"
token="$("${python_client[@]}" token)" || fail "python: no token"
check "python: the token's scope" "$token" 'set(d["scope"].split()) >= {"staff.write", "training.read", "training.assign"} and 300 <= d["expiresIn"] <= 900'
step "  token: $token"

staff "$data/staff.json" 5000 HR
first="$("${python_client[@]}" sync-staff "$data/staff.json")" || fail "python: sync-staff refused"
check "python: the first sync of 5,000 staff" "$first" 'd["created"] == 5000 and d["changed"] == 0 and d["blocked"] == 0 and not d["errors"] and d["departmentCounts"]["created"] == 20'
step "  first sync: $first"
again="$("${python_client[@]}" sync-staff "$data/staff.json")" || fail "python: the second sync-staff refused"
check "python: the same 5,000 again change nothing" "$again" 'd["created"] == 0 and d["changed"] == 0 and d["blocked"] == 0 and d["unchanged"] == 5000 and not d["errors"] and d["departmentCounts"]["unchanged"] == 20'
step "  second sync: $again"

course_id="$(get "$(rest GET /api/course/get-all-courses "$admin")" 'd[0]["id"]')"
deadline="$(date -u -d '+30 days' +%F)"
assigned="$("${python_client[@]}" assign --course "$course_id" --department HR-D01 --deadline "$deadline")" ||
  fail "python: assign refused"
check "python: the course assigned to the 250 people of HR-D01" "$assigned" 'len(d["assigned"]) == 250 and not d["notFoundDepartmentCodes"]'
again="$("${python_client[@]}" assign --course "$course_id" --department HR-D01 --deadline "$deadline")" ||
  fail "python: the second assign refused"
check "python: the same assignment again changes nothing" "$again" 'not d["assigned"] and not d["updated"] and len(d["unchanged"]) == 250'
step "  assigned course $course_id to the 250 people of department HR-D01 by $deadline; again: all 250 unchanged"

"${python_client[@]}" records --after 0 >"$data/records.out" || fail "python: records refused"
summary="$(tail -n 1 "$data/records.out")"
check "python: the demo's training records since cursor 0 (its three results)" "$summary" 'd["count"] >= 3'
cursor="$(get "$summary" 'str(d["next"])')"
step "  records since 0: $summary"

watch_one nurse "${python_client[@]}"
since="$("${python_client[@]}" records --after "$cursor" | tail -n 1)"
check "python: records since the cursor hold the one new completion" "$since" 'd["count"] == 1'
step "  records since $cursor: $since"

# Disabling stops new tokens at once and the tokens already issued within about a
# second (each service learns the account's new access version every second).
issued="$(curl -sS -u "$PORTAL_CLIENT_ID:$PORTAL_CLIENT_SECRET" -d grant_type=client_credentials "$url/api/oauth/token")"
issued="$(get "$issued" 'd["access_token"]')" || fail "no token before disabling"
[[ "$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $issued" "$url/api/integration/training-records?limit=1")" == 200 ]] ||
  fail "the token issued before disabling did not work before it"
rest POST /api/service-account/disable "$admin" "{\"id\":$account_id}" >/dev/null
disabled_at="$("$py" -c 'import time; print(time.time())')"
# at once: the very next token request
refused="$(curl -sS -w '\n%{http_code}' -u "$PORTAL_CLIENT_ID:$PORTAL_CLIENT_SECRET" \
  -d grant_type=client_credentials "$url/api/oauth/token")"
[[ "${refused##*$'\n'}" == 401 ]] || fail "the token endpoint answered a disabled account: $refused"
check "the disabled account's token refusal" "${refused%$'\n'*}" 'd["error"] == "invalid_client"'
# within about a second: the token it already has
for _ in $(seq 60); do
  answer="$(curl -sS -w '\n%{http_code}' -H "Authorization: Bearer $issued" "$url/api/integration/training-records?limit=1")"
  [[ "${answer##*$'\n'}" == 401 ]] && break
  sleep 0.1
done
[[ "${answer##*$'\n'}" == 401 ]] || fail "the disabled account's earlier token still works after 6 s: $answer"
after="$(get "$disabled_at" "round(__import__('time').time() - d, 2)")"
check "the disabled account's earlier token refused within 2 s" "$after" 'd <= 2.0'
step "  its token issued before was refused ${after} s after disabling: ${answer%$'\n'*}"
if "${python_client[@]}" token 2>"$data/token.err"; then
  fail "python: a disabled account got a token"
fi
grep -q "invalid_client (HTTP 401)" "$data/token.err" || fail "python: unexpected refusal: $(cat "$data/token.err")"
step "  disabled account $account_id: the token endpoint answers 401 invalid_client"

# --- Rust -------------------------------------------------------------------------
step "Rust (tonic)"
account="$(rest POST /api/service-account/create "$admin" \
  "{\"name\":\"Кадровая система (пример Rust)\",\"description\":\"examples/run.sh\",\"scopes\":[\"staff.write\",\"training.read\"]}")"
PORTAL_CLIENT_ID="$(get "$account" 'd["clientId"]')"
PORTAL_CLIENT_SECRET="$(get "$account" 'd["clientSecret"]')"
token="$("$client" token)" || fail "rust: no token"
check "rust: the token's scope" "$token" 'set(d["scope"].split()) == {"staff.write", "training.read"}'
step "  token: $token"
staff "$data/staff-rust.json" 100 RS
synced="$("$client" sync-staff "$data/staff-rust.json")" || fail "rust: sync-staff refused"
check "rust: the sync of 100 staff" "$synced" 'd["created"] == 100 and not d["errors"]'
step "  sync: $synced"
summary="$("$client" records --after 0 | tail -n 1)" || fail "rust: records refused"
check "rust: the training records since cursor 0" "$summary" 'd["count"] >= 4'
cursor="$(get "$summary" 'str(d["next"])')"
step "  records since 0: $summary"
watch_one doctor "$client"
# A scope the account lacks: refused with a reason a program branches on.
if "$client" assign --course "$course_id" --department RS-D01 --deadline "$deadline" 2>"$data/assign.err"; then
  fail "rust: an account without training.assign assigned a course"
fi
grep -Eq "PermissionDenied (SCOPE_MISSING|scope-missing)" "$data/assign.err" ||
  fail "rust: unexpected refusal of a missing scope: $(cat "$data/assign.err")"
step "  without training.assign: $(cat "$data/assign.err")"

echo "examples: both example clients passed"
