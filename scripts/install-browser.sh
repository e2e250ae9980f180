#!/usr/bin/env bash
# Installs what the console's browser tests drive: Debian's headless Chromium and its WebDriver
# (/usr/bin/chromium, /usr/bin/chromedriver). Idempotent: does nothing when both are there.
# Needs root (apt-get); without it, prints what is missing and exits 1.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-browser: chromium/chromium-driver are missing and installing them needs root (apt-get)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# a stale package list may name versions the mirror no longer has: refresh it once, then install
if ! apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
fi
/usr/bin/chromium --version
