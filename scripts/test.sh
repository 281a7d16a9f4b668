#!/usr/bin/env bash
# The whole test suite: lint, clock rule, type check, then every test (unit, conformance, integration).
# Integration tests start their own redis-server / ZooKeeper; scripts/ensure-deps.sh installs them when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
bash scripts/ensure-deps.sh
npx biome check .
node scripts/check-clock.mjs
npx tsc -p tsconfig.json --noEmit
npx vitest run "$@"
