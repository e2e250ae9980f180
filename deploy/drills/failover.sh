#!/usr/bin/env bash
# PostgreSQL failover drill with pg_auto_failover on this machine: a monitor and two PostgreSQL nodes (synchronous
# replication) on ports 25400-25402, two brokers given both nodes (PG_HOSTS, targetServerType=primary), verifying
# push/pop load, the primary killed with -9. Prints acknowledged vs found and the time to recover; fails on any
# acknowledged push not found. Installs Debian's postgresql-<major>-auto-failover for the installed PostgreSQL major.
# A few minutes; not part of ./queen test.
#   deploy/drills/failover.sh            QUEEN_FAILOVER_DIR (default /tmp/queen-failover), QUEEN_FAILOVER_PORT (25400),
#                                        QUEEN_FAILOVER_DEMOTE_TIMEOUT_MS (5000; pg_auto_failover's default is 30000)
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
W="${QUEEN_FAILOVER_DIR:-/tmp/queen-failover}"
base="${QUEEN_FAILOVER_PORT:-25400}"

if ! command -v pg_config >/dev/null 2>&1 && [ ! -d /etc/postgresql ]; then
  apt-get update -qq && apt-get install -y -qq postgresql >/dev/null
fi
major=$(ls /usr/lib/postgresql | sort -n | tail -n1)
if ! dpkg -s "postgresql-$major-auto-failover" >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq "postgresql-$major-auto-failover" >/dev/null
fi

pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
  sleep 2
  for p in "${pids[@]}"; do kill -KILL -- "-$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT
rm -rf "$W"
mkdir -p "$W"
chown postgres "$W"
cat >"$W/env.sh" <<ENV
export PATH=/usr/lib/postgresql/$major/bin:\$PATH
export XDG_CONFIG_HOME=$W/config XDG_DATA_HOME=$W/data XDG_RUNTIME_DIR=$W/run
ENV
# runs pg_autoctl as postgres in a session of its own (a process group the drill can kill at once); prints its pid
autoctl_bg() {
  local log="$1"; shift
  su postgres -c ". $W/env.sh; setsid pg_autoctl $* >$log 2>&1 & echo \$!"
}
autoctl() { su postgres -c ". $W/env.sh; pg_autoctl $*"; }
psql_at() { psql "postgresql://postgres@127.0.0.1:$1/${2:-queen}?sslmode=disable" -Atqc "$3"; }
state() { autoctl show state --pgdata "$W/monitor" 2>/dev/null || true; }
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local n="$1" what="$2" i; shift 2
  for i in $(seq 1 "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  echo "failover: $what did not happen within $n s" >&2; state >&2; tail -n 20 "$W"/*.log >&2; return 1
}

t0=$(date +%s)
monitor_uri="postgres://autoctl_node@127.0.0.1:$base/pg_auto_failover?sslmode=disable"
pids+=("$(autoctl_bg "$W/monitor.log" create monitor --pgdata "$W/monitor" --pgport "$base" --hostname 127.0.0.1 \
  --auth trust --no-ssl --run)")
wait_for 60 "monitor start" psql_at "$base" pg_auto_failover "SELECT 1"
# notice a dead node within seconds instead of the defaults' ~20-30 s
# and let the promoted standby take writes 5 s after the old primary stopped answering (default 30 s: the time
# an old primary cut off by a network partition, not dead, needs to notice it lost the monitor and stop writing)
for setting in health_check_period=1000 health_check_timeout=1000 health_check_max_retries=1 \
    health_check_retry_delay=500 node_considered_unhealthy_timeout=3000 \
    primary_demote_timeout="${QUEEN_FAILOVER_DEMOTE_TIMEOUT_MS:-5000}"; do
  psql_at "$base" pg_auto_failover "ALTER SYSTEM SET pgautofailover.${setting%%=*} = ${setting#*=}"
done
psql_at "$base" pg_auto_failover "SELECT pg_reload_conf()" >/dev/null
for n in 1 2; do
  pids+=("$(autoctl_bg "$W/node$n.log" create postgres --pgdata "$W/node$n" --pgport $((base + n)) --hostname 127.0.0.1 \
    --name "node$n" --auth trust --no-ssl --dbname queen --monitor "'$monitor_uri'" --run)")
  if [ "$n" = 1 ]; then
    wait_for 90 "node1 as primary" psql_at $((base + 1)) queen "SELECT 1"
  fi
done
# the standby's base backup waits for a checkpoint on the primary: ask for one until the standby is there
for i in $(seq 1 120); do
  state | grep -q ' secondary ' && break
  psql_at $((base + 1)) queen "CHECKPOINT" >/dev/null 2>&1 || true
  sleep 1
done
state | grep -q ' secondary ' || { echo "failover: the standby never caught up" >&2; state >&2; exit 1; }
echo "failover: pg_auto_failover cluster up in $(( $(date +%s) - t0 )) s; synchronous_standby_names =" \
  "'$(psql_at $((base + 1)) queen "SHOW synchronous_standby_names")'"
state

# kills whichever node is primary now: its pg_autoctl session (keeper + postgres) with -9
cat >"$W/kill-primary.sh" <<KILL
#!/usr/bin/env bash
set -euo pipefail
for n in 1 2; do
  if [ "\$(psql "postgresql://postgres@127.0.0.1:\$(( $base + n ))/queen?sslmode=disable" -Atqc 'SELECT NOT pg_is_in_recovery()' 2>/dev/null)" = t ]; then
    pgid=\$(cat "$W/node\$n.pgid")
    postmaster=\$(head -n1 "$W/node\$n/postmaster.pid")
    kill -KILL -- "-\$pgid" 2>/dev/null || true
    kill -KILL "\$postmaster" 2>/dev/null || true
    echo "killed the primary node\$n with -9 (pg_autoctl session \$pgid, postmaster \$postmaster)"
    exit 0
  fi
done
echo "no primary found" >&2; exit 1
KILL
chmod +x "$W/kill-primary.sh"
echo "${pids[1]}" >"$W/node1.pgid"
echo "${pids[2]}" >"$W/node2.pgid"

./mvnw -B -ntp -q -o package -DskipTests 2>/dev/null || ./mvnw -B -ntp -q package -DskipTests
rc=0
QUEEN_FAILOVER_HOSTS="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))" QUEEN_FAILOVER_DB=queen \
QUEEN_FAILOVER_KILL="$W/kill-primary.sh" \
  ./mvnw -B -ntp -q verify -DskipITs=false -Dit.test=FailoverDrill -Dtest=NoSuchTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dquarkus.build.skip=true 2>&1 | grep -E "^failover:|FAIL|Tests run:|expected" || true
grep -q 'failures="0"' target/failsafe-reports/TEST-io.queen.cluster.FailoverDrill.xml \
  && grep -q 'errors="0"' target/failsafe-reports/TEST-io.queen.cluster.FailoverDrill.xml \
  && grep -q 'skipped="0"' target/failsafe-reports/TEST-io.queen.cluster.FailoverDrill.xml || rc=1
echo "failover: after the drill:"
state
exit "$rc"
