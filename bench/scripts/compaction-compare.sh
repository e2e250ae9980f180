#!/usr/bin/env bash
# What a fresh consumer of a compacted topic reads from Apache Kafka (single-node KRaft) and from Queen, compared:
#   bench/scripts/compaction-compare.sh [options] <app dir>
# <app dir>: a quarkus-app directory or its quarkus-run.jar. Options:
#   --keys N        keys (default 1000)
#   --updates N     records per key, written in rounds of one per key (default 100)
#   --tombstones N  the last N keys get a tombstone after the updates (default 100)
#   --head N        updates of live keys per partition written after the tombstones (default 3)
#   --head-again    once compaction has settled, write the head once more and wait again: Apache Kafka removes a
#                   tombstone only at a cleaning after the one that stamped it with its delete horizon, and the
#                   cleaning needs new writes in a closed segment (the table then has both reads)
#   --settle S      compaction counts as done once what a fresh consumer reads has not shrunk for S seconds
#                   (default 15)
#   --timeout S     how long to wait for compaction on each broker (default 300)
#   --out DIR       where the logs and each broker's reads (kafka.json, queen.json) go (default: a new temporary
#                   directory, printed)
# The same workload against each, one broker at a time (bench/scripts/compaction_compare.py, librdkafka through
# Debian's python3-confluent-kafka; PYTHON names another interpreter with confluent_kafka): a topic of 3 partitions
# with cleanup.policy=compact, min.cleanable.dirty.ratio=0.001, delete.retention.ms=0, min.compaction.lag.ms=0 and
# segment.ms=200; one idempotent producer writes keys x updates (value k<key>-u<update>), the tombstones, then the
# head, so that the tombstones are in a closed segment. Then a fresh consumer reads the topic every 2 s until what it
# reads has not shrunk for --settle seconds and is at most keys + head records (or the timeout passed, which it says);
# the last read is compared. Apache Kafka: KAFKA_VERSION (default 4.4.0) started as kafka-soak.sh starts it
# (bench/scripts/kafka-brokers.sh) with log.cleaner.backoff.ms=100. Queen: a fresh database, the broker with
# QUEEN_COMPACTION_INTERVAL_MS=1000 (PG_HOST/PG_PORT/PG_USER/PG_PASSWORD, BROKER_ENV, BROKER_JAVA_OPTS as in
# kafka-soak.sh).
# Printed: per broker the records read, keys with a value, tombstones read, the head (records read beyond one per
# live key), keys read as last acknowledged, offsets increasing per partition, log start and end offsets; then each
# key whose latest value or offset differs. Exit code 0 when no key differs in latest value or offset, no tombstoned
# key has a value on one broker only (a tombstone on one and none on the other is told, not a difference), and the
# log end offsets are equal; 1 otherwise; 2 usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
flags=() out="" args=()
while [ $# -gt 0 ]; do
  case $1 in
    --keys|--updates|--tombstones|--head|--settle|--timeout)
      [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "compaction-compare: $1 needs a whole number" >&2; exit 2; }
      flags+=("$1" "$2"); shift 2 ;;
    --head-again) flags+=("$1"); shift ;;
    --out) out=$2; shift 2 ;;
    -h|--help) args=(); break ;;
    -*) echo "compaction-compare: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ ${#args[@]} -ne 1 ]; then awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; fi
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[1-9]|[3-9][0-9])' | tail -1)}
python=${PYTHON:-/usr/bin/python3}
"$python" -c 'import confluent_kafka' 2>/dev/null \
  || { echo "compaction-compare: $python cannot import confluent_kafka (apt-get install python3-confluent-kafka)" >&2; exit 2; }
me=compaction-compare
# shellcheck source=bench/scripts/kafka-brokers.sh
. "$root/bench/scripts/kafka-brokers.sh"
kafka_jars
queen_app "${args[0]}"
out=${out:-$(mktemp -d /tmp/compaction-compare.XXXXXX)}
mkdir -p "$out"

for target in kafka queen; do
  mkdir -p "$out/$target"
  if [ "$target" = kafka ]; then
    start_kafka "$out/$target" log.cleaner.backoff.ms=100
    name="Apache Kafka $kver"
  else
    start_queen "$out/$target" QUEEN_COMPACTION_INTERVAL_MS=1000
    name=Queen
  fi
  echo "compaction-compare: $what; $(date -u '+%Y-%m-%d %H:%M UTC'); load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  "$python" "$root/bench/scripts/compaction_compare.py" run --bootstrap "127.0.0.1:$kport" --broker "$name" \
    --out "$out/$target.json" ${flags[@]+"${flags[@]}"} 2> >(tee "$out/$target/run.log" >&2)
  stop_broker
done
rc=0
"$python" "$root/bench/scripts/compaction_compare.py" compare "$out/kafka.json" "$out/queen.json" \
  | tee "$out/compare.txt" || rc=$?
echo "(logs: $out)"
exit "$rc"
