#!/usr/bin/env bash
# Installs what the fault suites use beyond the services: libfaketime (Debian), which steps
# the clock of a real `latchkey serve` (test/faults/clock-step-process.test.ts). Idempotent
# and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=''
if [ "$(id -u)" -ne 0 ]; then SUDO='sudo'; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends libfaketime
