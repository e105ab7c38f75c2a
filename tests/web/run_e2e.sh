#!/usr/bin/env bash
# ctest driver of the browser tests: exit 77 (skipped, with the reason) where
# Chromium, node or npm is missing; installs playwright-core from
# package-lock.json on first use.
# Usage: run_e2e.sh RLCOST_BINARY [OUT_DIR [SCRIPT.mjs [ARGS...]]]
# (SCRIPT defaults to e2e.mjs, the web calculator; ARGS go to the script.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
binary=$1
out=${2:-$(mktemp -d)}
script=${3:-e2e.mjs}
shift $(( $# < 3 ? $# : 3 ))
[[ -x /usr/bin/chromium ]] || { echo "SKIPPED: /usr/bin/chromium is missing (scripts/install-deps.sh --with-browser)"; exit 77; }
command -v node >/dev/null || { echo "SKIPPED: node is missing"; exit 77; }
if [[ ! -d $here/node_modules/playwright-core ]]; then
  command -v npm >/dev/null || { echo "SKIPPED: npm is missing (needed once to install playwright-core)"; exit 77; }
  (cd "$here" && npm ci --no-audit --no-fund --silent) || { echo "npm ci failed: cannot install playwright-core"; exit 1; }
fi
mkdir -p "$out"
exec node "$here/$script" "$binary" "$out" "$@"
