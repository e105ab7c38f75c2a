#!/usr/bin/env bash
# Runs every libFuzzer target of build/asan-ubsan for SECONDS each (default 60; with
# FUZZ_RUNS=N set, a target stops after N inputs if that comes first; FUZZ_TIMEOUT
# is the wall-clock seconds one input may take, default 20; FUZZ_SEED fixes
# libFuzzer's seed and starts each corpus afresh from the seed files, so that
# runs start from the same inputs and mutate them the same way; coverage still
# differs by an edge or so between runs, inside libstdc++, so a seeded run is
# not an exact replay) on a seed corpus of the shipped and shared files; crashes land in
# build/asan-ubsan/findings/<target>/ (keep each as a regression input under
# fuzz/regressions/<target>/). Usage: fuzz/run.sh [SECONDS] [target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"; shift || true
targets=("$@"); ((${#targets[@]})) || targets=(scenario overrides catalog log import request)
build=build/asan-ubsan
bin=$build/fuzz
# prefixed BYTE FILE OUT: OUT is FILE with one leading byte (which format it is).
prefixed() { { printf "\\$(printf '%03o' "$1")"; cat "$2"; } >"$3"; }
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t; findings=$build/findings/$t
  [[ -n "${FUZZ_SEED:-}" ]] && rm -rf "$corpus"
  mkdir -p "$corpus" "$findings"
  case $t in
    scenario) cp -n ../shared/scenarios/*.yaml ../shared/validation/*.yaml scenarios/*.yaml "$corpus"/ 2>/dev/null || true ;;
    catalog) cp -n catalog/*.yaml "$corpus"/ ;;
    log) cp -n tests/data/logs/*.log tests/data/logs/*.jsonl tests/data/ingest/logs/*.csv tests/data/ingest/logs/*.jsonl "$corpus"/ ;;
    import) # first byte: 0 veRL, 1 NeMo RL, 2 Harbor task.toml, 3 Hugging Face config.json
      for f in tests/data/ingest/verl/*.yaml; do prefixed 0 "$f" "$corpus/verl-$(basename "$f")"; done
      for f in $(find tests/data/ingest/nemo-rl -name "*.yaml"); do prefixed 1 "$f" "$corpus/nemo-$(basename "$f")"; done
      for f in $(find tests/data/ingest/harbor -name task.toml); do prefixed 2 "$f" "$corpus/harbor-$(basename "$(dirname "$f")").toml"; done
      for f in tests/data/ingest/hf/*/config.json; do prefixed 3 "$f" "$corpus/hf-$(basename "$(dirname "$f")").json"; done ;;
    request) # first byte: 0 a JSON body, 1 a YAML body (YAML Content-Type)
      for f in ../shared/scenarios/*.yaml; do prefixed 1 "$f" "$corpus/yaml-$(basename "$f")"; done
      printf '\0{"scenario": {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}}, "set": ["algorithm.group_size=4"]}' >"$corpus/json-a"
      printf '\0{"set": ["pipeline.mode=async"], "steps": 2}' >"$corpus/json-b" ;;
    overrides) printf 'model=qwen3-32b\nalgorithm.group_size=8\n' >"$corpus/a"
               printf 'environment.response_tokens={mean: 500, cv: 1}\npipeline.mode=async\n' >"$corpus/b"
               printf 'hardware={gpu: b200, gpus: 16}\nplacement.mode=disaggregated\n' >"$corpus/c" ;;
  esac
  # Regression inputs first: each once crashed and must not again.
  if [[ -d fuzz/regressions/$t ]]; then "$bin/fuzz_$t" -timeout=20 fuzz/regressions/$t/* >/dev/null 2>&1 || { echo "fuzz_$t: a regression input fails"; exit 1; }; fi
  echo "fuzz_$t: ${secs}s"
  "$bin/fuzz_$t" "$corpus" -max_total_time="$secs" ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} ${FUZZ_SEED:+-seed=$FUZZ_SEED} -rss_limit_mb=4096 -timeout="${FUZZ_TIMEOUT:-20}" -max_len=65536 \
      -artifact_prefix="$findings/" -print_final_stats=1 2>&1 | grep -E "^stat::number_of_executed_units|^stat::peak_rss|ERROR|SUMMARY" || true
  # crash-, timeout-, oom- and leak- inputs fail the run; slow-unit- inputs (an
  # input past 10 s of wall time, e.g. on a busy machine) are kept, not failed.
  if compgen -G "$findings/crash-*" >/dev/null || compgen -G "$findings/timeout-*" >/dev/null ||
     compgen -G "$findings/oom-*" >/dev/null || compgen -G "$findings/leak-*" >/dev/null; then
    echo "fuzz_$t: findings in $findings"; exit 1
  fi
  if compgen -G "$findings/slow-unit-*" >/dev/null; then echo "fuzz_$t: slow inputs (not failures) kept in $findings"; fi
done
