#!/usr/bin/env bash
# Trains the JDK ahead-of-time cache of a broker build (`./queen aot` calls it for target/quarkus-app):
#   bench/scripts/aot-train.sh [--seconds S] [--no-kafka] [<quarkus-app directory>]
# (default: target/quarkus-app, S: 20; --no-kafka: the HTTP shapes only, for a quick check that a cache is made)
# The cache (JDK 25: JEP 483 classes loaded and linked, JEP 515 method profiles) lets a broker started with
# -XX:AOTCache=<dir>/app.aot skip most of its class loading and compile its hot methods without profiling them
# first: it starts in half the time and its JIT compiler is done sooner. `./queen run`, bench/scripts/ab-soak.sh and
# bench/scripts/kafka-soak.sh use <dir>/app.aot when it is there and was made for exactly the jars beside it (the
# JVM checks the JDK, not the application's jars: bench/scripts/aot-cache.sh).
# The training run: a fresh database, the broker started on it with -XX:AOTCacheOutput and its Kafka listener on,
# then S seconds each of what users do (bench/README.md): the soak shape with consumers popping the queue, the same
# with consumers handed partitions, the job-queue shape (queen-bench presets), Kafka's Java client (KafkaSoak.java)
# and, when python3-confluent-kafka is installed, librdkafka; the broker stopped (the JVM writes the cache as it
# exits), the database dropped. Needs: the JDK that runs the broker at version 25 or later (JAVA, default the newest
# Temurin under /usr/lib/jvm), the aot-jar packaging (every jar on the class path: the default build),
# PostgreSQL (PG_HOST/PG_PORT/PG_USER/PG_PASSWORD, default 127.0.0.1:5432 postgres/postgres), the benchmark tool
# (bench/target/queen-bench.jar) and Kafka's jars (copied by Maven into bench/target/kafka-<version> on first use).
# The cache is written beside the application as app.aot, replacing an older one only once the new one is complete,
# with app.aot.jars, the fingerprint of the jars it was made from (bench/scripts/aot-cache.sh: the scripts that start
# brokers use a cache only for those jars).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
me=aot-train
seconds=20
dir=""
kafka_shapes=true
while [ $# -gt 0 ]; do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --no-kafka) kafka_shapes=false; shift ;;
    -*) echo "$me: unknown option $1" >&2; exit 2 ;;
    *) dir=$1; shift ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "$me: --seconds takes a whole number of seconds, not '$seconds'" >&2; exit 2; }
dir=${dir:-$root/target/quarkus-app}
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[5-9]|[3-9][0-9])' | tail -1)}
# shellcheck source=bench/scripts/aot-cache.sh
. "$root/bench/scripts/aot-cache.sh"
major=$(java_release "$java")
[ "${major:-0}" -ge 25 ] || { echo "$me: $java is Java ${major:-?}; an AOT cache with method profiles needs 25 or later (JAVA=...)" >&2; exit 2; }
[ -f "$dir/quarkus-run.jar" ] || { echo "$me: $dir has no quarkus-run.jar" >&2; exit 2; }
if ! python3 -c 'import sys, zipfile
sys.exit(b"AotQuarkusEntryPoint" not in zipfile.ZipFile(sys.argv[1]).read("META-INF/MANIFEST.MF"))' "$dir/quarkus-run.jar"; then
  echo "$me: $dir is not an aot-jar build (quarkus.package.jar.type=aot-jar): its classes would not be cached" >&2
  exit 2
fi
bench=${QUEEN_BENCH_JAR:-$root/bench/target/queen-bench.jar}
[ -s "$bench" ] || { echo "$me: $bench missing (./mvnw -f bench/pom.xml package)" >&2; exit 2; }
# shellcheck source=bench/scripts/kafka-brokers.sh
. "$root/bench/scripts/kafka-brokers.sh"
! $kafka_shapes || kafka_jars
queen_app "$dir"
dir=$(cd "$dir" && pwd)
logs=$(mktemp -d /tmp/aot-train.XXXXXX)
cache=$dir/app.aot
rm -f "$cache.new"
jars=$(aot_jars "$dir")
t0=$SECONDS
# the broker is started by its absolute path, as `./queen run` and the scripts start it: a cache remembers the
# class path it was made with
app=$dir/quarkus-run.jar
BROKER_JAVA_OPTS="${BROKER_JAVA_OPTS:-} -XX:AOTCacheOutput=$cache.new" BROKER_AOT=off start_queen "$logs"
url="http://127.0.0.1:$qhttp"
pg_url="jdbc:postgresql://$host:$pgport/$db?user=$user&password=$pass"
echo "$me: training $dir for ${seconds} s per shape (logs: $logs)" >&2
shape() {  # <label> <queen-bench flags>...
  local label=$1; shift
  echo "$me:   $label" >&2
  "$java" -jar "$bench" "$@" --duration "$seconds" --warmup 0 --verify false --url "$url" --pg-url "$pg_url" \
    >"$logs/$label.txt" 2>&1 || { echo "$me: the $label run failed, see $logs/$label.txt" >&2; exit 1; }
}
shape soak-queue --preset soak --producers 8 --consumers 8 --wildcard true
shape soak-partitions --preset soak --producers 8 --consumers 8
shape jobs --preset jobs
if $kafka_shapes; then
  kafka=(--bootstrap "127.0.0.1:$kport" --partitions 50 --value-bytes 256 --seconds "$seconds" --warmup 0)
  echo "$me:   kafka-java" >&2
  "$java" -cp "$klib/*:$bench" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn "$root/bench/scripts/KafkaSoak.java" \
    "${kafka[@]}" --topic aot-java --producers 4 --consumers 4 >"$logs/kafka-java.txt" 2>&1 \
    || { echo "$me: the Kafka Java-client run failed, see $logs/kafka-java.txt" >&2; exit 1; }
  if /usr/bin/python3 -c 'import confluent_kafka' 2>/dev/null; then
    echo "$me:   kafka-librdkafka" >&2
    /usr/bin/python3 "$root/bench/scripts/kafka_soak_rdkafka.py" "${kafka[@]}" --topic aot-rdkafka \
      >"$logs/kafka-librdkafka.txt" 2>&1 \
      || { echo "$me: the librdkafka run failed, see $logs/kafka-librdkafka.txt" >&2; exit 1; }
  else
    echo "$me:   (no python3-confluent-kafka: the librdkafka shape is left out)" >&2
  fi
fi
echo "$me: stopping the broker; the JVM writes the cache as it exits" >&2
stop_broker
[ -s "$cache.new" ] || { echo "$me: no cache written, see $logs/broker.log" >&2; tail -n 20 "$logs/broker.log" >&2; exit 1; }
[ "$(aot_jars "$dir")" = "$jars" ] || { echo "$me: the jars of $dir changed during the training; no cache kept" >&2; rm -f "$cache.new"; exit 1; }
rm -f "$cache.jars"
mv -f "$cache.new" "$cache"
echo "$jars" >"$cache.jars"
echo "$me: $cache ($(du -m "$cache" | cut -f1) MB) in $((SECONDS - t0)) s; start the broker with -XX:AOTCache=$cache" >&2
rm -rf "$logs"
