#!/usr/bin/env bash
# Builds the broker's container image with Quarkus (Jib) on a machine with no Docker daemon and no registry:
# a `docker save` tarball at target/queen-image.tar (QUEEN_IMAGE_TAR), loadable with `docker load` / `podman load`,
# and the Kubernetes manifests naming that image (target/kubernetes/kubernetes.yml), then checks the tarball
# (deploy/image/check-archive.py). Called by `./queen package`.
#   [QUEEN_IMAGE=registry.example.com/team/queen-broker:1.0] deploy/image/build.sh
# QUEEN_IMAGE: the image's whole name, [registry/]group/name[:tag] (tag: the version when left out); default
# queen/queen-broker:<version> (quarkus.container-image.* in application.properties); also tagged latest.
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
# QUEEN_IMAGE as Quarkus' parts of an image name (the manifests take the image from those parts, not from
# quarkus.container-image.image): [registry/]group/name[:tag], a registry being a first part with a dot or a port
name_args=()
if [ -n "${QUEEN_IMAGE:-}" ]; then
  ref=$QUEEN_IMAGE first=${QUEEN_IMAGE%%/*}
  if [ "$first" != "$ref" ] && [[ $first == *.* || $first == *:* || $first == localhost ]]; then
    name_args+=(-Dquarkus.container-image.registry="$first")
    ref=${ref#*/}
  fi
  last=${ref##*/}
  if [ "$last" = "$ref" ] || [[ $ref == *@* ]]; then
    echo "image build: QUEEN_IMAGE=$QUEEN_IMAGE is not [registry/]group/name[:tag]" >&2
    exit 2
  fi
  name_args+=(-Dquarkus.container-image.group="${ref%/*}" -Dquarkus.container-image.name="${last%%:*}")
  [[ $last != *:* ]] || name_args+=(-Dquarkus.container-image.tag="${last#*:}")
fi
./mvnw -B -ntp -q -Pimage,image-offline package -DskipTests -Dqueen.image.base="$base" ${name_args[@]+"${name_args[@]}"}
[ -s "$QUEEN_IMAGE_TAR" ] || { echo "image build: no tarball written to $QUEEN_IMAGE_TAR" >&2; exit 1; }
# the image the manifests deploy is the one in the tarball
image=$(sed -n 's/^ *image: //p' target/kubernetes/kubernetes.yml | head -n1)
python3 deploy/image/check-archive.py "$QUEEN_IMAGE_TAR" "$image"
echo "image: $image in $QUEEN_IMAGE_TAR, $(du -m "$QUEEN_IMAGE_TAR" | cut -f1) MB as a docker-save tarball, built in $(( $(date +%s) - t0 )) s"
