#!/usr/bin/env bash
# Makes sure the system packages the integration tests start are installed: redis-server (and redis-cli), nginx
# and caddy (the forward-auth end-to-end tests run a private nginx and a private Caddy in front of `sluice serve`),
# curl (the service test runs the curl command `sluice serve` prints) and chromium (the dashboard test).
# With --bench, also what the benchmarks drive: h2load (nghttp2-client) for `npm run bench -- service`.
# Installs them with apt when running as root; otherwise prints the exact command and fails.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
# nginx is often in /usr/sbin, which a non-root PATH may lack.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
# Caddy: the forward_auth end-to-end test runs a private Caddy the same way.
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v curl >/dev/null 2>&1 || missing+=(curl)
# Chromium drives the admin dashboard's browser test (through playwright-core, executablePath /usr/bin/chromium).
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ "${1:-}" = "--bench" ]; then
  command -v h2load >/dev/null 2>&1 || missing+=(nghttp2-client)
fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} with apt-get" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The ${1:+benchmarks and }test suite need: ${missing[*]}. Install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
