#!/usr/bin/env bash
# Interleaved before/after soak runs of two packaged brokers on this machine, in the same hour:
#   bench/scripts/ab-soak.sh <report-prefix> <quarkus-app dir A> <quarkus-app dir B> [rounds=2] [seconds=60]
# Per run: a fresh database, broker A or B started on it (PostgreSQL from PG_HOST/PG_PORT/PG_USER/PG_PASSWORD,
# default 127.0.0.1:5432 postgres/postgres), a 30 s soak to warm it, then a recorded soak
# (bench/scripts/record.sh <prefix>-<before|after>-<round> --preset soak --duration <seconds> --warmup 10 --broker-pid ...),
# the broker stopped and the database dropped. Order per round: A (before) then B (after). Reports land in bench/results/.
set -euo pipefail
prefix=$1 a=$2 b=$3 rounds=${4:-2} seconds=${5:-60}
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[1-9]|[3-9][0-9])' | tail -1)}
bench=${QUEEN_BENCH_JAR:-$root/bench/target/queen-bench.jar}
host=${PG_HOST:-127.0.0.1} pgport=${PG_PORT:-5432} user=${PG_USER:-postgres} pass=${PG_PASSWORD:-postgres}
export PGPASSWORD=$pass

run_one() {  # <label> <app dir> <round>
  local label=$1 app=$2 round=$3 db port pid log
  db="soak_$(date +%s)_$RANDOM"
  port=$((20000 + RANDOM % 10000))
  log=$(mktemp)
  psql -h "$host" -p "$pgport" -U "$user" -qc "CREATE DATABASE $db"
  PORT=$port PG_HOST=$host PG_PORT=$pgport PG_USER=$user PG_PASSWORD=$pass PG_DATABASE=$db \
    QUEEN_SPOOL_DIR=$(mktemp -d) "$java" --enable-native-access=ALL-UNNAMED -jar "$app/quarkus-run.jar" >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
    sleep 0.5
  done
  local pg_url="jdbc:postgresql://$host:$pgport/$db?user=$user&password=$pass"
  "$java" -jar "$bench" --preset soak --duration 30 --warmup 5 --url "http://127.0.0.1:$port" --pg-url "$pg_url" \
    >/dev/null 2>&1 || true
  QUEEN_BENCH_JAR=$bench "$root/bench/scripts/record.sh" "$prefix-$label-$round" --preset soak --duration "$seconds" \
    --warmup 10 --url "http://127.0.0.1:$port" --pg-url "$pg_url" --broker-pid "$pid" || true
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  psql -h "$host" -p "$pgport" -U "$user" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"
  rm -f "$log"
}

for r in $(seq 1 "$rounds"); do
  run_one before "$a" "$r"
  run_one after "$b" "$r"
done
