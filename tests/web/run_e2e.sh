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
# Both browser tests start together under `ctest -j`: the first installs while
# the other waits on the lock (npm ci empties node_modules first, so a test
# that only checked for the folder could import a half-installed package).
# The marker is written only once npm ci has finished.
marker=$here/node_modules/.rlcost-installed
if [[ ! -f $marker ]]; then
  command -v npm >/dev/null || { echo "SKIPPED: npm is missing (needed once to install playwright-core)"; exit 77; }
  exec 9>"$here/.npm-install.lock"
  flock 9
  if [[ ! -f $marker ]]; then
    (cd "$here" && npm ci --no-audit --no-fund --silent) || { echo "npm ci failed: cannot install playwright-core"; exit 1; }
    touch "$marker"
  fi
  flock -u 9
fi
mkdir -p "$out"
exec node "$here/$script" "$binary" "$out" "$@"
