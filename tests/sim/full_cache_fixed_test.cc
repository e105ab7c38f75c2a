// FullCacheFixed (src/sim/analytic_rollout.cc): the full, preempting KV
// cache's fluid model for fixed lengths with its running sums kept up to date
// (O(1) per event). At FullCache's own resolution it must give FullCache's
// figures to rounding; at its default, coarser resolution (docs/model.md, "A
// full, preempting KV cache") within 1% of them.
#include <array>
#include <cmath>
#include <bit>
#include <cstdint>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "sim/analytic_rollout.h"
#include "support.h"

namespace rlcost::sim::analytic_internal {
namespace {

perf::EngineConfig Engine(const std::string& gpu, const std::string& extra, Scenario& keep) {
  const std::string text = "model: llama-3.1-8b\nhardware: {gpu: " + gpu + R"(, gpus: 1}
environment: {prompt_tokens: 1000, response_tokens: 1000}
algorithm: {name: ppo, group_size: 1, prompts_per_step: 64, steps: 1}
)" + extra;
  auto s = LoadScenarioText(text, test::Cat(), "fixed.yaml");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  keep = s ? *s : Scenario{};
  return perf::RolloutEngine(keep);
}

struct Case {
  std::string gpu, extra;
  double n, p, L, kv;
};
// Caches far below the batch (hundreds of waves), just below it, and an
// engine whose max_num_seqs caps the running set before the cache does.
const Case kCases[] = {
    {"h100-sxm", "", 4096, 1000, 1000, 300000},
    {"a100-80g", "", 8192, 1000, 1000, 420000},
    {"h100-sxm", "", 1000, 200, 3000, 2500000},
    {"h100-sxm", "engine: {max_num_seqs: 64}\n", 2000, 500, 1500, 600000},
};

double Rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-300); }

TEST(FullCacheFixed, AtFullCachesResolutionGivesItsFiguresToRounding) {
  for (const Case& c : kCases) {
    Scenario s;
    const perf::EngineConfig e = Engine(c.gpu, c.extra, s);
    std::array<double, kMaxSlices> len{};
    len[0] = c.L;
    std::array<double, kMaxSlices> alive{};
    EqualAlive(1, alive);
    const RolloutResult ref = FullCache(e, c.n, c.p, len, alive, 1, c.kv, false);
    const RolloutResult got = FullCacheFixed(e, c.n, c.p, c.L, c.kv, kFineFixedResolution);
    SCOPED_TRACE(c.gpu + " n=" + std::to_string(c.n));
    EXPECT_LT(Rel(got.time_s, ref.time_s), 1e-9);
    EXPECT_LT(Rel(got.flops, ref.flops), 1e-9);
    EXPECT_LT(Rel(got.mean_batch, ref.mean_batch), 1e-9);
    EXPECT_LT(Rel(got.decode_tokens, ref.decode_tokens), 1e-9);
    EXPECT_LT(Rel(got.prefill_tokens, ref.prefill_tokens), 1e-9);
  }
}

TEST(FullCacheFixed, DefaultResolutionWithinOnePercentAndEveryTokenDecodedOnce) {
  for (const Case& c : kCases) {
    Scenario s;
    const perf::EngineConfig e = Engine(c.gpu, c.extra, s);
    const RolloutResult fine = FullCacheFixed(e, c.n, c.p, c.L, c.kv, kFineFixedResolution);
    const RolloutResult got = FullCacheFixed(e, c.n, c.p, c.L, c.kv);
    SCOPED_TRACE(c.gpu + " n=" + std::to_string(c.n));
    EXPECT_LT(Rel(got.time_s, fine.time_s), 0.01);
    // By hand: each of the n sequences decodes its L tokens once, and the
    // prompts are prefilled at least once (resumed ones again).
    EXPECT_LT(Rel(got.decode_tokens, c.n * c.L), 1e-9);
    EXPECT_GE(got.prefill_tokens, c.n * c.p);
    // The cache is below the batch: sequences were preempted and recomputed.
    if (c.extra.empty()) EXPECT_GT(got.prefill_tokens, c.n * c.p);
  }
}

// FullCacheFixed keeps its cohort buffers from one run to the next on a
// thread and fills neither (issue 41, fifth pass of one-GPU planning): a
// cohort's age is zeroed when the boundary first reaches it. A run after
// others (each leaving every age it reached at L, and preempted cohorts' ages
// in between) must give the bits of the same run on a fresh thread.
TEST(FullCacheFixed, BuffersLeftByEarlierRunsChangeNoBit) {
  auto bits = [](const RolloutResult& r) {
    return std::array<uint64_t, 5>{std::bit_cast<uint64_t>(r.time_s), std::bit_cast<uint64_t>(r.flops),
                                   std::bit_cast<uint64_t>(r.mean_batch), std::bit_cast<uint64_t>(r.decode_tokens),
                                   std::bit_cast<uint64_t>(r.prefill_tokens)};
  };
  int preempting = 0;
  for (const Case& c : kCases) {
    Scenario s;
    const perf::EngineConfig e = Engine(c.gpu, c.extra, s);
    for (const FixedResolution& res : {FixedResolution{}, kFineFixedResolution}) {
      RolloutResult fresh;
      std::thread([&] { fresh = FullCacheFixed(e, c.n, c.p, c.L, c.kv, res); }).join();
      // Earlier runs on this thread: every case at the fine resolution (up to
      // 4,096 cohorts, preempting), then this one twice.
      for (const Case& o : kCases) {
        Scenario so;
        const perf::EngineConfig eo = Engine(o.gpu, o.extra, so);
        FullCacheFixed(eo, o.n, o.p, o.L, o.kv, kFineFixedResolution);
      }
      const RolloutResult again = FullCacheFixed(e, c.n, c.p, c.L, c.kv, res);
      const RolloutResult third = FullCacheFixed(e, c.n, c.p, c.L, c.kv, res);
      SCOPED_TRACE(c.gpu + " n=" + std::to_string(c.n) + " cohorts<=" + std::to_string(res.max_cohorts));
      EXPECT_EQ(bits(again), bits(fresh));
      EXPECT_EQ(bits(third), bits(fresh));
      // Resumed cohorts are prefilled again: where a case preempts, the ages
      // read at admission are the ones that matter.
      if (fresh.prefill_tokens > c.n * c.p) ++preempting;
    }
  }
  EXPECT_GE(preempting, 4);
}

}  // namespace
}  // namespace rlcost::sim::analytic_internal
