#!/usr/bin/env bash
# Builds the broker's container image with Quarkus (Jib) on a machine with no Docker daemon and no registry:
# a `docker save` tarball at target/queen-image.tar (QUEEN_IMAGE_TAR), loadable with `docker load` / `podman load`.
#   deploy/image/build.sh
# The base (Debian bookworm minbase + jlink'd Java, non-root user 1001) comes from deploy/image/base.sh, built once
# and cached in ~/.cache/queen-image. With Docker or a registry at hand, use the usual Quarkus way instead:
#   ./mvnw package -Pimage [-Dquarkus.container-image.push=true -Dquarkus.container-image.registry=...]
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
base="${QUEEN_IMAGE_BASE:-${QUEEN_IMAGE_CACHE:-$HOME/.cache/queen-image}/base-bookworm-jre.tar}"
deploy/image/base.sh "$base"
export QUEEN_IMAGE_TAR="${QUEEN_IMAGE_TAR:-$PWD/target/queen-image.tar}"
rm -f "$QUEEN_IMAGE_TAR"
t0=$(date +%s)
./mvnw -B -ntp -q -Pimage,image-offline package -DskipTests -Dqueen.image.base="$base"
[ -s "$QUEEN_IMAGE_TAR" ] || { echo "image build: no tarball written to $QUEEN_IMAGE_TAR" >&2; exit 1; }
echo "image: $QUEEN_IMAGE_TAR, $(du -m "$QUEEN_IMAGE_TAR" | cut -f1) MB as a docker-save tarball, built in $(( $(date +%s) - t0 )) s"
