// The update's MFU and the refit offload's way out (src/perf/update_mfu.cc):
// run.tuning picks the published MFU (tuned) or the share of it a typical RL
// run reaches (typical, the default; catalog efficiency.typical_update_share);
// the way out into pageable host memory is 1 / pageable_copy_s_per_gb.
// docs/model.md, "Named fits". Worked by hand on the builtin catalog's
// h100-sxm row (catalog/efficiency.yaml, default): train_mfu 0.425,
// train_mfu_moe 0.224, typical_update_share 0.84, pageable_copy_s_per_gb 0.4.
#include <gtest/gtest.h>

#include <string>

#include "rlcost/catalog.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// Llama-3.1-8B (dense) or Qwen3-30B-A3B (MoE) on one node of H100, no
// layout: data parallel only, no pipeline, no tensor parallelism.
std::string Text(const std::string& model, const std::string& run = "") {
  return "model: " + model + "\nhardware: {gpu: h100-sxm, gpus: 8, gpus_per_node: 8}\n" + run;
}

TEST(UpdateMfu, TypicalIsTheSharedFitOfThePublishedMfuAndTunedThePublishedMfuItself) {
  Scenario dense = test::Load(Text("llama-3.1-8b"));
  Scenario moe = test::Load(Text("qwen3-30b-a3b"));
  ASSERT_FALSE(dense.model.is_moe());
  ASSERT_TRUE(moe.model.is_moe());
  // Typical unless the scenario says otherwise.
  EXPECT_EQ(dense.run.tuning, RunTuning::kTypical);
  EXPECT_DOUBLE_EQ(perf::UpdateMfu(dense), 0.425 * 0.84);  // 0.357
  EXPECT_DOUBLE_EQ(perf::UpdateMfu(moe), 0.224 * 0.84);    // 0.18816
  // run.tuning: tuned, as a scenario writes it: the published MFUs.
  Scenario dense_tuned = test::Load(Text("llama-3.1-8b", "run: {tuning: tuned}\n"));
  Scenario moe_tuned = test::Load(Text("qwen3-30b-a3b", "run: {tuning: tuned}\n"));
  EXPECT_EQ(dense_tuned.run.tuning, RunTuning::kTuned);
  EXPECT_DOUBLE_EQ(perf::UpdateMfu(dense_tuned), 0.425);
  EXPECT_DOUBLE_EQ(perf::UpdateMfu(moe_tuned), 0.224);
  // Stated as typical: the default.
  EXPECT_DOUBLE_EQ(perf::UpdateMfu(test::Load(Text("llama-3.1-8b", "run: {tuning: typical}\n"))),
                   perf::UpdateMfu(dense));
  // A GpuSpec built in C++ (Efficiency's struct defaults) keeps the
  // published figure under either tuning: its typical_update_share is 1.
  Scenario bare = dense;
  bare.hardware.gpu.efficiency = Efficiency{};
  EXPECT_DOUBLE_EQ(perf::UpdateMfu(bare), Efficiency{}.train_mfu);
}

// Dense, no pipeline, no tensor parallelism, bf16: the update's engine time is
// flops / (peak x UpdateMfu) alone, so tuned and typical differ by 1 / 0.84
// exactly; the forward-only pass runs at logprob_mfu under both.
TEST(UpdateMfu, ADenseUpdateTakesOneOverTheShareLongerWhenTypical) {
  Scenario typical = test::Load(Text("llama-3.1-8b"));
  Scenario tuned = typical;
  tuned.run.tuning = RunTuning::kTuned;
  const double tokens = 256.0 * 1024.0;
  // 6 x 8.03e9 x 262,144 / 8 GPUs = 1.5788e15 FLOPs a GPU (linear layers).
  const double flops = 6.0 * 8.03e9 * tokens / 8.0;
  const double t_typical = perf::TrainEngineTime(typical, tokens, 1024.0, 8, flops, /*forward_only=*/false);
  const double t_tuned = perf::TrainEngineTime(tuned, tokens, 1024.0, 8, flops, /*forward_only=*/false);
  EXPECT_NEAR(t_typical / t_tuned, 1.0 / 0.84, 1e-12);
  // By hand: 1.5788e15 / (989e12 x 0.425) = 3.7561 s tuned, / 0.84 = 4.4715 s typical.
  EXPECT_NEAR(t_tuned, flops / (989e12 * 0.425), 1e-9);
  EXPECT_NEAR(t_typical, 4.4715, 1e-3);
  EXPECT_DOUBLE_EQ(perf::TrainEngineTime(typical, tokens, 1024.0, 8, flops / 3.0, /*forward_only=*/true),
                   perf::TrainEngineTime(tuned, tokens, 1024.0, 8, flops / 3.0, /*forward_only=*/true));
  // The whole update follows (no term of this layout is left out of the scaling
  // but the Adam steps', which the MFU does not touch).
  EXPECT_GT(perf::TrainStep(typical, tokens, 1024.0, 8).time_s, perf::TrainStep(tuned, tokens, 1024.0, 8).time_s);
}

TEST(UpdateMfu, ThePageableWayOutIsTheCatalogFitOrIssue3976sMeasurement) {
  Scenario s = test::Load(Text("llama-3.1-8b"));
  // The catalog: 0.4 s/GB, 2.5 GB/s.
  EXPECT_NEAR(perf::PageableCopyGbPerS(s), 2.5, 1e-12);
  // A default-constructed Efficiency: NVIDIA-NeMo/RL issue #3976's 4.94 GB in
  // 3.76 s, 1.3138 GB/s (perf::kPageableCopyGbPerS).
  Scenario bare = s;
  bare.hardware.gpu.efficiency = Efficiency{};
  EXPECT_NEAR(perf::PageableCopyGbPerS(bare), 4.94 / 3.76, 1e-12);
  EXPECT_NEAR(perf::PageableCopyGbPerS(bare), perf::kPageableCopyGbPerS, 1e-12);
  // Unset (0) reads as the measurement too, not as an infinite rate.
  bare.hardware.gpu.efficiency.pageable_copy_s_per_gb = 0;
  EXPECT_DOUBLE_EQ(perf::PageableCopyGbPerS(bare), perf::kPageableCopyGbPerS);
}

TEST(UpdateMfu, AnUnknownTuningNamesTheFieldAndTheAcceptedNames) {
  auto r = LoadScenarioText(Text("llama-3.1-8b", "run: {tuning: bogus}\n"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(r.has_value());
  const std::string msg = r.error().ToString();
  EXPECT_NE(msg.find("run.tuning"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bogus"), std::string::npos) << msg;
  EXPECT_NE(msg.find("typical | tuned"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rlcost
