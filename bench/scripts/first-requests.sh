#!/usr/bin/env bash
# First-request latency of a freshly started broker: creates an empty database, starts the packaged broker on it,
# waits for /q/health/ready, then times one push, one pop and one ack with curl (and a second push for scale).
#   bench/scripts/first-requests.sh <quarkus-run.jar> <port> <database>
# PostgreSQL from PG_HOST/PG_PORT/PG_USER/PG_PASSWORD (default 127.0.0.1:5432 postgres/postgres); needs psql,
# curl, jq; the broker's log and spool stay in a temporary directory that is removed at the end.
set -euo pipefail
JAR=${1:?quarkus-run.jar}; PORT=${2:?port}; DB=${3:?database}
export PGHOST=${PG_HOST:-127.0.0.1} PGPORT=${PG_PORT:-5432} PGUSER=${PG_USER:-postgres} PGPASSWORD=${PG_PASSWORD:-postgres}
[[ "$DB" =~ ^[a-z_][a-z0-9_]*$ ]] || { echo "first-requests: database name [a-z_][a-z0-9_]*" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
psql -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" 2>/dev/null
t0=$(date +%s%N)
PG_HOST=$PGHOST PG_PORT=$PGPORT PG_USER=$PGUSER PG_PASSWORD=$PGPASSWORD PG_DATABASE=$DB PORT=$PORT \
  QUEEN_SPOOL_DIR="$tmp/spool" java --enable-native-access=ALL-UNNAMED -jar "$JAR" >"$tmp/broker.log" 2>&1 &
pid=$!
until [ "$(curl -s -o /dev/null -w '%{http_code}' "localhost:$PORT/q/health/ready")" = 200 ]; do
  kill -0 "$pid" 2>/dev/null || { tail -20 "$tmp/broker.log" >&2; exit 1; }
  sleep 0.05
done
echo "ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
Q=http://localhost:$PORT
curl -s -o /dev/null -w 'first push %{time_total}s %{http_code}\n' -X POST "$Q/api/v1/push" -H 'Content-Type: application/json' \
  -d '{"items":[{"queue":"first","partition":"p","transactionId":"t1","payload":{"a":1}}]}'
POP=$(curl -s -w '\n%{time_total}' "$Q/api/v1/pop/queue/first?batch=10&wait=false")
echo "first pop $(echo "$POP" | tail -1)s"
POP=$(echo "$POP" | head -1)
PID=$(echo "$POP" | jq -r .partitionId); LEASE=$(echo "$POP" | jq -r .leaseId)
curl -s -o /dev/null -w 'first ack %{time_total}s %{http_code}\n' -X POST "$Q/api/v1/ack/batch" -H 'Content-Type: application/json' \
  -d '{"acknowledgments":[{"transactionId":"t1","partitionId":"'"$PID"'","leaseId":"'"$LEASE"'","status":"completed"}]}'
curl -s -o /dev/null -w 'second push %{time_total}s %{http_code}\n' -X POST "$Q/api/v1/push" -H 'Content-Type: application/json' \
  -d '{"items":[{"queue":"first","partition":"p","transactionId":"t2","payload":{"a":1}}]}'
grep -o 'hot path warm in [0-9]* ms' "$tmp/broker.log" || true
psql -qc "DROP DATABASE IF EXISTS $DB" 2>/dev/null || true
