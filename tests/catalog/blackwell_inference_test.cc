// The Blackwell inference factors of catalog/efficiency.yaml (`b200`, `gb200`:
// decode_bw, decode_compute, prefill_mfu), derived here from the published
// table they come from (docs/model.md, "Efficiency defaults", Blackwell), so
// that a change to the rollout model that moves the derivation fails this
// test instead of leaving the catalog stale.
//
// Source: NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md @
// 00f37686aa854010d68bcbd0f4ab000221541ca6, "Llama 3.3 70B" (total output
// tokens/s at maximum load; B200 and GB200 TP1 FP4, H100 TP2 FP8, the H100
// figure the total of its two GPUs), the six decode-heavy rows, with the
// request counts of the same page's "$num_requests" table. None of these
// rows is a validation case.
//
// Per row: f = (measured / predicted on Blackwell, priced with H100's
// inference efficiencies) / (measured / predicted on H100). The catalog takes
// the middle of the six f, (min + max) / 2, times H100's three inference
// fractions, rounded to three decimals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

struct Row {
  int in, out, requests;
  double b200, gb200, h100_tp2_total;  // output tokens/s, as published
};

constexpr Row kRows[] = {
    {128, 2048, 3000, 9922, 11309, 6651},  {128, 4096, 1500, 6831, 7849, 4199},
    {500, 2000, 3000, 7762, 9028, 5222},   {1000, 1000, 3000, 7007, 7326, 4205},
    {1000, 2000, 1500, 6271, 6513, 4146},  {2048, 2048, 1500, 4783, 5646, 3082},
};

// One engine that only generates: the benchmark's engine gets the whole GPU,
// so the trainer sits on GPUs of its own (a disaggregated run) and takes no
// memory from the KV cache.
std::string RowScenario(const Row& r, const std::string& gpu, int tp, const std::string& precision) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "name: trtllm-llama33-70b-%s-%d-%d\n"
                "model: llama-3.1-70b\n"
                "hardware: {gpu: %s, gpus: %d}\n"
                "placement: {mode: disaggregated, rollout_gpus: %d, train_gpus: 32, engine: trtllm, rollout_tp: %d}\n"
                "environment: {name: fixed-length, prompt_tokens: %d, response_tokens: %d, reward: {type: outcome}}\n"
                "algorithm: {name: ppo, group_size: 1, prompts_per_step: %d, steps: 1}\n"
                "precision: {rollout: %s, kv_cache: fp8, train: bf16}\n",
                gpu.c_str(), r.in, r.out, gpu.c_str(), 32 + tp, tp, tp, r.in, r.out, r.requests, precision.c_str());
  return buf;
}

double PredictedPerGpu(Scenario s) {
  auto e = EstimateAnalytic(s, TextDetail::kNumbers);
  EXPECT_TRUE(e) << (e ? "" : e.error().ToString());
  return e ? e->output_tokens_per_s_per_gpu : 0.0;
}

struct Derived {
  double lo = 1e9, hi = 0;
  double Middle() const { return (lo + hi) / 2; }
};

Derived DeriveFactor(const std::string& gpu, double Row::*measured) {
  const Efficiency& h100 = test::Cat().FindGpu("h100-sxm")->efficiency;
  Derived d;
  for (const Row& r : kRows) {
    const double h100_ratio = (r.h100_tp2_total / 2) / PredictedPerGpu(test::Load(RowScenario(r, "h100-sxm", 2, "fp8")));
    Scenario bw = test::Load(RowScenario(r, gpu, 1, "fp4"));
    bw.hardware.gpu.efficiency.decode_bw = h100.decode_bw;
    bw.hardware.gpu.efficiency.decode_compute = h100.decode_compute;
    bw.hardware.gpu.efficiency.prefill_mfu = h100.prefill_mfu;
    const double f = (r.*measured / PredictedPerGpu(bw)) / h100_ratio;
    d.lo = std::min(d.lo, f);
    d.hi = std::max(d.hi, f);
  }
  return d;
}

double Round3(double x) { return std::round(x * 1000) / 1000; }

void ExpectCatalogMatches(const std::string& gpu, double Row::*measured) {
  const Derived d = DeriveFactor(gpu, measured);
  // A factor, not a replacement: Blackwell's stack reaches a share of
  // H100's, within the range such tables show.
  EXPECT_GT(d.lo, 0.4) << gpu;
  EXPECT_LT(d.hi, 1.3) << gpu;
  const Efficiency& h100 = test::Cat().FindGpu("h100-sxm")->efficiency;
  const Efficiency& cat = test::Cat().FindGpu(gpu)->efficiency;
  const double f = d.Middle();
  char msg[512];
  std::snprintf(msg, sizeof msg,
                "%s: the derivation gives f = %.3f (rows %.3f..%.3f), so decode_bw %.3f, decode_compute %.3f, "
                "prefill_mfu %.3f; update catalog/efficiency.yaml (and docs/model.md, Blackwell)",
                gpu.c_str(), f, d.lo, d.hi, Round3(h100.decode_bw * f), Round3(h100.decode_compute * f),
                Round3(h100.prefill_mfu * f));
  EXPECT_NEAR(cat.decode_bw, Round3(h100.decode_bw * f), 0.0015) << msg;
  EXPECT_NEAR(cat.decode_compute, Round3(h100.decode_compute * f), 0.0015) << msg;
  EXPECT_NEAR(cat.prefill_mfu, Round3(h100.prefill_mfu * f), 0.0015) << msg;
}

TEST(BlackwellInference, B200FactorIsTheTablesDerivation) { ExpectCatalogMatches("b200", &Row::b200); }

TEST(BlackwellInference, Gb200FactorIsTheTablesDerivation) { ExpectCatalogMatches("gb200", &Row::gb200); }

}  // namespace
}  // namespace rlcost
