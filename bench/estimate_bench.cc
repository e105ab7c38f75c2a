#include <benchmark/benchmark.h>
static void BM_Nothing(benchmark::State& st) { for (auto _ : st) benchmark::DoNotOptimize(1); }
BENCHMARK(BM_Nothing);
