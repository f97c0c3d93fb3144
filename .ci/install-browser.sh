#!/usr/bin/env bash
# Installs Debian's Chromium for the browser suites (test/browser), driven by playwright-core
# at /usr/bin/chromium. Never downloads a browser build. Idempotent and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=''
if [ "$(id -u)" -ne 0 ]; then SUDO='sudo'; fi
if [ -x /usr/bin/chromium ]; then exit 0; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium
