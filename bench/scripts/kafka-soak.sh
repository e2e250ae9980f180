#!/usr/bin/env bash
# The soak shape through Kafka clients, against Queen's Kafka listener or Apache Kafka (single-node KRaft), or both:
#   bench/scripts/kafka-soak.sh [options] queen <app dir>
#   bench/scripts/kafka-soak.sh [options] kafka
#   bench/scripts/kafka-soak.sh [options] [--rounds N] --compare <app dir>
# <app dir>: a quarkus-app directory or its quarkus-run.jar. Options:
#   --client C      java (default: the Java client, bench/scripts/KafkaSoak.java) or librdkafka (Debian's
#                   python3-confluent-kafka, bench/scripts/kafka_soak_rdkafka.py: one process per producer and consumer)
#   --seconds S     recorded steady seconds (default 30)
#   --warm S        seconds of an unrecorded run of the same shape on another topic that warms the broker first
#                   (default 20; 0 = none)
#   --partitions N  partitions of the topic (default 200)
#   --producers N   producers (default 8 with java, 2 with librdkafka)
#   --consumers N   consumers in the group (default 8 with java, 2 with librdkafka)
#   --outstanding N at most N records sent and not yet acknowledged per producer (default 0 = no limit but the
#                   client's queue: java 32 MB buffer.memory, librdkafka 100,000 records; a closed loop)
#   --transactional N  (java) transactional producers committing N records per transaction, read_committed consumers
#                   (default 0 = idempotent producers); prints transactions/s
#   --share         (java) the consumers are members of one share group (KafkaShareConsumer, explicit ACCEPT)
#   --release-every N, --reject-every N  (with --share) release each N-th record of a producer once (then accept
#                   it), reject each N-th (a dead letter): what RELEASE and REJECT cost
#   --compare APP   Queen (APP) and Apache Kafka alternately in one invocation (odd rounds Queen first, even rounds
#                   Kafka first), each as above, then every run, the medians and the ratios Queen/Kafka of records/s
#                   and of CPU per record (Queen's broker + PostgreSQL against Kafka's broker)
#   --rounds N      rounds of --compare (default 1)
#   --out DIR       where the logs go (default: a new temporary directory, printed)
# The shape: 1 topic x N partitions, 256 B values. java: 8 producers (idempotent, acks=all, default batching, or
# transactional with --transactional), 8 consumers in one consumer group committing offsets after every poll.
# librdkafka: 2 producers (enable.idempotence=true, acks=all, linger.ms=5), 2 consumers in one group committing
# asynchronously after every consume() of up to 500 records. --warmup 5 inside the recorded run. queen: a fresh
# database, the broker started on it with QUEEN_KAFKA_ENABLED=true (PostgreSQL from PG_HOST/PG_PORT/PG_USER/
# PG_PASSWORD, default 127.0.0.1:5432 postgres/postgres; BROKER_JAVA_OPTS and BROKER_ENV go to the broker, and its
# build's AOT cache when it has one, bench/scripts/aot-train.sh; BROKER_AOT=off: without), the warm
# run, a CHECKPOINT, the recorded run, the broker stopped and the database dropped. kafka: Apache Kafka KAFKA_VERSION
# (default 4.4.0, jars copied by Maven into bench/target/kafka-<version>/ on first use), a fresh log directory
# formatted with kafka.tools.StorageTool, kafka.Kafka as combined broker and controller on free loopback ports
# (KAFKA_HEAP_OPTS, default -Xmx1G -Xms1G), the warm run, the recorded run, the broker stopped.
# Printed, by either client in the same lines: produced/s and consumed/s over the steady window, broker CPU (and for
# Queen PostgreSQL's, counted as queen-bench counts it) in us per consumed message from steady start to drain end,
# the share of the broker's CPU its JIT compiler threads spent in that window (a broker still compiling after the
# warm run, e.g. on a loaded machine, spends more per record), produce-to-consume latency, and the verification
# (every acknowledged record consumed exactly once); for Queen also, from its /metrics/prometheus scraped before and
# after the recorded run (bench/scripts/kafka_requests.py), the Kafka requests per API with their rate and mean
# latency, and the push commits with their segments: how many requests and commits the shape makes per record.
# Exit code 0 when it passed (with --compare: in every run). PYTHON: the interpreter with confluent_kafka (default /usr/bin/python3).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
client=java seconds=30 warm=20 partitions=200 outstanding=0 producers="" consumers="" transactional=0 out=""
compare="" rounds=1 share=()
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --client) client=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --warm) warm=$2; shift 2 ;;
    --partitions) partitions=$2; shift 2 ;;
    --outstanding) outstanding=$2; shift 2 ;;
    --producers) producers=$2; shift 2 ;;
    --consumers) consumers=$2; shift 2 ;;
    --transactional) transactional=$2; shift 2 ;;
    --share) share+=(--share); shift ;;
    --release-every|--reject-every) share+=("$1" "$2"); shift 2 ;;
    --compare) compare=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "kafka-soak: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
if [ -n "$compare" ]; then
  [ ${#args[@]} -eq 0 ] || usage
else
  [ ${#args[@]} -ge 1 ] || usage
  case ${args[0]} in
    queen) [ ${#args[@]} -eq 2 ] || usage ;;
    kafka) [ ${#args[@]} -eq 1 ] || usage ;;
    *) usage ;;
  esac
fi
case $client in
  java) producers=${producers:-8} consumers=${consumers:-8} ;;
  librdkafka) producers=${producers:-2} consumers=${consumers:-2}
    [ "$transactional" = 0 ] || { echo "kafka-soak: --transactional needs --client java" >&2; exit 2; }
    [ ${#share[@]} -eq 0 ] || { echo "kafka-soak: --share needs --client java" >&2; exit 2; } ;;
  *) echo "kafka-soak: --client is java or librdkafka, not $client" >&2; exit 2 ;;
esac
for n in "$seconds" "$warm" "$partitions" "$outstanding" "$producers" "$consumers" "$transactional" "$rounds"; do
  [[ $n =~ ^[0-9]+$ ]] || { echo "kafka-soak: '$n' is not a whole number" >&2; exit 2; }
done
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[1-9]|[3-9][0-9])' | tail -1)}
python=${PYTHON:-/usr/bin/python3}
bench=${QUEEN_BENCH_JAR:-$root/bench/target/queen-bench.jar}
[ -s "$bench" ] || { echo "kafka-soak: $bench missing (./mvnw -f bench/pom.xml package)" >&2; exit 2; }
if [ "$client" = librdkafka ]; then
  rdkafka=$("$python" -c 'import confluent_kafka as c; print(c.libversion()[0])') \
    || { echo "kafka-soak: $python cannot import confluent_kafka (apt-get install python3-confluent-kafka)" >&2; exit 2; }
fi
me=kafka-soak
# shellcheck source=bench/scripts/kafka-brokers.sh
. "$root/bench/scripts/kafka-brokers.sh"
kafka_jars
cp="$klib/*:$bench"
if [ -n "$compare" ] || [ "${args[0]}" = queen ]; then queen_app "${compare:-${args[1]:-}}"; fi
out=${out:-$(mktemp -d /tmp/kafka-soak.XXXXXX)}
mkdir -p "$out"
load() {  # <target> <label> <seconds> <warmup> [client flags]
  local target=$1 label=$2 s=$3 w=$4; shift 4
  local common=(--bootstrap "127.0.0.1:$kport" --topic "soak-$label-$RANDOM" --partitions "$partitions"
    --producers "$producers" --consumers "$consumers" --value-bytes 256 --outstanding "$outstanding"
    --seconds "$s" --warmup "$w" --label "$target")
  if [ "$client" = java ]; then
    "$java" -cp "$cp" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "$root/bench/scripts/KafkaSoak.java" \
      "${common[@]}" --transactional "$transactional" ${share[@]+"${share[@]}"} "$@"
  else
    "$python" "$root/bench/scripts/kafka_soak_rdkafka.py" "${common[@]}" --java "$java" --classpath "$cp" "$@"
  fi
}

run() {  # <queen|kafka> <dir for the logs and report.txt>: one broker, its warm run and its recorded run
  local target=$1 dir=$2 rc=0
  mkdir -p "$dir"
  "start_$target" "$dir"
  extra=()
  [ "$target" = queen ] && extra=(--pg-port "$pgport" --pg-db "$db")
  echo "kafka-soak: $what; $(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  if [ "$warm" != 0 ]; then
    echo "kafka-soak: warm run $warm s (not recorded)" >&2
    load "$target" warm "$warm" 0 >"$dir/warm.txt" 2>"$dir/warm.log" || true
    tail -n 1 "$dir/warm.txt" >&2
  fi
  [ "$target" = queen ] && { psql_q "CHECKPOINT" >/dev/null 2>&1 || true; }
  local shape="$producers producers (--outstanding $outstanding, --transactional $transactional), $consumers consumers"
  [ "$client" = librdkafka ] && shape="$producers producers (--outstanding $outstanding), $consumers consumers, librdkafka $rdkafka"
  {
    echo "$what"
    echo "shape: $partitions partitions, $shape, 256 B values; --seconds $seconds --warmup 5; warm run $warm s; $(date -u '+%Y-%m-%d %H:%M UTC'); load average before $(cut -d' ' -f1-3 /proc/loadavg)"
  } | tee "$dir/report.txt"
  local scraped=""
  if [ "$target" = queen ]; then
    curl -fsS "http://127.0.0.1:$qhttp/metrics/prometheus" >"$dir/metrics-before.txt" 2>/dev/null && scraped=$(date +%s.%N)
  fi
  load "$target" run "$seconds" 5 --broker-pid "$pid" "${extra[@]}" 2>"$dir/run.log" | tee -a "$dir/report.txt" || rc=$?
  if [ -n "$scraped" ] && curl -fsS "http://127.0.0.1:$qhttp/metrics/prometheus" >"$dir/metrics-after.txt" 2>/dev/null; then
    "$python" "$root/bench/scripts/kafka_requests.py" "$dir/metrics-before.txt" "$dir/metrics-after.txt" \
      "$(echo "$(date +%s.%N) - $scraped" | bc)" | tee -a "$dir/report.txt" || true
  fi
  stop_broker
  return "$rc"
}

rc=0
if [ -z "$compare" ]; then
  run "${args[0]}" "$out" || rc=$?
else
  runs=()
  for round in $(seq 1 "$rounds"); do
    order=(queen kafka)
    [ $((round % 2)) = 0 ] && order=(kafka queen)
    for target in "${order[@]}"; do
      echo "kafka-soak: round $round/$rounds, $target" >&2
      run "$target" "$out/$target-$round" || rc=$?
      runs+=("$target" "$round" "$out/$target-$round/report.txt")
    done
  done
  echo
  "$python" "$root/bench/scripts/kafka_soak_table.py" "${runs[@]}" | tee "$out/compare.txt"
fi
echo "(logs: $out)"
exit "$rc"
