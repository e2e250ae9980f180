#!/usr/bin/env bash
# Installs the Debian packages the tests drive: headless Chromium and its WebDriver for the console's browser tests
# (/usr/bin/chromium, /usr/bin/chromedriver), curl and jq for the docs' curl walkthroughs (ReadmeWalkthroughTest),
# openssl for `./queen token` (DevTokenTest), kcat, Debian's confluent-kafka and kafka-python for /usr/bin/python3 for
# the Kafka listener's tests with other clients than Java's (KafkaToolsTest).
# Idempotent: does nothing when every tool is there. Needs root (apt-get); without it, prints what is missing and
# exits 1.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-dejavu-core)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
for tool in curl jq openssl kcat; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
[ -d /usr/lib/python3/dist-packages/confluent_kafka ] || missing+=(python3-confluent-kafka)
[ -d /usr/lib/python3/dist-packages/kafka ] || missing+=(python3-kafka)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-test-tools: missing ${missing[*]}; installing them needs root (apt-get)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# a stale package list may name versions the mirror no longer has: refresh it once, then install
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-test-tools: installed ${missing[*]}"
