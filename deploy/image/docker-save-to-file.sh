#!/usr/bin/env bash
# Stands in for the `docker` command Jib calls when it "loads into the local daemon", on a machine with no Docker
# daemon: `info`/`version` answer like a Linux amd64 daemon, `load` writes the `docker save` stream Jib sends to
# $QUEEN_IMAGE_TAR (default target/queen-image.tar). Used by deploy/image/build.sh through
# quarkus.jib.docker-executable-name.
set -euo pipefail
case "${1:-}" in
  info)
    echo '{"OSType":"linux","Architecture":"x86_64","OperatingSystem":"queen image file writer"}'
    ;;
  version)
    echo '{"Client":{"Version":"0"},"Server":{"Version":"0"}}'
    ;;
  load)
    out="${QUEEN_IMAGE_TAR:-target/queen-image.tar}"
    mkdir -p "$(dirname "$out")"
    cat >"$out.part"
    mv "$out.part" "$out"
    echo "Loaded image: written to $out"
    ;;
  *)
    echo "docker-save-to-file.sh: '$*' is not supported (no Docker daemon here)" >&2
    exit 1
    ;;
esac
