#!/usr/bin/env bash
# Alternating A/B runs of two broker builds (and optionally pgmq) in one shape (or two), printing every run and the
# ratio of medians:
#   bench/scripts/ab-soak.sh [options] <A> [<B>] [-- extra queen-bench flags]
# A and B: a quarkus-app directory, its quarkus-run.jar, or a git revision of this repository (exported with
# `git archive` and built with ./mvnw -o package into a temporary directory). Options:
#   --rounds N      rounds (default 3); odd rounds run A then B, even rounds B then A (no build always goes first)
#   --seconds S     recorded steady seconds per run (default 30)
#   --warm S        seconds of an unrecorded run of the same shape that warms each broker first (default 20; 0 = none)
#   --shape X       queue (default): the soak shape, consumers popping the queue (any partition, as the official
#                   clients do); partitions: the soak shape, consumers handed partitions (each consumer its share,
#                   popped partition by partition); both: queue and partitions in each round, one table each;
#                   jobs: queen-bench --preset jobs (a job queue: one producer at a steady 500 jobs/s, 8 workers
#                   popping 8 jobs at a time with 1 ms of work per job), its table giving jobs/s, CPU per job and
#                   pickup latency (push answered -> the job popped) p50/p99/max
#   --preset jobs   the same as --shape jobs
#   --rate R        producers paced to R msg/s (default: saturated, a closed loop; jobs: the preset's 500, and
#                   --rate 0 gives its peak jobs/s with an unpaced producer)
#   --pgmq          also run pgmq's SQL API (queen-bench --mode pgmq) in each round and shape, on its own fresh database
#                   (bench/scripts/pgmq-install.sh installs pgmq there)
#   --record NAME   also keep each run's report as bench/results/<NAME>-<A|B|pgmq>-<round>.txt (bench/scripts/record.sh;
#                   with --shape both <NAME>-<shape>-<A|B|pgmq>-<round>.txt)
#   --out DIR       where the per-run JSON and logs go (default: a new temporary directory, printed)
#   --floor R       beside each recorded run, R minimal durable writes a second on a database of their own (pgbench,
#                   2 connections; one statement that moves a counter row and inserts a 1 KiB row, committed: one
#                   round trip, one WAL flush) and print their latency from the scheduled start (floor p50/p99): what
#                   one PostgreSQL commit takes on this machine under that run's load. A push waits for one commit,
#                   a delivery for two in sequence (the push's, then the pop's lease). Costs PostgreSQL a little CPU,
#                   counted in the run's figures (50/s: ~1% of a core)
#   --jfr           record a JFR profile (settings=profile, execution samples every 2 ms) of each broker over its
#                   recorded run and print its top frames (bench/scripts/JfrTop.java: self, by io.queen class and
#                   method, by innermost io.queen class, outside io.queen, Java threads' CPU)
# The soak shape: --preset soak --producers 8 --consumers 8 (1 queue x 200 partitions, push batches of 100 x 256 B,
# pops of 1,000 with explicit batch acks), --warmup 5, plus --wildcard true for the queue shape; the jobs shape:
# --preset jobs --warmup 5. Flags after -- go to every run (e.g. -- --consumers 32: the jobs shape with 32 workers).
# Per run: a fresh database, the broker started on it (PostgreSQL from PG_HOST/PG_PORT/PG_USER/PG_PASSWORD, default
# 127.0.0.1:5432 postgres/postgres; BROKER_JAVA_OPTS and BROKER_ENV, e.g. "JWT_ENABLED=true JWT_SECRET=...", go to the
# broker, BROKER_JAVA_OPTS_A / BROKER_JAVA_OPTS_B to one arm's broker only, for an A/B of JVM settings on one build),
# the warm run, a CHECKPOINT, the recorded run, the broker stopped and the database dropped. Figures per message are
# per acked message (per completed job), steady start to drain end. A build with an AOT cache beside it (app.aot,
# made by bench/scripts/aot-train.sh) is started with it, and the header says so; BROKER_AOT=off starts both without.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 seconds=30 warm=20 rate="" shape=queue pgmq=false record="" out="" jfr=false floor=0
args=() extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --warm) warm=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --shape) shape=$2; shift 2 ;;
    --preset) [ "$2" = jobs ] || { echo "ab-soak: --preset takes only jobs" >&2; exit 2; }; shape=jobs; shift 2 ;;
    --pgmq) pgmq=true; shift ;;
    --jfr) jfr=true; shift ;;
    --floor) floor=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "ab-soak: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
case $shape in
  queue|partitions|jobs) shapes=("$shape") ;;
  both) shapes=(queue partitions) ;;
  *) echo "ab-soak: --shape is queue, partitions, both or jobs" >&2; exit 2 ;;
esac
if [ ${#args[@]} -lt 1 ] || [ ${#args[@]} -gt 2 ]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit 2
fi
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[1-9]|[3-9][0-9])' | tail -1)}
bench=${QUEEN_BENCH_JAR:-$root/bench/target/queen-bench.jar}
host=${PG_HOST:-127.0.0.1} pgport=${PG_PORT:-5432} user=${PG_USER:-postgres} pass=${PG_PASSWORD:-postgres}
export PGPASSWORD=$pass
out=${out:-$(mktemp -d /tmp/ab-soak.XXXXXX)}
mkdir -p "$out"
[ -s "$bench" ] || { echo "ab-soak: $bench missing (./mvnw -f bench/pom.xml package)" >&2; exit 2; }

# <A|B> <argument> -> path of quarkus-run.jar
resolve() {
  local label=$1 x=$2 dir
  if [ -d "$x" ] && [ -f "$x/quarkus-run.jar" ]; then echo "$x/quarkus-run.jar"; return; fi
  if [ -f "$x" ]; then echo "$x"; return; fi
  git -C "$root" rev-parse --verify -q "$x^{commit}" >/dev/null || { echo "ab-soak: $x is no app dir, jar or revision" >&2; exit 2; }
  dir="$out/build-$label"
  rm -rf "$dir" && mkdir -p "$dir"
  echo "ab-soak: building $label = $(git -C "$root" rev-parse --short "$x") in $dir" >&2
  git -C "$root" archive "$x" | tar -x -C "$dir"
  (cd "$dir" && JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$java")")} ./mvnw -B -ntp -o -q package -DskipTests \
    >"$dir/build.log" 2>&1) || { echo "ab-soak: build of $x failed, see $dir/build.log" >&2; exit 1; }
  echo "$dir/target/quarkus-app/quarkus-run.jar"
}
jar_a=$(resolve A "${args[0]}")
jar_b=""
[ ${#args[@]} -eq 2 ] && jar_b=$(resolve B "${args[1]}")
# shellcheck source=bench/scripts/aot-cache.sh
. "$root/bench/scripts/aot-cache.sh"
aot_a=$(aot_option "$jar_a" "$java") aot_b=""
[ -z "$jar_b" ] || aot_b=$(aot_option "$jar_b" "$java")

# <shape name> -> the queen-bench flags of that shape in flags_of
shape_flags() {
  case $1 in
    queue) flags_of=(--preset soak --producers 8 --consumers 8 --warmup 5 --wildcard true) ;;
    partitions) flags_of=(--preset soak --producers 8 --consumers 8 --warmup 5) ;;
    jobs) flags_of=(--preset jobs --warmup 5) ;;
  esac
  [ -n "$rate" ] && flags_of+=(--rate "$rate")
  flags_of+=("${extra[@]}")
}

# one line per thread of <pid>: tid, CPU ticks (utime + stime), name
threads() {
  local t
  for t in /proc/"$1"/task/*; do
    awk -v tid="${t##*/}" -v name="$(cat "$t/comm" 2>/dev/null)" '{sub(/^.*\) /, ""); print tid "\t" $12 + $13 "\t" name}' \
      "$t/stat" 2>/dev/null || true
  done
}

psql_q() { psql -h "$host" -p "$pgport" -U "$user" -qAtc "$1"; }

floor_db=""
if [ "$floor" != 0 ]; then
  command -v pgbench >/dev/null || { echo "ab-soak: --floor needs pgbench (Debian: postgresql-client)" >&2; exit 2; }
  floor_db="ab_floor_$(date +%s)_$RANDOM"
  psql_q "CREATE DATABASE $floor_db"
  trap 'psql_q "DROP DATABASE IF EXISTS $floor_db WITH (FORCE)" >/dev/null 2>&1 || true' EXIT
  psql -h "$host" -p "$pgport" -U "$user" -d "$floor_db" -qAt \
    -c "CREATE TABLE floor_alloc (id int PRIMARY KEY, last bigint NOT NULL)" \
    -c "INSERT INTO floor_alloc SELECT g, 0 FROM generate_series(1, 200) g" \
    -c "CREATE TABLE floor_seg (id int, base bigint, blob bytea, PRIMARY KEY (id, base))"
  cat >"$out/floor.sql" <<'EOF'
\set p random(1, 200)
WITH a AS (UPDATE floor_alloc SET last = last + 100 WHERE id = :p RETURNING last)
INSERT INTO floor_seg SELECT :p, last, convert_to(repeat(md5(random()::text), 32), 'UTF8') FROM a;
EOF
fi

# <run tag>: starts the floor writes for the recorded run in the background (their pid in floor_pid)
floor_start() {
  floor_pid=""
  [ "$floor" = 0 ] && return
  pgbench -h "$host" -p "$pgport" -U "$user" -n -f "$out/floor.sql" -R "$floor" -T $((seconds + 5)) -c 2 -j 1 \
    -M prepared -l --log-prefix="$out/$1.floor-log" "$floor_db" >"$out/$1.floor.out" 2>&1 &
  floor_pid=$!
}

# <run tag>: waits for the floor writes and leaves their latencies (ms, one per line) in <run tag>.floor
floor_end() {
  [ -z "$floor_pid" ] && return
  wait "$floor_pid" || echo "ab-soak: floor writes failed, see $out/$1.floor.out" >&2
  # pgbench's log: client, transaction, latency in us (from the scheduled start under -R), ...
  { cat "$out/$1.floor-log".* 2>/dev/null || true; } | awk '{ printf "%.3f\n", $3 / 1000 }' >"$out/$1.floor"
}

run_one() {  # <arm> <round> <shape name>
  local arm=$1 round=$2 db port pid="" jar pg_url load name flags shape_args tag label=""
  shape_flags "$3"
  shape_args=("${flags_of[@]}")
  # with several shapes their files and lines are told apart by the shape's name
  tag="$arm-$round"
  [ ${#shapes[@]} -gt 1 ] && { tag="$3-$arm-$round"; label=" ($3)"; }
  db="ab_$(date +%s)_$RANDOM"
  psql_q "CREATE DATABASE $db"
  pg_url="jdbc:postgresql://$host:$pgport/$db?user=$user&password=$pass"
  flags=("${shape_args[@]}" --pg-url "$pg_url" --duration "$seconds" --json "$out/$tag.json")
  if [ "$arm" = pgmq ]; then
    "$root/bench/scripts/pgmq-install.sh" "$db"
    flags+=(--mode pgmq)
  else
    [ "$arm" = A ] && jar=$jar_a || jar=$jar_b
    [ "$arm" = A ] && arm_opts="${BROKER_JAVA_OPTS_A:-} $aot_a" || arm_opts="${BROKER_JAVA_OPTS_B:-} $aot_b"
    port=$((20000 + RANDOM % 10000))
    # shellcheck disable=SC2086
    env PORT=$port PG_HOST=$host PG_PORT=$pgport PG_USER=$user PG_PASSWORD=$pass PG_DATABASE=$db \
      QUEEN_SPOOL_DIR="$out/$tag.spool" ${BROKER_ENV:-} \
      "$java" ${BROKER_JAVA_OPTS:-} $arm_opts --enable-native-access=ALL-UNNAMED -jar "$jar" >"$out/$tag.broker.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 240); do
      curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
      sleep 0.5
    done
    flags+=(--url "http://127.0.0.1:$port" --broker-pid "$pid")
    if [ "$warm" != 0 ]; then
      "$java" -jar "$bench" "${shape_args[@]}" --duration "$warm" --verify false --url "http://127.0.0.1:$port" \
        --pg-url "$pg_url" >"$out/$tag.warm.log" 2>&1 || true
    fi
  fi
  psql_q "CHECKPOINT" >/dev/null 2>&1 || true
  if $jfr && [ -n "$pid" ]; then
    "$(dirname "$java")/jcmd" "$pid" JFR.start name=ab settings=profile jdk.ExecutionSample#period=2ms filename="$out/$tag.jfr" >/dev/null
  fi
  load=$(cut -d' ' -f1 /proc/loadavg)
  [ -n "$pid" ] && threads "$pid" >"$out/$tag.threads-before"
  floor_start "$tag"
  if [ -n "$record" ]; then
    name="$record-$tag"
    QUEEN_BENCH_JAR=$bench "$root/bench/scripts/record.sh" "$name" "${flags[@]}" >/dev/null 2>&1 || true
    cp "$root/bench/results/$name.txt" "$out/$tag.txt"
  else
    "$java" -jar "$bench" "${flags[@]}" 2>&1 | grep -v '^\[' >"$out/$tag.txt" || true
  fi
  [ -n "$pid" ] && threads "$pid" >"$out/$tag.threads-after"
  floor_end "$tag"
  echo "$arm $round $load $out/$tag.json" >>"$out/runs-$3.txt"
  echo "ab-soak: $arm round $round$label: $(tail -n 1 "$out/$tag.txt") (load before $load)" >&2
  if [ -n "$pid" ]; then
    if $jfr; then
      "$(dirname "$java")/jcmd" "$pid" JFR.stop name=ab >/dev/null
      "$java" "$root/bench/scripts/JfrTop.java" "$out/$tag.jfr" >"$out/$tag.top.txt" 2>&1 || true
    fi
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  psql_q "DROP DATABASE IF EXISTS $db WITH (FORCE)"
}

{
  echo "A: ${args[0]} ($jar_a${aot_a:+, AOT cache})"
  if [ -n "$jar_b" ]; then echo "B: ${args[1]} ($jar_b${aot_b:+, AOT cache})"; fi
} >"$out/header.txt"
for s in "${shapes[@]}"; do
  : >"$out/runs-$s.txt"
  shape_flags "$s"
  echo "shape: ${flags_of[*]} --duration $seconds; warm run ${warm} s; rounds $rounds; $(date -u '+%Y-%m-%d %H:%M UTC')" \
    >"$out/shape-$s.txt"
done
for r in $(seq 1 "$rounds"); do
  arms=(A)
  [ -n "$jar_b" ] && { if [ $((r % 2)) -eq 1 ]; then arms=(A B); else arms=(B A); fi; }
  $pgmq && arms+=(pgmq)
  for s in "${shapes[@]}"; do
    for arm in "${arms[@]}"; do
      run_one "$arm" "$r" "$s"
    done
  done
done
cat "$out/header.txt"
for s in "${shapes[@]}"; do
  [ ${#shapes[@]} -gt 1 ] && echo "== $s shape"
  cat "$out/shape-$s.txt"
  table=()
  [ "$s" = jobs ] && table=(--jobs)
  python3 "$root/bench/scripts/ab_table.py" "${table[@]}" "$out/runs-$s.txt"
done
if $jfr; then
  for t in "$out"/*.top.txt; do
    echo; echo "### profile $(basename "$t" .top.txt) ($t; recording ${t%.top.txt}.jfr)"; cat "$t"
  done
fi
echo "(per-run reports and JSON: $out)"
