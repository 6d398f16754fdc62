#!/usr/bin/env bash
# `make restore-drill`: the SQL half of k8s/README.md's «Restore», run for real on
# this machine's PostgreSQL binaries, never on its running server: a primary of
# its own (initdb in a temporary directory, TCP on 127.0.0.1 at a free port)
# archives its WAL into a directory as CloudNativePG's Barman Cloud plugin
# archives it into the bucket; writers commit rows while a base backup is taken;
# a target moment is read from the server between acknowledged writes; then, as
# the runbook does, the WAL is switched and archived a last time, and two new
# clusters are bootstrapped from the backup and the archive beside the old one,
# each on its own port: one to the target moment (recovery_target_time), one to
# the latest state. Each is counted against the writers' log:
#   - every write acknowledged before the target was read is there, and no write
#     sent after it was answered (the target restore);
#   - every acknowledged write is there (the latest restore);
# writes in flight while the target was read may be either, and are counted apart.
# With a portal binary (PORTAL_BIN, default target/debug/portal if it exists), the
# primary holds the files service's real schema (`portal migrate`), and each
# restored cluster is then checked as the runbook checks one: the files service
# starts on it with PORTAL_MIGRATE=check (and, as a control, is refused on a
# database without the schema), and `portal migrate` applies nothing.
#
#   bash k8s/restore-drill.sh            (PG_BIN=/usr/lib/postgresql/<n>/bin to choose)
#
# Everything lives under one temporary directory, removed at the end with the
# servers it started (stopped by their data directories, never by name).
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C   # $EPOCHREALTIME with a decimal point

seconds_before_target=${DRILL_SECONDS_BEFORE:-3}
seconds_after_target=${DRILL_SECONDS_AFTER:-2}
writers=${DRILL_WRITERS:-3}

pg_bin="${PG_BIN:-}"
if [[ -z $pg_bin ]]; then
  for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [[ -x $candidate/initdb ]] && { pg_bin=$candidate; break; }
  done
fi
if [[ -z $pg_bin || ! -x $pg_bin/initdb ]]; then
  echo "restore-drill: SKIPPED: no PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) found; install Debian's postgresql or set PG_BIN" >&2
  [[ ${DRILL_REQUIRED:-} != 1 ]] || exit 1
  exit 0
fi
portal_bin="${PORTAL_BIN:-target/debug/portal}"
[[ -x $portal_bin ]] || portal_bin=""

started=$EPOCHREALTIME
work="$(mktemp -d "${TMPDIR:-/tmp}/portal-restore-drill.XXXXXX")"
# PostgreSQL refuses to run as root: as root, the servers run as `postgres`.
as_pg=()
if [[ $(id -u) == 0 ]]; then
  id postgres >/dev/null 2>&1 || { echo "restore-drill: running as root needs the user postgres" >&2; exit 1; }
  chown postgres: "$work"
  as_pg=(runuser -u postgres --)
fi
servers=()
cleanup() {
  local status=$?
  touch "$work/stop" 2>/dev/null || true
  for data in "${servers[@]}"; do
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
  done
  [[ -n ${KEEP_DRILL:-} ]] && echo "restore-drill: kept $work" >&2 || rm -rf "$work"
  exit $status
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pg() { "${as_pg[@]}" "$@"; }
# psql as the superuser on the server at port $1, database $2; the rest is psql's.
sql() { local port=$1 db=$2; shift 2; "$pg_bin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"; }
start() { # data directory, log
  pg "$pg_bin/pg_ctl" -D "$1" -l "$2" -w -t 120 start >/dev/null
  servers+=("$1")
}
note() { printf 'restore-drill: %s\n' "$*"; }

# 1. The old cluster: archiving every WAL segment into $work/archive, as the
#    Barman Cloud plugin does into the bucket (`archive_command`; never overwrite).
primary_port=$(free_port)
mkdir "$work/archive"
[[ ${#as_pg[@]} -eq 0 ]] || chown postgres: "$work/archive"
# 1 MiB WAL segments (not 16): the same archiving and replay, a tenth of the files to write and remove.
pg "$pg_bin/initdb" -D "$work/primary" -U postgres --auth=trust -E UTF8 --locale=C --wal-segsize=1 >/dev/null
cat >> "$work/primary/postgresql.conf" <<CONF
port = $primary_port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
wal_level = replica
archive_mode = on
archive_command = 'test ! -f $work/archive/%f && cp %p $work/archive/%f'
fsync = on
synchronous_commit = on
min_wal_size = 4MB
max_wal_size = 64MB
CONF
start "$work/primary" "$work/primary.log"
sql "$primary_port" postgres -c "CREATE DATABASE files"
if [[ -n $portal_bin ]]; then
  PORTAL_TARGET=files PORTAL_DATABASE_URL="postgres://postgres@127.0.0.1:$primary_port/files" \
    PORTAL_LOG_FORMAT=text "$portal_bin" migrate > "$work/migrate.log" 2>&1 \
    || { cat "$work/migrate.log" >&2; echo "restore-drill: portal migrate failed on the primary" >&2; exit 1; }
  note "primary: the files service's schema applied by $portal_bin migrate"
fi
sql "$primary_port" files -c "CREATE TABLE drill_writes (writer integer, seq integer, PRIMARY KEY (writer, seq))"

# 2. Writers: each commits one row at a time over its own connection and logs
#    "<writer> <seq> <sent> <acknowledged>" (this machine's clock, µs) only once
#    the commit has been answered.
writer() {
  local w=$1 seq=0 reply sent
  coproc PSQL { sql "$primary_port" files 2>&1; }
  while [[ ! -e $work/stop ]]; do
    seq=$((seq + 1))
    sent=$EPOCHREALTIME
    printf 'INSERT INTO drill_writes VALUES (%d, %d) RETURNING seq;\n' "$w" "$seq" >&"${PSQL[1]}"
    read -r reply <&"${PSQL[0]}" || break
    [[ $reply == "$seq" ]] || { echo "restore-drill: writer $w: $reply" >&2; break; }
    echo "$w $seq $sent $EPOCHREALTIME" >> "$work/acks.$w"
  done
  exec {PSQL[1]}>&-
  wait "$PSQL_PID" 2>/dev/null || true
}
writer_pids=()
for w in $(seq 1 "$writers"); do writer "$w" & writer_pids+=($!); done

# 3. A base backup while they write (fast checkpoint; its WAL from the archive,
#    as a Barman Cloud base backup's).
sleep 1
pg "$pg_bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$work/base" \
  --wal-method=none --checkpoint=fast --no-sync
note "base backup taken while $writers writers commit"

# 4. The target: the server's clock, read between writes that go on.
sleep "$seconds_before_target"
target_sent=$EPOCHREALTIME
target="$(sql "$primary_port" postgres -c "SELECT now()")"
target_answered=$EPOCHREALTIME
sleep "$seconds_after_target"
touch "$work/stop"
wait "${writer_pids[@]}"
cat "$work"/acks.* > "$work/acks"
acknowledged=$(wc -l < "$work/acks")
note "target $target; $acknowledged writes acknowledged in all"

# 5. The runbook's step 3 on the old cluster, before a restore to the latest
#    state: switch to a new WAL segment and wait until the one just closed is
#    archived (the same two queries, through `kubectl cnpg psql` there).
last_segment="$(sql "$primary_port" postgres -c "SELECT pg_walfile_name(pg_switch_wal())")"
for _ in $(seq 1 600); do
  archived="$(sql "$primary_port" postgres -c "SELECT last_archived_wal, last_failed_wal FROM pg_stat_archiver" | cut -d'|' -f1)"
  [[ -n $archived && ! $archived < $last_segment ]] && break
  sleep 0.1
done
[[ -n $archived && ! $archived < $last_segment ]] || { echo "restore-drill: $last_segment was never archived" >&2; exit 1; }
note "last WAL segment $last_segment archived ($(ls "$work/archive" | wc -l) segments in the archive)"

# 6. A new cluster beside the old one: the base backup, the archive's WAL replayed
#    (restore_command), to the target or to the end, then promoted. Archiving off:
#    a restored cluster never writes into the history it came from (the runbook
#    gives it a new serverName).
restore() { # name, recovery target lines
  local name=$1 port began
  port=$(free_port)
  pg cp -a "$work/base" "$work/$name"
  cat >> "$work/$name/postgresql.auto.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$work'
archive_mode = off
restore_command = 'cp $work/archive/%f %p'
recovery_target_action = 'promote'
$2
CONF
  pg touch "$work/$name/recovery.signal"
  began=$EPOCHREALTIME
  start "$work/$name" "$work/$name.log"
  for _ in $(seq 1 1200); do
    [[ $(sql "$port" postgres -c "SELECT pg_is_in_recovery()" 2>/dev/null) == f ]] && break
    sleep 0.1
  done
  [[ $(sql "$port" postgres -c "SELECT pg_is_in_recovery()") == f ]] \
    || { cat "$work/$name.log" >&2; echo "restore-drill: $name never left recovery" >&2; exit 1; }
  restore_seconds=$(python3 -c "print(f'{$EPOCHREALTIME - $began:.1f}')")
  restored_port=$port
  sql "$port" files -c "COPY (SELECT writer, seq FROM drill_writes) TO STDOUT" | sort > "$work/$name.rows"
}

# Counts one restore against the log. Mode `target`: before/after the target
# moment; mode `latest`: every acknowledged write.
count() { # name, mode
  python3 - "$work/acks" "$work/$1.rows" "$2" "$target_sent" "$target_answered" <<'PY'
import sys
acks_path, rows_path, mode, target_sent, target_answered = sys.argv[1:6]
target_sent, target_answered = float(target_sent), float(target_answered)
acks = {}
for line in open(acks_path):
    writer, seq, sent, acked = line.split()
    acks[(int(writer), int(seq))] = (float(sent), float(acked))
rows = {tuple(map(int, line.split())) for line in open(rows_path)}
unknown = rows - set(acks)
if mode == "target":
    before = {k for k, (sent, acked) in acks.items() if acked < target_sent}
    after = {k for k, (sent, acked) in acks.items() if sent > target_answered}
    during = set(acks) - before - after
    lost, resurrected = before - rows, (after | unknown) & rows
    print(f"{len(before)} acknowledged before the target: {len(before & rows)} restored, {len(lost)} lost; "
          f"{len(after)} sent after it: {len(resurrected & after)} restored (must be 0); "
          f"{len(during)} in flight at the target: {len(during & rows)} restored (either is right); "
          f"{len(unknown)} rows never acknowledged")
    sys.exit(1 if lost or resurrected else 0)
lost = set(acks) - rows
print(f"{len(acks)} acknowledged: {len(acks) - len(lost)} restored, {len(lost)} lost; {len(unknown)} rows never acknowledged")
sys.exit(1 if lost else 0)
PY
}

# The runbook's check of a restored cluster with the portal's own binary: files
# starts on it with PORTAL_MIGRATE=check and serves, and `portal migrate`
# applies nothing; on a database without the schema, check mode refuses to start.
portal_check() { # port
  local port=$1 url grpc pid i
  url="postgres://postgres@127.0.0.1:$port/files"
  mkdir -p "$work/blobs"
  run_files() { # database URL, log
    grpc=127.0.0.1:$(free_port)
    PORTAL_TARGET=files PORTAL_MIGRATE=check PORTAL_DATABASE_URL="$1" PORTAL_GRPC_ADDR="$grpc" \
      PORTAL_JWT_PUBLIC_KEY_FILE=k8s/overlays/dev/jwt/public.pem \
      PORTAL_FILES_LINK_KEY_FILE=k8s/overlays/dev/files-link/key PORTAL_FILES_STORE="$work/blobs" \
      PORTAL_INTERNAL_KEY_FILE=k8s/overlays/dev/internal/key \
      PORTAL_AUTH_URL=http://127.0.0.1:9 PORTAL_WIKI_URL=http://127.0.0.1:9 PORTAL_LOG_FORMAT=text \
      "$portal_bin" > "$2" 2>&1 &
    pid=$!
  }
  run_files "$url" "$work/check.log"
  for i in $(seq 1 100); do
    (exec 3<>"/dev/tcp/${grpc/:/\/}") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! kill -0 "$pid" 2>/dev/null || ! (exec 3<>"/dev/tcp/${grpc/:/\/}") 2>/dev/null; then
    cat "$work/check.log" >&2
    echo "restore-drill: the files service did not start on the restored database with PORTAL_MIGRATE=check" >&2
    exit 1
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  PORTAL_TARGET=files PORTAL_DATABASE_URL="$url" PORTAL_LOG_FORMAT=text "$portal_bin" migrate > "$work/migrate-again.log" 2>&1
  grep -q "applied now: none" "$work/migrate-again.log" \
    || { cat "$work/migrate-again.log" >&2; echo "restore-drill: portal migrate changed the restored schema" >&2; exit 1; }
  # The control: check mode refuses a database whose migrations are not applied.
  sql "$port" postgres -c "CREATE DATABASE unmigrated"
  run_files "postgres://postgres@127.0.0.1:$port/unmigrated" "$work/control.log"
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"; echo "restore-drill: PORTAL_MIGRATE=check started on a database without the schema: the check proves nothing" >&2; exit 1
  fi
  wait "$pid" 2>/dev/null || true
  grep -q "are not applied" "$work/control.log" \
    || { cat "$work/control.log" >&2; echo "restore-drill: check mode failed on the control for another reason" >&2; exit 1; }
  echo "the files service starts on it with PORTAL_MIGRATE=check (and refuses an unmigrated control); portal migrate applies nothing"
}

status=0
restore to-target "recovery_target_time = '$target'"
verdict="$(count to-target target)" || status=1
note "restored to the target in ${restore_seconds} s: $verdict"
[[ -z $portal_bin ]] || note "to the target: $(portal_check "$restored_port")"
restore to-latest ""
verdict="$(count to-latest latest)" || status=1
note "restored to the latest state in ${restore_seconds} s: $verdict"
# The runbook's step 5: exact row counts of every table, old and new; after a
# restore to the latest state they are equal.
counts="SELECT table_name, (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I', table_name), false, true, '')))[1]::text FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1"
sql "$primary_port" files -c "$counts" > "$work/counts.old"
sql "$restored_port" files -c "$counts" > "$work/counts.new"
if cmp -s "$work/counts.old" "$work/counts.new"; then
  note "row counts of all $(wc -l < "$work/counts.new") tables equal on the old cluster and the latest restore ($(grep '^drill_writes|' "$work/counts.new"))"
else
  diff "$work/counts.old" "$work/counts.new" >&2 || true
  echo "restore-drill: row counts differ between the old cluster and the latest restore" >&2
  status=1
fi
[[ -z $portal_bin ]] || note "latest: $(portal_check "$restored_port")"
[[ -n $portal_bin ]] || note "no portal binary (PORTAL_BIN, or target/debug/portal): the schema check was not run"
total=$(python3 -c "print(f'{$EPOCHREALTIME - $started:.1f}')")
if ((status == 0)); then
  note "PASSED in $total s (PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}'))"
else
  note "FAILED in $total s"
fi
exit $status
