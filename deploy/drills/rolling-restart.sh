#!/usr/bin/env bash
# Rolling-restart drill: three brokers on one database under steady verifying push/pop load, each stopped with
# SIGTERM and replaced, one at a time (io.queen.cluster.RollingRestartDrill). Prints the figures; fails on any
# lost, twice-stored or twice-acked message or client-visible error. About two minutes; not part of ./queen test.
#   deploy/drills/rolling-restart.sh      PostgreSQL: PG_HOST/PG_PORT/PG_USER/PG_PASSWORD, else an embedded one
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
./mvnw -B -ntp -q -o package -DskipTests 2>/dev/null || ./mvnw -B -ntp -q package -DskipTests
./mvnw -B -ntp -q verify -DskipITs=false -Dit.test=RollingRestartDrill -Dtest=NoSuchTest \
  -Dsurefire.failIfNoSpecifiedTests=false -Dquarkus.build.skip=true 2>&1 | grep -E "^rolling restart:|FAIL|Tests run:|expected" \
  || { echo "rolling restart: see target/failsafe-reports/io.queen.cluster.RollingRestartDrill.txt" >&2; exit 1; }
grep -q 'failures="0"' target/failsafe-reports/TEST-io.queen.cluster.RollingRestartDrill.xml \
  && grep -q 'errors="0"' target/failsafe-reports/TEST-io.queen.cluster.RollingRestartDrill.xml
