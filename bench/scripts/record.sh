#!/usr/bin/env bash
# Runs queen-bench and keeps the report as bench/results/<name>.txt: the command, `uptime` before and after,
# and the report without the progress lines. Usage (from the repo root, after building the tool):
#   bench/scripts/record.sh <name> [queen-bench flags...]
# JAVA (default: the first JDK >= 21 under /usr/lib/jvm) runs the jar.
set -euo pipefail
name=$1
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
java=${JAVA:-$(ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | grep -E 'temurin-(2[1-9]|[3-9][0-9])' | tail -1)}
out="$root/bench/results/$name.txt"
{
  echo "## $name"
  echo "\$ queen-bench $*"
  echo "uptime before: $(uptime)"
} > "$out"
rc=0
"$java" -jar "${QUEEN_BENCH_JAR:-$root/bench/target/queen-bench.jar}" "$@" 2>&1 | grep -v '^\[' >> "$out" || rc=$?
echo "uptime after: $(uptime)" >> "$out"
tail -n 2 "$out" | head -n 1
exit $rc
