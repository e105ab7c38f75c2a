// Communication a Megatron-Core trainer leaves exposed: its tensor-parallel
// reductions in line with the compute, and the data-parallel gradient sync
// of each optimizer step beyond what one micro-batch hides. docs/model.md,
// "Megatron communication left exposed".
#include <gtest/gtest.h>

#include "perf/megatron_comm.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "packed_run.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(const std::string& model, int gpus, const std::string& placement) {
  return test::PackedRunText(model, gpus, placement);
}

// Llama-3.1-70B (80 layers, hidden 8,192) at TP 4, PP 4 on 64 H100 (dp 4),
// 2,048 x 512 tokens: a TP group runs 262,144 tokens through its 20 layers,
// two ring all-reduces a layer of 262,144 x 8,192 x 2 B = 4.295 GB, each
// moving 2 x 3/4 of it through every GPU at 450 GB/s x 0.82: 40 x 17.46 ms.
TEST(MegatronComm, TensorParallelReductionsWaitInLineWithTheCompute) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4"));
  const double tokens = 2048.0 * 512.0;
  const double bytes = 262144.0 * 8192.0 * 2.0;
  EXPECT_NEAR(perf::MegatronTpCollectiveTime(s, tokens, 64), 40.0 * 1.5 * bytes / 369e9, 1e-9);
  // The bytes follow the tokens.
  EXPECT_NEAR(perf::MegatronTpCollectiveTime(s, 2.0 * tokens, 64), 2.0 * perf::MegatronTpCollectiveTime(s, tokens, 64),
              1e-9);
  // No tensor parallelism, or the DTensor backend (priced apart): nothing.
  Scenario tp1 = test::Load(Text("llama-3.1-70b", 64, ", train_pp: 4"));
  EXPECT_EQ(perf::MegatronTpCollectiveTime(tp1, tokens, 64), 0.0);
  Scenario fsdp = s;
  fsdp.placement.train_backend = TrainBackend::kFsdp;
  EXPECT_EQ(perf::MegatronTpCollectiveTime(fsdp, tokens, 64), 0.0);
}

// The reductions add to the update's engine time, and the pipeline bubble
// stretches them as it stretches the compute.
TEST(MegatronComm, TheUpdateCarriesTheReductions) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4"));
  const double tokens = 2048.0 * 512.0;
  const double comm = perf::MegatronTpCollectiveTime(s, tokens, 64);
  const double flops = perf::TrainStep(s, tokens, 512.0, 64).flops;
  EXPECT_GT(comm, 0.0);
  // Engine time with and without the reductions differs by them, divided
  // by the bubble's share: (m + p - 1)/m, m = 16 micro-batches a
  // mini-batch of 512 x 512 tokens over dp 4 at 4,096.
  const double engine = perf::TrainEngineTime(s, tokens, 512.0, 64, flops, false);
  Scenario no_comm = s;
  no_comm.hardware.gpu.intra_node_gb_per_s = 1e12;  // a link so fast the reductions vanish
  const double engine_free = perf::TrainEngineTime(no_comm, tokens, 512.0, 64, flops, false);
  // (The pipeline's sends go over the network here and do not change.)
  EXPECT_NEAR(engine - engine_free, comm * (16.0 + 3.0) / 16.0, 1e-6);
}

// An MoE layer reduces over the TP group once (its attention block): half a
// dense layer's count at the same tokens and hidden size.
TEST(MegatronComm, AnMoeLayerReducesOnce) {
  Scenario s = test::Load(Text("qwen3-30b-a3b", 64, ", train_tp: 2, train_ep: 8"));
  const double tokens = 2048.0 * 512.0;
  const double dp = 32.0;
  const double bytes = tokens / dp * s.model.hidden * 2.0;
  EXPECT_NEAR(perf::MegatronTpCollectiveTime(s, tokens, 64), s.model.layers * 1.0 * (2.0 * 0.5 * bytes) / 369e9,
              1e-9);
}

// Gradient sync of one optimizer step. Llama-3.1-8B on one node, dp 8: the
// 16.06 GB of bf16 gradients reduce-scatter in 7/8 x 16.06 / 369 = 38 ms,
// under one 4,096-token micro-batch's backward (0.37 s): nothing exposed.
// Llama-3.1-70B at TP 4, PP 4 on 64 (dp 4, the group spans 16 ranks, two
// nodes): 70.6e9 / 16 x 2 B = 8.825 GB a GPU at 50 GB/s x 0.82: 0.1614 s
// each way; a micro-batch runs at the update's MFU, train_mfu 0.425 x
// typical_update_share 0.84 (run.tuning: typical, UpdateMfu), and takes
// 4,096 x 6 x 4.4125e9 / (989e12 x 0.357) = 0.3071 s, its backward 0.2048 s
// hides the reduce-scatter and its forward 0.1024 s hides 0.0591 s less of
// the all-gather than it takes. (At the published 0.425, run.tuning: tuned,
// the micro-batch is 0.84 of that and leaves 0.0754 s exposed.)
TEST(MegatronComm, GradientSyncShowsWhereOneMicroBatchCannotHideIt) {
  Scenario small = test::Load(Text("llama-3.1-8b", 8, ""));
  EXPECT_EQ(perf::MegatronGradSyncExposedTime(small, 512.0, 8), 0.0);
  Scenario big = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4"));
  const double one_way = 0.75 * 70.6e9 / 16.0 * 2.0 / 41e9;
  ASSERT_DOUBLE_EQ(perf::UpdateMfu(big), 0.425 * 0.84);
  const double microbatch = 4096.0 * 6.0 * 70.6e9 / 16.0 / (989e12 * perf::UpdateMfu(big));
  EXPECT_NEAR(perf::MegatronGradSyncExposedTime(big, 512.0, 64), one_way - microbatch / 3.0, 1e-6);
  EXPECT_NEAR(perf::MegatronGradSyncExposedTime(big, 512.0, 64), 0.0591, 1e-4);
  // A tuned trainer's shorter micro-batch hides less: one_way - 0.84 x microbatch / 3.
  Scenario tuned = big;
  tuned.run.tuning = RunTuning::kTuned;
  EXPECT_NEAR(perf::MegatronGradSyncExposedTime(tuned, 512.0, 64), one_way - 0.84 * microbatch / 3.0, 1e-6);
  EXPECT_NEAR(perf::MegatronGradSyncExposedTime(tuned, 512.0, 64), 0.0754, 1e-4);
  // Smaller micro-batches hide less.
  Scenario smaller = big;
  smaller.placement.train_micro_batch_tokens = 1024;
  EXPECT_GT(perf::MegatronGradSyncExposedTime(smaller, 512.0, 64), perf::MegatronGradSyncExposedTime(big, 512.0, 64));
  // One data-parallel rank has nothing to sync.
  EXPECT_EQ(perf::MegatronGradSyncExposedTime(big, 512.0, 16), 0.0);
}

// The update charges the exposed sync once per optimizer step beyond the
// one the measured MFU holds, beside Adam.
TEST(MegatronComm, EachExtraOptimizerStepPaysTheExposedSync) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4"));
  const double tokens = 2048.0 * 512.0;
  const perf::OptimizerStepsCost c = perf::OptimizerStepsOverhead(s, tokens, 512.0, 64);
  Scenario one = s;
  one.algorithm.minibatches = 1;
  const double sync = perf::MegatronGradSyncExposedTime(s, 512.0, 64);
  EXPECT_GT(sync, 0.0);
  EXPECT_NEAR(perf::TrainStep(s, tokens, 512.0, 64).time_s - perf::TrainStep(one, tokens, 512.0, 64).time_s,
              c.flush_s + c.optimizer_s + 3.0 * sync, 1e-9);
}

// Pipeline sends. Llama-3.1-70B at TP 4, PP 4 on 64 H100 (dp 4), 2,048 x
// 512 tokens in 4 mini-batches: 16 micro-batches of 4,096 tokens a rank each,
// 4 x (16 + 3) = 76 slots of the 1F1B schedule, an activation and a
// gradient of 4,096 x 8,192 x 2 B = 67.1 MB each slot, between nodes at
// 50 GB/s x 0.82: 152 x 67.1e6 / 41e9 = 0.2488 s. The forward-only pass: one
// schedule of 64 + 3 slots, one send each: 0.1097 s. No pipeline: none.
TEST(MegatronComm, PipelineStagesWaitForTheirSends) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4"));
  const double tokens = 2048.0 * 512.0;
  const double bytes = 4096.0 * 8192.0 * 2.0;
  EXPECT_NEAR(perf::MegatronPipelineSendTime(s, tokens, 512.0, 64, false), 76.0 * 2.0 * bytes / 41e9, 1e-9);
  EXPECT_NEAR(perf::MegatronPipelineSendTime(s, tokens, 512.0, 64, true), 67.0 * bytes / 41e9, 1e-9);
  Scenario no_pp = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4"));
  EXPECT_EQ(perf::MegatronPipelineSendTime(no_pp, tokens, 512.0, 64, false), 0.0);
  // Inside one node (8 GPUs, TP 2, PP 2, dp 2) the sends go over NVLink.
  Scenario node = test::Load(Text("llama-3.1-8b", 8, ", train_tp: 2, train_pp: 2"));
  const double node_mb = tokens / (2.0 * 4.0 * perf::PassMicrobatches(node, 8, tokens / 4.0, 512.0, false));
  const double node_slots = 4.0 * (perf::PassMicrobatches(node, 8, tokens / 4.0, 512.0, false) + 1.0);
  EXPECT_NEAR(perf::MegatronPipelineSendTime(node, tokens, 512.0, 8, false),
              node_slots * 2.0 * node_mb * node.model.hidden * 2.0 / 369e9, 1e-9);
}

}  // namespace
}  // namespace rlcost
