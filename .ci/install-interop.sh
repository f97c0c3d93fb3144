#!/usr/bin/env bash
# Installs the OAuth 1.0a client libraries that test/interop drives: requests-oauthlib
# (Python; PyJWT and cryptography sign RSA-SHA1), Net::OAuth with LWP and
# Crypt::OpenSSL::RSA (Perl), the PECL OAuth extension (PHP CLI) and the oauth gem (Ruby).
# The npm ones (oauth, oauth-1.0a) are devDependencies. Idempotent and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=''
if [ "$(id -u)" -ne 0 ]; then SUDO='sudo'; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  python3 python3-requests-oauthlib python3-jwt python3-cryptography \
  perl libnet-oauth-perl libwww-perl libcrypt-openssl-rsa-perl \
  php-cli php-oauth \
  ruby ruby-oauth
