#!/usr/bin/env bash
# Builds the broker image's base as a `docker save` tarball, without a Docker daemon: a minimal Debian bookworm
# (debootstrap --variant=minbase), a Java runtime made by jlink from the build JDK, a non-root user `queen`
# (uid/gid 1001) owning /deployments. Jib takes it as `tar://` base (deploy/image/build.sh).
#   deploy/image/base.sh [OUT.tar]    default: $QUEEN_IMAGE_CACHE/base-bookworm-jre.tar (~/.cache/queen-image)
# Needs root (debootstrap) and the Debian archive; installs debootstrap with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

cache="${QUEEN_IMAGE_CACHE:-$HOME/.cache/queen-image}"
out="${1:-$cache/base-bookworm-jre.tar}"
java_home="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# what the broker needs from the JDK (java.rmi: JMX/Micrometer; jdk.crypto.ec: TLS to PostgreSQL; jdk.unsupported:
# Netty, zstd-jni; java.desktop: java.beans for Jackson)
modules="java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,\
java.prefs,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,\
jdk.crypto.ec,jdk.jfr,jdk.management,jdk.naming.dns,jdk.net,jdk.unsupported,jdk.zipfs"

if [ -f "$out" ] && [ -z "${QUEEN_IMAGE_REBUILD_BASE:-}" ]; then
  echo "base image: $out (exists; QUEEN_IMAGE_REBUILD_BASE=1 rebuilds it)"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
mkdir -p "$(dirname "$out")"
work=$(mktemp -d "$cache/base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"

echo "base image: debootstrap bookworm (minbase) ..."
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

echo "base image: jlink a Java runtime from $java_home ..."
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=zip-6 --output "$root/opt/java"

# the broker never runs as root: user queen (1001), home and working directory /deployments
echo "queen:x:1001:1001:queen broker:/deployments:/usr/sbin/nologin" >>"$root/etc/passwd"
echo "queen:x:1001:" >>"$root/etc/group"
mkdir -p "$root/deployments" "$root/var/lib/queen/spool"
chown 1001:1001 "$root/deployments" "$root/var/lib/queen" "$root/var/lib/queen/spool"
# what a runtime image does not need: package caches, docs, man pages, locales
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/* \
  "$root"/usr/share/info/* "$root"/usr/share/locale/* "$root"/var/log/* "$root"/tmp/*

echo "base image: packing ..."
tar --numeric-owner --sort=name --mtime='2026-01-01 00:00Z' -C "$root" -cf "$work/layer.tar" .
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
cat >"$work/config.json" <<JSON
{"architecture":"amd64","os":"linux",
 "config":{"Env":["PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=/opt/java","LANG=C.UTF-8"],
           "User":"1001","WorkingDir":"/deployments"},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},
 "history":[{"created":"2026-01-01T00:00:00Z","created_by":"deploy/image/base.sh: debootstrap bookworm minbase + jlink"}]}
JSON
config_id=$(sha256sum "$work/config.json" | cut -d' ' -f1)
mv "$work/config.json" "$work/$config_id.json"
mkdir -p "$work/$diff_id"
mv "$work/layer.tar" "$work/$diff_id/layer.tar"
echo "[{\"Config\":\"$config_id.json\",\"RepoTags\":[\"queen-base:bookworm-jre\"],\"Layers\":[\"$diff_id/layer.tar\"]}]" \
  >"$work/manifest.json"
tar -C "$work" -cf "$out.tmp" manifest.json "$config_id.json" "$diff_id/layer.tar"
mv "$out.tmp" "$out"
echo "base image: $out ($(du -m "$out" | cut -f1) MB)"
