#!/usr/bin/env bash
# Runs every libFuzzer target of build/fuzz for SECONDS each (default 60) on a
# seed corpus of the shipped and shared files; crashes land in
# build/fuzz/findings/<target>/ (keep each as a regression input under
# fuzz/regressions/<target>/). Usage: fuzz/run.sh [SECONDS] [target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"; shift || true
targets=("$@"); ((${#targets[@]})) || targets=(scenario overrides catalog log)
bin=build/fuzz/fuzz
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t; findings=build/fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  case $t in
    scenario) cp -n ../shared/scenarios/*.yaml ../shared/validation/*.yaml scenarios/*.yaml "$corpus"/ 2>/dev/null || true ;;
    catalog) cp -n catalog/*.yaml "$corpus"/ ;;
    log) cp -n tests/data/logs/*.log tests/data/logs/*.jsonl "$corpus"/ ;;
    overrides) printf 'model=qwen3-32b\nalgorithm.group_size=8\n' >"$corpus/a"
               printf 'environment.response_tokens={mean: 500, cv: 1}\npipeline.mode=async\n' >"$corpus/b"
               printf 'hardware={gpu: b200, gpus: 16}\nplacement.mode=disaggregated\n' >"$corpus/c" ;;
  esac
  # Regression inputs first: each once crashed and must not again.
  if [[ -d fuzz/regressions/$t ]]; then "$bin/fuzz_$t" -timeout=20 fuzz/regressions/$t/* >/dev/null 2>&1 || { echo "fuzz_$t: a regression input fails"; exit 1; }; fi
  echo "fuzz_$t: ${secs}s"
  "$bin/fuzz_$t" "$corpus" -max_total_time="$secs" -rss_limit_mb=4096 -timeout=20 -max_len=65536 \
      -artifact_prefix="$findings/" -print_final_stats=1 2>&1 | grep -E "^stat::number_of_executed_units|^stat::peak_rss|ERROR|SUMMARY" || true
  if compgen -G "$findings/*" >/dev/null; then echo "fuzz_$t: findings in $findings"; exit 1; fi
done
