#!/usr/bin/env bash
# A JFR profile of one broker under the soak shape, with its top frames:
#   bench/scripts/profile.sh <quarkus-app dir | quarkus-run.jar | git revision> [--seconds S] [--rate R] [-- flags]
# One run of bench/scripts/ab-soak.sh with --jfr (fresh database, warm run, then a recorded soak while JFR records
# with settings=profile); prints the run's figures and the top frames: self, by io.queen class and method (inclusive
# shares of all execution samples), and the samples outside any io.queen frame by package. The .jfr file stays in
# the printed directory (open it with `jfr view hot-methods <file>` or JDK Mission Control).
set -euo pipefail
exec "$(dirname "$0")/ab-soak.sh" --rounds 1 --jfr "$@"
