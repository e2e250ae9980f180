#!/usr/bin/env bash
# Makes pgmq's SQL API available in one database, for `queen-bench --mode pgmq`:
#   bench/scripts/pgmq-install.sh <database>
# Nothing to do when the database already has the pgmq schema. Otherwise `CREATE EXTENSION pgmq` when the server has
# the extension, else pgmq's plain-SQL install (pgmq-extension/sql/pgmq.sql, PostgreSQL License) run with psql: the
# file named by PGMQ_SQL, or version PGMQ_VERSION (default 1.5.1) downloaded at run time from the pgmq repository into
# bench/target/ (it is not part of this repository). PostgreSQL from PG_HOST/PG_PORT/PG_USER/PG_PASSWORD.
set -euo pipefail
db=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
host=${PG_HOST:-127.0.0.1} pgport=${PG_PORT:-5432} user=${PG_USER:-postgres}
export PGPASSWORD=${PG_PASSWORD:-postgres}
version=${PGMQ_VERSION:-1.5.1}
q() { psql -h "$host" -p "$pgport" -U "$user" -d "$db" -v ON_ERROR_STOP=1 -qAtc "$1"; }

if [ "$(q "SELECT to_regproc('pgmq.create') IS NOT NULL")" = t ]; then
  exit 0
fi
if [ "$(q "SELECT count(*) FROM pg_available_extensions WHERE name = 'pgmq'")" != 0 ]; then
  q "CREATE EXTENSION IF NOT EXISTS pgmq"
  exit 0
fi
sql=${PGMQ_SQL:-$root/bench/target/pgmq-$version.sql}
if [ ! -s "$sql" ]; then
  mkdir -p "$(dirname "$sql")"
  url="https://raw.githubusercontent.com/pgmq/pgmq/v$version/pgmq-extension/sql/pgmq.sql"
  echo "pgmq-install: downloading $url" >&2
  curl -fsSL "$url" -o "$sql.part" && mv "$sql.part" "$sql"
fi
psql -h "$host" -p "$pgport" -U "$user" -d "$db" -v ON_ERROR_STOP=1 -q -f "$sql" >/dev/null
