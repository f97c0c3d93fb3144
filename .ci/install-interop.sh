#!/usr/bin/env bash
# Installs the OAuth 1.0a client libraries that test/interop drives: requests-oauthlib
# (Python; PyJWT and cryptography sign RSA-SHA1), Net::OAuth with LWP and
# Crypt::OpenSSL::RSA (Perl), the PECL OAuth extension (PHP CLI), the oauth gem (Ruby) and
# github.com/mrjones/oauth (Go: the compiler and the library's source, which drivers.ts builds
# offline in GOPATH mode from /usr/share/gocode). The npm ones (oauth, oauth-1.0a) are
# devDependencies. Idempotent and non-interactive.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=''
if [ "$(id -u)" -ne 0 ]; then SUDO='sudo'; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  python3 python3-requests-oauthlib python3-jwt python3-cryptography \
  perl libnet-oauth-perl libwww-perl libcrypt-openssl-rsa-perl \
  php-cli php-oauth \
  ruby ruby-oauth \
  golang-go golang-github-mrjones-oauth-dev
