#!/usr/bin/env bash
# The soak shape through Kafka clients, against Queen's Kafka listener or Apache Kafka (single-node KRaft):
#   bench/scripts/kafka-soak.sh [--seconds S] [--warm S] [--partitions N] [--producers N] [--outstanding N]
#                               [--transactional N] [--out DIR] queen <app dir>|kafka
# <app dir>: a quarkus-app directory or its quarkus-run.jar. Options:
#   --seconds S     recorded steady seconds (default 30)
#   --warm S        seconds of an unrecorded run of the same shape on another topic that warms the broker first
#                   (default 20; 0 = none)
#   --partitions N  partitions of the topic (default 200)
#   --outstanding N at most N records sent and not yet acknowledged per producer (default 0 = no limit but the
#                   client's 32 MB buffer.memory: the default client in a closed loop)
#   --producers N   producers (default 8)
#   --transactional N  transactional producers committing N records per transaction, read_committed consumers
#                   (default 0 = idempotent producers); prints transactions/s
#   --out DIR       where the logs go (default: a new temporary directory, printed)
# The shape (bench/scripts/KafkaSoak.java): 1 topic x N partitions, 256 B values, 8 producers (--producers; idempotent, acks=all, or transactional with --transactional;
# default batching), 8 consumers in one consumer group committing offsets after every poll, --warmup 5 inside the
# recorded run. queen: a fresh database, the broker started on it with QUEEN_KAFKA_ENABLED=true (PostgreSQL from
# PG_HOST/PG_PORT/PG_USER/PG_PASSWORD, default 127.0.0.1:5432 postgres/postgres; BROKER_JAVA_OPTS and BROKER_ENV go
# to the broker), the warm run, a CHECKPOINT, the recorded run, the broker stopped and the database dropped. kafka:
# Apache Kafka KAFKA_VERSION (default 4.1.1, jars copied by Maven into bench/target/kafka-<version>/ on first use),
# a fresh log directory formatted with kafka.tools.StorageTool, kafka.Kafka as combined broker and controller on free
# loopback ports (KAFKA_HEAP_OPTS, default -Xmx1G -Xms1G), the warm run, the recorded run, the broker stopped.
# Printed: produced/s and consumed/s over the steady window, broker CPU (and for Queen PostgreSQL's, counted as
# queen-bench counts it) in us per consumed message from steady start to drain end, produce-to-consume latency, and
# the verification (every acknowledged record consumed exactly once). Exit code 0 when it passed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=30 warm=20 partitions=200 outstanding=0 producers=8 transactional=0 out=""
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --warm) warm=$2; shift 2 ;;
    --partitions) partitions=$2; shift 2 ;;
    --outstanding) outstanding=$2; shift 2 ;;
    --producers) producers=$2; shift 2 ;;
    --transactional) transactional=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "kafka-soak: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
[ ${#args[@]} -ge 1 ] || usage
target=${args[0]}
case $target in
  queen) [ ${#args[@]} -eq 2 ] || usage ;;
  kafka) [ ${#args[@]} -eq 1 ] || usage ;;
  *) usage ;;
esac
for n in "$seconds" "$warm" "$partitions" "$outstanding" "$producers" "$transactional"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "kafka-soak: '$n' is not a whole number" >&2; exit 2; }
done
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[1-9]|[3-9][0-9])' | tail -1)}
bench=${QUEEN_BENCH_JAR:-$root/bench/target/queen-bench.jar}
[ -s "$bench" ] || { echo "kafka-soak: $bench missing (./mvnw -f bench/pom.xml package)" >&2; exit 2; }
kver=${KAFKA_VERSION:-4.1.1}
klib=$root/bench/target/kafka-$kver
if [ ! -s "$klib/kafka_2.13-$kver.jar" ]; then
  echo "kafka-soak: copying Apache Kafka $kver and its dependencies into $klib" >&2
  (cd "$root" && JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$java")")} ./mvnw -B -ntp -q \
    -f bench/scripts/kafka/pom.xml -Dkafka.version="$kver" dependency:copy-dependencies) >&2
fi
cp="$klib/*:$bench"
out=${out:-$(mktemp -d /tmp/kafka-soak.XXXXXX)}
mkdir -p "$out"
host=${PG_HOST:-127.0.0.1} pgport=${PG_PORT:-5432} user=${PG_USER:-postgres} pass=${PG_PASSWORD:-postgres}
export PGPASSWORD=$pass
psql_q() { psql -h "$host" -p "$pgport" -U "$user" -qAtc "$1"; }
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 10000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
wait_port() {  # <port> <pid> <log>
  for _ in $(seq 1 240); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "kafka-soak: the broker exited, see $3" >&2; tail -n 20 "$3" >&2; exit 1; }
    sleep 0.5
  done
  echo "kafka-soak: nothing listens on port $1 after 120 s, see $3" >&2; exit 1
}
load() {  # <label> <seconds> <warmup> [KafkaSoak flags]
  local label=$1 s=$2 w=$3; shift 3
  "$java" -cp "$cp" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "$root/bench/scripts/KafkaSoak.java" \
    --bootstrap "127.0.0.1:$kport" --topic "soak-$label-$RANDOM" --partitions "$partitions" --producers "$producers" \
    --consumers 8 --value-bytes 256 --outstanding "$outstanding" --transactional "$transactional" --seconds "$s" --warmup "$w" --label "$target" "$@"
}

pid="" db="" kdir=""
cleanup() {  # keeps the script's exit status
  local status=$?
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$db" ]; then psql_q "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; fi
  if [ -n "$kdir" ]; then rm -rf "$kdir"; fi
  exit "$status"
}
trap cleanup EXIT
kport=$(free_port)
extra=()
if [ "$target" = queen ]; then
  app=${args[1]}
  if [ -d "$app" ] && [ -f "$app/quarkus-run.jar" ]; then jar=$app/quarkus-run.jar
  elif [ -f "$app" ]; then jar=$app
  else echo "kafka-soak: $app is no quarkus-app directory or jar" >&2; exit 2; fi
  db="ks_$(date +%s)_$RANDOM"
  psql_q "CREATE DATABASE $db"
  port=$(free_port)
  # shellcheck disable=SC2086
  env PORT=$port PG_HOST=$host PG_PORT=$pgport PG_USER=$user PG_PASSWORD=$pass PG_DATABASE=$db \
    QUEEN_SPOOL_DIR="$out/broker.spool" QUEEN_KAFKA_ENABLED=true QUEEN_KAFKA_PORT=$kport \
    QUEEN_KAFKA_ADVERTISED_HOST=127.0.0.1 ${BROKER_ENV:-} \
    "$java" ${BROKER_JAVA_OPTS:-} --enable-native-access=ALL-UNNAMED -jar "$jar" >"$out/broker.log" 2>&1 &
  pid=$!
  wait_port "$kport" "$pid" "$out/broker.log"
  extra=(--pg-port "$pgport" --pg-db "$db")
  what="Queen $jar, Kafka listener on 127.0.0.1:$kport, database $db"
else
  kdir=$(mktemp -d /tmp/kafka-soak-kraft.XXXXXX)
  cport=$(free_port)
  cat >"$kdir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$kport,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$kport
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$kdir/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  kjava=("$java" ${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$klib/*")
  cluster=$("${kjava[@]}" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)
  "${kjava[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$kdir/server.properties" >"$out/format.log" 2>&1 \
    || { echo "kafka-soak: storage format failed, see $out/format.log" >&2; cat "$out/format.log" >&2; exit 1; }
  "${kjava[@]}" kafka.Kafka "$kdir/server.properties" >"$out/broker.log" 2>&1 &
  pid=$!
  wait_port "$kport" "$pid" "$out/broker.log"
  what="Apache Kafka $kver (KRaft, broker+controller) on 127.0.0.1:$kport, logs in $kdir"
fi
echo "kafka-soak: $what; $(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
if [ "$warm" != 0 ]; then
  echo "kafka-soak: warm run $warm s (not recorded)" >&2
  load warm "$warm" 0 --broker-pid "$pid" >"$out/warm.txt" 2>"$out/warm.log" || true
  tail -n 1 "$out/warm.txt" >&2
fi
[ "$target" = queen ] && { psql_q "CHECKPOINT" >/dev/null 2>&1 || true; }
{
  echo "$what"
  echo "shape: $partitions partitions, $producers producers (--outstanding $outstanding, --transactional $transactional), 8 consumers, 256 B values; --seconds $seconds --warmup 5; warm run $warm s; $(date -u '+%Y-%m-%d %H:%M UTC'); load average before $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/report.txt"
rc=0
load run "$seconds" 5 --broker-pid "$pid" "${extra[@]}" 2>"$out/run.log" | tee -a "$out/report.txt" || rc=$?
echo "(logs: $out)"
exit "$rc"
