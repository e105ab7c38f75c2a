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

// A host sync after every micro-batch (loss.item()): each micro-batch's first
// gathers and last reduce-scatters overlap nothing. Compute-bound: the pass
// grows by m (head + tail); traffic-bound with room for them: unchanged,
// the traffic stream runs on through both ends.
TEST(FsdpOverlap, AHostSyncEachMicrobatchExposesItsFirstGatherAndLastReduceScatter) {
  perf::FsdpPassParts p = Parts(2e-3, 0.0, 1e-3, 80.0 * 8);  // compute 3.84 s, traffic 2.56 s
  p.microbatches = 8;
  p.sync_head_s = 6e-3;
  p.sync_tail_s = 12e-3;
  EXPECT_NEAR(perf::FsdpPassTime(p), p.compute_s + 8 * 18e-3, 1e-12);
  p.traffic_s = 10.0;  // traffic-bound, 10 s against 3.984 s of compute and ends
  EXPECT_DOUBLE_EQ(perf::FsdpPassTime(p), 10.0);
  // A forward-only pass has no reduce-scatters at its end.
  perf::FsdpPassParts f = Parts(2e-3, 0.0, 1e-3, 80.0 * 8);
  f.microbatches = 8;
  f.sync_head_s = 6e-3;
  f.sync_tail_s = 12e-3;
  f.backward = false;
  EXPECT_NEAR(perf::FsdpPassTime(f), f.compute_s + 8 * 6e-3, 1e-12);
}

// CPU-paced forward (c >= g): every layer's gather is already exposed, so the
// head costs only what it exceeds the first layer's gather by; the tail
// lengthens the backward's compute side (here still under its traffic).
TEST(FsdpOverlap, UnderACpuPacedForwardTheHeadCostsOnlyItsExcessOverOneLayersGather) {
  const double g = 2e-3, c = 4e-3, a = 5e-3, units = 80.0 * 4;
  perf::FsdpPassParts p = Parts(g, c, a, units);
  p.microbatches = 4;
  p.sync_head_s = 16e-3;
  p.sync_tail_s = 30e-3;
  const double forward = units * (c + a) + 4 * (16e-3 - a);
  const double backward = std::max({units * 2.0 * g + 4 * 30e-3, units * 3.0 * a, units * c});
  EXPECT_NEAR(perf::FsdpPassTime(p), forward + backward, 1e-12);
}

// Llama-3.1-8B (8.03e9 parameters, 32 layers, vocab 128,256, hidden 4,096)
// under FSDP2 over the 8 H100 of one node (NVLink 450 x 0.82 = 369 GB/s):
// the root holds 2 x 128,256 x 4,096 = 1,050,673,152 parameters, a layer
// (8.03e9 - 1,050,673,152)/32 = 218,103,964. Each end moves 7/8 of
// 1,268,777,116 parameters: head in bf16 7/8 x 2.5376 GB / 369 GB/s =
// 6.0172 ms, tail in fp32 12.0344 ms. Megatron has no such traffic; one
// GPU has no sharding group.
TEST(FsdpOverlap, LlamaEightBOnOneNodeExposesSixAndTwelveMillisecondsAMicrobatch) {
  const Scenario s = test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp"));
  const perf::FsdpMicrobatchEdges e = perf::FsdpSyncEdges(s, 8);
  const double ends = 7.0 / 8.0 * (1050673152.0 + (8.03e9 - 1050673152.0) / 32.0) / 369e9;
  EXPECT_NEAR(e.head_s, 2.0 * ends, 1e-9);
  EXPECT_NEAR(e.head_s, 6.0172e-3, 1e-6);
  EXPECT_NEAR(e.tail_s, 12.0344e-3, 1e-6);
  const Scenario mg = test::Load(Text("llama-3.1-8b", 8, ", train_backend: megatron"));
  EXPECT_EQ(perf::FsdpSyncEdges(mg, 8).head_s, 0.0);
  EXPECT_EQ(perf::FsdpSyncEdges(s, 1).tail_s, 0.0);
  // At TP 8 over 8 nodes the group is the 8 ranks of one shard, over the
  // network, each moving an eighth of the units: 50 x 0.82 = 41 GB/s.
  const Scenario t8 = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp"));
  const double root70 = 2.0 * 128256.0 * 8192.0;
  const double ends70 = 7.0 / 8.0 * (root70 + (70.6e9 - root70) / 80.0) / 8.0 / 41e9;
  EXPECT_NEAR(perf::FsdpSyncEdges(t8, 64).head_s, 2.0 * ends70, 1e-9);
}

}  // namespace
}  // namespace rlcost
