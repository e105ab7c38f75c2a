// `rlcost forecast` on a long log: a 1,000,000-line CSV (step, val_acc,
// step_time_s; 20 MB of text) read and forecast. Goal: well under a second a
// forecast and a peak resident set under 100 MB for the whole process: the
// reader streams the CSV and keeps 16 bytes a point and 20 a timed step, not
// the text (issue 39; run `/usr/bin/time -v build/release/rlcost_bench
// --benchmark_filter=Forecast` for the peak, also reported as the counter
// peak_rss_mb).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "forecast/forecast.h"

namespace {

// A sigmoid run from 0.2 to 0.6 with noise of 0.01, its midpoint at step
// 200,000, one line a step.
const std::string& MillionLineCsv() {
  static const std::string path = [] {
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("rlcost_forecast_bench_" + std::to_string(::getpid()) + ".csv"))
                              .string();
    std::ofstream out(p);
    out << "step,val_acc,step_time_s\n";
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0.0, 0.01);
    char line[96];
    for (int step = 1; step <= 1'000'000; ++step) {
      const double v = 0.2 + 0.4 / (1.0 + std::pow(200000.0 / step, 1.5)) + noise(rng);
      std::snprintf(line, sizeof line, "%d,%.4f,%.2f\n", step, v, 30.0 + 0.001 * (step % 100));
      out << line;
    }
    std::atexit([] { std::filesystem::remove(MillionLineCsv()); });
    return p;
  }();
  return path;
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

void BM_ForecastMillionLineCsv(benchmark::State& state) {
  const std::string& path = MillionLineCsv();
  for (auto _ : state) {
    auto s = rlcost::forecast::ReadProgressFile(path, {.metric = "val_acc", .gpus = 8});
    if (!s) {
      state.SkipWithError(s.error().ToString().c_str());
      return;
    }
    auto r = rlcost::forecast::Forecast(*s, {.target = 0.55});
    benchmark::DoNotOptimize(r);
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_ForecastMillionLineCsv)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReadMillionLineCsv(benchmark::State& state) {
  const std::string& path = MillionLineCsv();
  for (auto _ : state) {
    auto s = rlcost::forecast::ReadProgressFile(path, {.metric = "val_acc", .gpus = 8});
    benchmark::DoNotOptimize(s);
  }
  state.counters["peak_rss_mb"] = PeakRssMb();
}
BENCHMARK(BM_ReadMillionLineCsv)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
