// The NVLink domain (docs/model.md, "NVLink domain"): GPUs joined by NVLink,
// hardware.nvlink_domain or max(gpus_per_node, the catalog GPU's
// nvlink_domain). Numbers worked out by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "rlcost/catalog.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost::perf {
namespace {

using test::Cat;
using test::Load;

// Qwen3-30B-A3B on 16 GB200 in compute trays of 4 (NeMo RL's 4n4g recipes).
std::string Gb200(const std::string& extra_hw, const std::string& placement) {
  return "model: qwen3-30b-a3b\nhardware: {gpu: gb200, gpus: 16, gpus_per_node: 4" + extra_hw +
         "}\nplacement: {" + placement + "}\n";
}

TEST(NvlinkDomain, NodeOrRackWhicheverIsLarger) {
  // H100 HGX: 8 a node, catalog 8 -> 8. GB200: 4 a tray, catalog 72 -> 72.
  EXPECT_EQ(NvlinkDomainGpus(Load("model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 16}\n").hardware), 8);
  EXPECT_EQ(NvlinkDomainGpus(Load(Gb200("", "")).hardware), 72);
  // Stated: taken as written (a 4-GPU HGX board, a partial rack).
  EXPECT_EQ(NvlinkDomainGpus(Load(Gb200(", nvlink_domain: 4", "")).hardware), 4);
  EXPECT_EQ(NvlinkDomainGpus(
                Load("model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8, gpus_per_node: 4, nvlink_domain: 4}\n")
                    .hardware),
            4);
}

TEST(NvlinkDomain, Gb200ExpertAllToAllStaysOnNvlinkAcrossTrays) {
  // Qwen3-30B-A3B (k 8, h 2048, 48 layers), EP 16 on 16 GB200, forward pass
  // (2 all-to-alls) of 65,536 tokens: per GPU 65,536 * 8 * 2048 * 2 B * 48 /
  // 16 * 2 = 1.2885e10 B.
  const double bytes = 65536.0 * 8 * 2048 * 2.0 * 48 / 16 * 2;
  // NVL72: all 16 ranks in one domain, 15/16 of the bytes over 900 GB/s NVLink
  // = 0.01342 s.
  auto nvl72 = Load(Gb200("", "train_ep: 16"));
  EXPECT_NEAR(ExpertAllToAllTime(nvl72, 65536, 16, 2), bytes * 15.0 / 16.0 / 900e9, 1e-12);
  // Trays taken as the domain (the old reading): 12/16 over the 50 GB/s NIC
  // = 0.1933 s, 14x longer.
  auto trays = Load(Gb200(", nvlink_domain: 4", "train_ep: 16"));
  EXPECT_NEAR(ExpertAllToAllTime(trays, 65536, 16, 2), bytes * 12.0 / 16.0 / 50e9, 1e-12);
}

TEST(NvlinkDomain, Gb200WeightSyncRingStaysOnNvlink) {
  // Disaggregated 8 + 8: the broadcast ring spans 16 GPUs, 4 trays. Inside
  // NVL72 it runs at 900 GB/s, with trays as the domain at the 50 GB/s NIC:
  // the same bytes take 900 / 50 = 18x longer (the sync efficiency is the
  // same factor on both).
  const std::string p = "mode: disaggregated, rollout_gpus: 8, train_gpus: 8";
  WeightSyncParts nvl72 = WeightSync(Load(Gb200("", p)));
  WeightSyncParts trays = WeightSync(Load(Gb200(", nvlink_domain: 4", p)));
  ASSERT_GT(nvl72.transfer_s, 0.0);
  EXPECT_NEAR(trays.transfer_s / nvl72.transfer_s, 900.0 / 50.0, 1e-9);
  // H100 nodes of 8 (domain 8): a 16-GPU ring leaves the node either way.
  auto h100 = Load(
      "model: qwen3-30b-a3b\nhardware: {gpu: h100-sxm, gpus: 16}\nplacement: {" + p + "}\n");
  const GpuSpec& g = h100.hardware.gpu;
  EXPECT_NEAR(WeightSync(h100).transfer_s,
              WeightBytes(h100.model, Precision::kBf16) / (g.inter_node_gb_per_s * 1e9 * g.efficiency.weight_sync_eff),
              1e-9);
}

TEST(NvlinkDomain, SmallestDomainPartOfGroupsInRankOrder) {
  // Groups of g consecutive ranks over n GPUs, domains of d filled in rank
  // order: a boundary at m d inside a group leaves (m d) mod g ranks on one
  // side. 128 GB200 (d 72): the 32-GPU group at 64-95 has 72 - 64 = 8 in the
  // first rack; the 16-GPU group at 64-79 has 8 and 8; pairs never straddle
  // (72 is even). 64 GPUs hold no boundary. 256 GPUs, g 32: boundaries 72
  // (8 | 24), 144 (16 | 16), 216 (24 | 8) -> 8. A group larger than the
  // domain: the domain (H100 nodes of 8, EP 16 -> 8).
  EXPECT_EQ(SmallestDomainPart(32, 128, 72), 8);
  EXPECT_EQ(SmallestDomainPart(16, 128, 72), 8);
  EXPECT_EQ(SmallestDomainPart(2, 128, 72), 2);
  EXPECT_EQ(SmallestDomainPart(32, 64, 72), 32);
  EXPECT_EQ(SmallestDomainPart(32, 256, 72), 8);
  EXPECT_EQ(SmallestDomainPart(16, 144, 72), 8);
  EXPECT_EQ(SmallestDomainPart(8, 144, 72), 8);
  EXPECT_EQ(SmallestDomainPart(16, 64, 8), 8);
  EXPECT_EQ(SmallestDomainPart(8, 64, 8), 8);
  EXPECT_EQ(SmallestDomainPart(32, 128, 64), 32);
}

TEST(NvlinkDomain, Gb200GroupAcrossTwoRacksRunsOverTheNetwork) {
  // Qwen3-235B-A22B on 128 GB200 (NeMo RL v0.6's 32n4g recipe: colocated,
  // Megatron TP 2, CP 2, PP 4, EP 16). The export's expert all-gather runs
  // over tp x ep = 32 consecutive ranks; the group at ranks 64-95 straddles
  // the first rack's 72 GPUs, so that gather (and the step, which waits for
  // it) goes over the network: 50 instead of 900 GB/s. With domains of 64
  // every group stays in one rack; the pipeline broadcast over all 128
  // leaves the domain in both, the TP pairs stay in it in both. The
  // difference is the expert term alone:
  //   expert * 31/32 * (1 / (50e9 eff) - 1 / (900e9 eff)).
  const std::string text = "model: qwen3-235b-a22b\nhardware: {gpu: gb200, gpus: 128, gpus_per_node: 4";
  const std::string pl = "}\nplacement: {mode: colocated, rollout_tp: 8, train_tp: 2, train_cp: 2, train_pp: 4, "
                         "train_ep: 16}\n";
  const Scenario racks = Load(text + pl);
  const Scenario even = Load(text + ", nvlink_domain: 64" + pl);
  ASSERT_EQ(NvlinkDomainGpus(racks.hardware), 72);
  const double eff = racks.hardware.gpu.efficiency.weight_sync_eff;
  const WeightSyncParts a = WeightSync(racks), b = WeightSync(even);
  const double expert = std::min(a.bytes, racks.model.routed_expert_params_b() * 2e9);
  EXPECT_NEAR(a.gather_s - b.gather_s, expert * 31.0 / 32.0 * (1.0 / (50e9 * eff) - 1.0 / (900e9 * eff)), 1e-6);
  EXPECT_GT(a.gather_s - b.gather_s, 5.0);  // ~10 s of 1 TB of experts
  // The expert all-to-all (EP 16): the group at 64-79 has 8 GPUs in each
  // rack, so half of each GPU's bytes cross the network, and that sets the
  // time: bytes * 8/16 / 50 GB/s. In domains of 64: all 15/16 over NVLink.
  const double tokens = 65536, passes = 2;
  const ModelSpec& m = racks.model;
  const double bytes = tokens * m.experts_per_token * m.hidden * 2.0 * m.layers / 128 * passes;
  EXPECT_NEAR(ExpertAllToAllTime(racks, tokens, 128, passes), bytes * 8.0 / 16.0 / 50e9, 1e-9);
  EXPECT_NEAR(ExpertAllToAllTime(even, tokens, 128, passes), bytes * 15.0 / 16.0 / 900e9, 1e-9);
}

TEST(NvlinkDomain, BadValueNamesTheField) {
  auto s = LoadScenarioText(Gb200(", nvlink_domain: 0", ""), Cat());
  ASSERT_FALSE(s.has_value());
  const std::string msg = s.error().ToString();
  EXPECT_NE(msg.find("hardware.nvlink_domain"), std::string::npos) << msg;
  EXPECT_NE(msg.find(">= 1"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rlcost::perf
