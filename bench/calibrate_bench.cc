// `rlcost calibrate` on a long log: parse the JSON lines, extract the phases,
// fit the efficiency factors. Reported as log lines per second.
// Goal (#27 item 5): at least 10^5 lines/s, so that a 1 GiB log (the
// documented limit, ~4 million lines) calibrates in under a minute. It was
// ~45 lines/s (22 ms per logged step: the fit re-ran a whole estimate, notes
// and signal included, for every step at every trial value).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "fit/calibrate.h"
#include "ingest/training_log.h"
#include "rlcost/scenario.h"

namespace {

const rlcost::Scenario& NemoScenario() {
  static const rlcost::Scenario s = [] {
    auto cat = rlcost::Catalog::Builtin();
    if (!cat) std::abort();
    auto sc = rlcost::LoadScenarioFile(RLCOST_SOURCE_DIR "/tests/data/logs/nemo_llama8b_16xh100.scenario.yaml", *cat);
    if (!sc) std::abort();
    return *sc;
  }();
  return s;
}

// A NeMo RL-shaped JSONL log of `n` steps whose lengths drift as a real run's
// do (a response mean rising from ~850 to ~1300 tokens, a prompt mean
// wobbling around 120), with its phase times.
std::string SyntheticLog(int n) {
  std::string text;
  for (int i = 1; i <= n; ++i) {
    const double prompt = 120 + 8 * std::sin(i * 0.37);
    const double gen = 850 + 450.0 * i / n + 20 * std::sin(i * 1.3);
    const double generation = 0.06 * gen, logprob = 0.009 * (prompt + gen), train = 0.015 * (prompt + gen);
    text += fmt::format(
        "{{\"step\": {}, \"timing/train/total_step_time\": {:.3f}, \"timing/train/generation\": {:.3f}, "
        "\"timing/train/policy_and_reference_logprobs\": {:.3f}, \"timing/train/policy_training\": {:.3f}, "
        "\"train/mean_prompt_length\": {:.1f}, \"train/mean_gen_tokens_per_sample\": {:.1f}}}\n",
        i, generation + logprob + train + 3, generation, logprob, train, prompt, gen);
  }
  return text;
}

// exact_up_to: logs up to this many steps are fitted step by step (the method
// before the length grid: each step estimated at every trial value).
void Calibrate(benchmark::State& state, size_t exact_up_to) {
  const int n = static_cast<int>(state.range(0));
  const std::string text = SyntheticLog(n);
  for (auto _ : state) {
    auto log = rlcost::calib::ParseTrainingLogText(text, "bench.jsonl");
    if (!log) std::abort();
    auto steps = rlcost::calib::ExtractPhases(*log);
    if (!steps) std::abort();
    auto fit = rlcost::calib::FitCalibration(NemoScenario(), *steps, "bench.jsonl", exact_up_to);
    if (!fit) std::abort();
    benchmark::DoNotOptimize(fit);
  }
  state.SetItemsProcessed(state.iterations() * n);  // log lines per second
}
void BM_CalibrateJsonlLog(benchmark::State& state) { Calibrate(state, rlcost::calib::kExactFitSteps); }
BENCHMARK(BM_CalibrateJsonlLog)->Arg(100)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
// The step-by-step fit, for comparison (what a 100-line log cost before).
void BM_CalibrateJsonlLogStepByStep(benchmark::State& state) { Calibrate(state, SIZE_MAX); }
BENCHMARK(BM_CalibrateJsonlLogStepByStep)->Arg(100)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
