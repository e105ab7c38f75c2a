// perf::PrefillMaker (src/perf/prefill_maker.h): perf::Prefill with its
// engine-only factors computed once, for the event simulator's prefill
// chunks. It must give perf::Prefill's bits exactly (the simulator's output
// is byte-identical with either), on dense and MoE models, tensor parallel
// or not, LoRA or not, at the chunk lengths and contexts a run meets.
#include <bit>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "perf/prefill_maker.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost::perf {
namespace {

uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

TEST(PrefillMaker, SameBitsAsPrefill) {
  const std::string engines[] = {
      "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n",
      "model: llama-3.1-8b\nhardware: {gpu: a100-80g, gpus: 8}\nplacement: {rollout_tp: 2}\n",
      "model: qwen3-30b-a3b\nhardware: {gpu: h100-sxm, gpus: 8}\nplacement: {rollout_tp: 4}\n",
      "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nalgorithm: {lora: {rank: 16}}\n",
  };
  int checked = 0;
  for (const std::string& head : engines) {
    auto s = LoadScenarioText(head + "environment: {prompt_tokens: 1000, response_tokens: 1000}\n", test::Cat(),
                              "prefill.yaml");
    ASSERT_TRUE(s) << head << (s ? "" : s.error().ToString());
    const EngineConfig e = RolloutEngine(*s);
    const PrefillMaker make(e);
    for (double tokens : {0.0, 1.0, 7.0, 333.0, 2048.0, 8192.0, 12345.0}) {
      for (double ctx : {0.0, 1.0, 999.0, 31337.0, 130000.0}) {
        for (double seqs : {1.0, 0.5, 3.0, 64.0}) {
          const Work a = Prefill(e, tokens, ctx, seqs), b = make(tokens, ctx, seqs);
          EXPECT_EQ(Bits(a.time_s), Bits(b.time_s)) << head << tokens << " " << ctx << " " << seqs;
          EXPECT_EQ(Bits(a.flops), Bits(b.flops)) << head << tokens << " " << ctx << " " << seqs;
          EXPECT_EQ(Bits(a.bytes), Bits(b.bytes)) << head << tokens << " " << ctx << " " << seqs;
          EXPECT_EQ(a.compute_bound, b.compute_bound);
          ++checked;
        }
      }
      EXPECT_GT(make(tokens, 0).time_s, tokens > 0 ? 0.0 : -1.0);
    }
  }
  EXPECT_EQ(checked, 4 * 7 * 5 * 4);
}

}  // namespace
}  // namespace rlcost::perf
