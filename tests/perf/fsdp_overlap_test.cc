// FSDP2's forward all-gather is issued when the CPU reaches the layer; under
// DTensor tensor parallel the CPU's per-op dispatch paces the forward and
// the gather runs after the layer instead of under it. The backward
// prefetches explicitly and keeps its overlap. docs/model.md, "DTensor
// dispatch paces the forward".
#include <gtest/gtest.h>

#include <algorithm>

#include "perf/fsdp_overlap.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "packed_run.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(const std::string& model, int gpus, const std::string& placement) {
  return test::PackedRunText(model, gpus, placement);
}

perf::FsdpPassParts Parts(double g, double c, double a, double units) {
  perf::FsdpPassParts p;
  p.units = units;
  p.compute_forward_s = g * units;
  p.compute_s = 3.0 * g * units;
  p.cpu_forward_s = c * units;
  p.traffic_forward_s = a * units;
  p.traffic_s = 4.0 * a * units;
  return p;
}

// Without CPU time the pass takes the longer of compute and traffic, as
// before; no units, the same.
TEST(FsdpOverlap, ACpuThatRunsAheadHidesTheShorterOfComputeAndTraffic) {
  perf::FsdpPassParts p = Parts(1.0, 0.0, 2.0, 10.0);
  EXPECT_DOUBLE_EQ(perf::FsdpPassTime(p), std::max(p.compute_s, p.traffic_s));
  p.units = 0;
  p.cpu_forward_s = 5.0;
  EXPECT_DOUBLE_EQ(perf::FsdpPassTime(p), std::max(p.compute_s, p.traffic_s));
}

// CPU-bound forward (c >= g): each layer's gather starts when the CPU
// reaches the layer, after the GPU has caught up, so it adds in full; the
// backward overlaps (compute 2g a unit, traffic 3a, CPU c: the longest).
TEST(FsdpOverlap, ACpuBoundForwardExposesEveryGather) {
  const double g = 2e-3, c = 4e-3, a = 5e-3, units = 80.0;
  const perf::FsdpPassParts p = Parts(g, c, a, units);
  const double forward = units * (c + a);
  const double backward = units * std::max({2.0 * g, 3.0 * a, c});
  EXPECT_NEAR(perf::FsdpPassTime(p), forward + backward, 1e-12);
  perf::FsdpPassParts f = p;
  f.backward = false;
  EXPECT_NEAR(perf::FsdpPassTime(f), forward, 1e-12);
}

// The GPU lags the CPU by g - c a layer: that much of the gather hides, and
// all of it once g - c >= a.
TEST(FsdpOverlap, TheGpusLeadOverTheCpuHidesThatMuchOfTheGather) {
  perf::FsdpPassParts p = Parts(6e-3, 4e-3, 5e-3, 10.0);
  p.backward = false;
  EXPECT_NEAR(perf::FsdpPassTime(p), 10.0 * (6e-3 + 3e-3), 1e-12);
  p = Parts(10e-3, 4e-3, 5e-3, 10.0);
  p.backward = false;
  EXPECT_NEAR(perf::FsdpPassTime(p), 10.0 * 10e-3, 1e-12);
}

// 44 DTensor dispatches a layer (two RMSNorms of 8 ops, seven projections of
// 4) at 90 us each: 3.96 ms. Only DTensor tensor parallel dispatches through
// DTensor; FSDP2 alone computes on plain tensors and Megatron has neither.
TEST(FsdpOverlap, DtensorTensorParallelDispatchesFortyFourOpsALayer) {
  EXPECT_NEAR(perf::DtensorLayerForwardCpuTime(test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, "
                                                                                   "train_backend: fsdp"))),
              3.96e-3, 1e-12);
  EXPECT_EQ(perf::DtensorLayerForwardCpuTime(test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp"))), 0.0);
  EXPECT_EQ(perf::DtensorLayerForwardCpuTime(
                test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: megatron"))),
            0.0);
}

// Llama-3.1-70B at TP 8 on 64 H100 (FSDP over 8 nodes, one rank each),
// 2,048 x 512 tokens: the forward-only pass is CPU-bound (3.96 ms a layer
// against well under that of compute), so each micro-batch runs 80 x
// (3.96 ms + the layer's gather). The update's forward likewise, its
// backward held to its traffic.
TEST(FsdpOverlap, LlamaSeventyBAtTpEightPaysItsForwardGathersInFull) {
  const Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp"));
  const double tokens = 2048.0 * 512.0;
  const double mbs = perf::FsdpPassMicrobatches(s, tokens, 512.0, 64, /*forward_only=*/true);
  // 1,048,576 tokens of fixed-length sequences in 256 packs of 4,096 (logprob
  // budget: the update's), dealt to 8 ranks: ceil(256 / 8) = 32 every step.
  EXPECT_DOUBLE_EQ(mbs, 32.0);
  const double gather = perf::FsdpTrafficTime(s, tokens, 512.0, 64, /*forward_only=*/true);
  const double units = mbs * 80.0;
  EXPECT_NEAR(perf::ForwardPass(s, tokens, 512.0, 64).time_s, units * 3.96e-3 + gather, 1e-9);
  // Against the rule before (the longer of compute and traffic): the whole
  // CPU time is added, the gather no longer hides anything.
  EXPECT_GT(perf::ForwardPass(s, tokens, 512.0, 64).time_s, gather + 0.99 * units * 3.96e-3);
  // TP 1 on one node (FSDP2 without DTensor ops): unchanged rule.
  const Scenario t1 = test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp"));
  const perf::Work w = perf::ForwardPass(t1, tokens, 512.0, 8);
  EXPECT_GE(w.time_s, perf::FsdpTrafficTime(t1, tokens, 512.0, 8, true));
}

}  // namespace
}  // namespace rlcost
