#!/bin/bash
# Run once by the postgres image on an empty data directory: a role and a
# database per service; no service may connect to another's database.
set -euo pipefail
for service in auth education wiki files; do
  password="$(< "/etc/postgres-roles/${service^^}_PASSWORD")"
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    --set=name="$service" --set=password="$password" <<'SQL'
CREATE ROLE :"name" LOGIN PASSWORD :'password';
CREATE DATABASE :"name" OWNER :"name";
REVOKE CONNECT, TEMPORARY ON DATABASE :"name" FROM PUBLIC;
SQL
done
