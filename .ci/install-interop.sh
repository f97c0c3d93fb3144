#!/usr/bin/env bash
# Installs the OAuth 1.0a client libraries that test/interop drives: requests-oauthlib
# (Python), Net::OAuth + LWP (Perl), PECL OAuth (PHP), the oauth gem (Ruby). The npm ones
# (oauth, oauth-1.0a) are devDependencies. Idempotent and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=''
if [ "$(id -u)" -ne 0 ]; then SUDO='sudo'; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  python3-requests-oauthlib \
  libnet-oauth-perl libwww-perl \
  php-cli php-oauth \
  ruby ruby-oauth
