# Starts and stops the brokers that the Kafka-client scripts run against, one at a time; sourced by kafka-soak.sh and
# compaction-compare.sh, which set before sourcing it: root (the repository), me (their name in messages) and java.
#   kafka_jars                        copies Apache Kafka KAFKA_VERSION (default 4.4.0: org.apache.kafka:kafka_2.13 and
#                                     its runtime dependencies, bench/scripts/kafka/pom.xml) into $klib on first use
#   queen_app <dir or jar>            sets app to the quarkus-run.jar of a quarkus-app directory (or the jar itself)
#   start_queen <log dir> [VAR=value]...  a fresh database, the broker from $app on it with QUEEN_KAFKA_ENABLED=true
#                                     (PG_HOST/PG_PORT/PG_USER/PG_PASSWORD, default 127.0.0.1:5432 postgres/postgres;
#                                     then the given variables, then BROKER_ENV; BROKER_JAVA_OPTS go to its JVM, and
#                                     the build's AOT cache when it has one: bench/scripts/aot-cache.sh)
#   start_kafka <log dir> [name=value]...  a fresh log directory formatted with kafka.tools.StorageTool, kafka.Kafka as
#                                     combined broker and controller (KAFKA_HEAP_OPTS, default -Xmx1G -Xms1G), the
#                                     given server properties after the defaults below
#   stop_broker                       stops the running broker, drops Queen's database or removes Kafka's directory
# Either start waits until the Kafka listener on 127.0.0.1:$kport (a free port) accepts connections and sets pid, what
# (a line naming the broker) and, for Queen, db. The broker still running when the script exits is stopped.
kver=${KAFKA_VERSION:-4.4.0}
klib=$root/bench/target/kafka-$kver
host=${PG_HOST:-127.0.0.1} pgport=${PG_PORT:-5432} user=${PG_USER:-postgres} pass=${PG_PASSWORD:-postgres}
export PGPASSWORD=$pass
pid="" db="" kdir="" kport="" what="" app=""
# shellcheck source=bench/scripts/aot-cache.sh
. "$root/bench/scripts/aot-cache.sh"

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
    kill -0 "$2" 2>/dev/null || { echo "$me: the broker exited, see $3" >&2; tail -n 20 "$3" >&2; exit 1; }
    sleep 0.5
  done
  echo "$me: nothing listens on port $1 after 120 s, see $3" >&2; exit 1
}
kafka_jars() {
  [ -s "$klib/kafka_2.13-$kver.jar" ] && return
  echo "$me: copying Apache Kafka $kver and its dependencies into $klib" >&2
  (cd "$root" && JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$java")")} ./mvnw -B -ntp -q \
    -f bench/scripts/kafka/pom.xml -Dkafka.version="$kver" dependency:copy-dependencies) >&2
}
queen_app() {
  app=$1
  if [ -d "$app" ] && [ -f "$app/quarkus-run.jar" ]; then app=$app/quarkus-run.jar
  elif [ ! -f "$app" ]; then echo "$me: $app is no quarkus-app directory or jar" >&2; exit 2; fi
}

stop_broker() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$db" ]; then psql_q "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; fi
  if [ -n "$kdir" ]; then rm -rf "$kdir"; fi
  pid="" db="" kdir=""
}
stop_broker_on_exit() {  # keeps the script's exit status
  local status=$?
  stop_broker
  exit "$status"
}
trap stop_broker_on_exit EXIT

start_queen() {  # <dir for the logs> [VAR=value]...
  local logs=$1 port aot; shift
  aot=$(aot_option "$app" "$java")
  db="${me//-/_}_$(date +%s)_$RANDOM"
  psql_q "CREATE DATABASE $db"
  port=$(free_port) kport=$(free_port)
  qhttp=$port
  # shellcheck disable=SC2086
  env PORT=$port PG_HOST=$host PG_PORT=$pgport PG_USER=$user PG_PASSWORD=$pass PG_DATABASE=$db \
    QUEEN_SPOOL_DIR="$logs/broker.spool" QUEEN_KAFKA_ENABLED=true QUEEN_KAFKA_PORT=$kport \
    QUEEN_KAFKA_ADVERTISED_HOST=127.0.0.1 "$@" ${BROKER_ENV:-} \
    "$java" ${BROKER_JAVA_OPTS:-} $aot --enable-native-access=ALL-UNNAMED -jar "$app" >"$logs/broker.log" 2>&1 &
  pid=$!
  wait_port "$kport" "$pid" "$logs/broker.log"
  what="Queen $app${aot:+ (AOT cache)}, Kafka listener on 127.0.0.1:$kport, database $db"
}
start_kafka() {  # <dir for the logs> [name=value]...
  local logs=$1 cport cluster; shift
  kdir=$(mktemp -d "/tmp/$me-kraft.XXXXXX")
  cport=$(free_port) kport=$(free_port)
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
  [ $# -eq 0 ] || printf '%s\n' "$@" >>"$kdir/server.properties"
  # shellcheck disable=SC2206
  local kjava=("$java" ${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$klib/*")
  cluster=$("${kjava[@]}" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1)
  "${kjava[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$kdir/server.properties" >"$logs/format.log" 2>&1 \
    || { echo "$me: storage format failed, see $logs/format.log" >&2; cat "$logs/format.log" >&2; exit 1; }
  "${kjava[@]}" kafka.Kafka "$kdir/server.properties" >"$logs/broker.log" 2>&1 &
  pid=$!
  wait_port "$kport" "$pid" "$logs/broker.log"
  what="Apache Kafka $kver (KRaft, broker+controller) on 127.0.0.1:$kport, logs in $kdir"
}
