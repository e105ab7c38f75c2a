#!/usr/bin/env bash
# Installs the Debian packages rlcost needs to build and test, only those missing.
# Usage: scripts/install-deps.sh [--with-browser | --with-fuzz]
set -euo pipefail
pkgs=(g++ cmake make ninja-build libyaml-cpp-dev nlohmann-json3-dev libcli11-dev python3
      libfmt-dev libexpected-dev libgtest-dev libgmock-dev libbenchmark-dev
      libsqlite3-dev sqlite3
      pybind11-dev python3-dev python3-pytest libcpp-httplib-dev wrk libtomlplusplus-dev
      libopenmpi-dev openmpi-bin)
if [[ "${1:-}" == "--with-browser" ]]; then
  pkgs+=(chromium)
  # node + npm drive Chromium in the web test (playwright-core); any install will do.
  command -v node >/dev/null || pkgs+=(nodejs)
  command -v npm >/dev/null || pkgs+=(npm)
fi
# `make fuzz`: clang with libFuzzer and the sanitizer runtimes.
if [[ "${1:-}" == "--with-fuzz" ]]; then
  pkgs+=(clang-14 libclang-rt-14-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "installing: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
