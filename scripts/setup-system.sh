#!/usr/bin/env bash
# What the tests that go beyond Node need from Debian (or Ubuntu), installed when missing:
#   PostgreSQL's server binaries  the tests start throw-away clusters of their own, replicas included
#   nginx                         test/ops-nginx.test.ts runs it in front of two Quarry instances
#   Chromium                      the explorer's browser tests drive it (never a downloaded browser)
# Without them `npm test` still passes: those tests are skipped, each saying once what to install.
set -euo pipefail

missing=""
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then missing="$missing postgresql"; fi
if [ ! -x /usr/sbin/nginx ]; then missing="$missing nginx"; fi
if [ ! -x /usr/bin/chromium ]; then missing="$missing chromium"; fi
if [ -z "$missing" ]; then
  echo "setup:system: PostgreSQL, nginx and Chromium are installed"
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
echo "setup:system: installing$missing with apt-get"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
