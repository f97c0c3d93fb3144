#!/usr/bin/env bash
# Installs the edges and peers the fleet, forward-auth and benchmark suites start on loopback:
# Debian's nginx (auth_request is built in) and Caddy (forward_auth), gunicorn with oauthlib
# (the Python peer in the benchmark), openssl for a throwaway CA, and Go and a JDK for the
# verification API's examples in docs/edge.md (test/edge/verify-api.test.ts builds and runs them). The packages' own
# services are not used: the tests start each binary with a config of their own.
# Idempotent and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=''
if [ "$(id -u)" -ne 0 ]; then SUDO='sudo'; fi
if command -v nginx >/dev/null && command -v caddy >/dev/null && command -v gunicorn >/dev/null \
  && python3 -c 'import oauthlib' 2>/dev/null && command -v openssl >/dev/null \
  && command -v go >/dev/null && command -v javac >/dev/null; then
  exit 0
fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends nginx caddy gunicorn python3-oauthlib openssl \
  golang-go default-jdk-headless
