// Internal: the electricity of a run and its emissions, from the GPU-seconds
// each phase spends and the power a GPU draws in that kind of work
// (docs/model.md, "Energy").
//
//   EnergyEstimate en = econ_internal::BuildEnergy(s, e);   // after e.run and e.step are set
#pragma once

#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

namespace rlcost::econ_internal {

// Power of a GPU, as a share of its power limit (tdp_w), in each kind of work.
// Idle (memory held, no kernel): wilicc/gpu-burn issue #114, nvidia-smi on an
// H100 80GB HBM3 at P0 with 72.8 GB allocated and 0-4% utilisation: 140-145 W
// of 700 W.
inline constexpr double kIdlePowerShare = 145.0 / 700.0;
// Decoding: the ML.ENERGY Benchmark v3.0 measurements on H100 SXM (700 W)
// as the vLLM Semantic Router fleet simulator takes its two anchors from them
// (vllm-semantic-router.com/docs/fleet-sim/power-model): 300 W at batch 1,
// 600 W at batch 128.
inline constexpr double kDecodePowerShareBatch1 = 300.0 / 700.0;
inline constexpr double kDecodePowerShareBatch128 = 600.0 / 700.0;
// Compute-bound passes (training, log-prob and reference forwards): the GPU
// runs at its power limit, which its clocks are throttled to hold (ASSUMED:
// an upper bound; Latif et al., IEEE Access 13, 2025, measured an 8 x H100
// node training Llama-2-13B at most 8.4 kW of its 10.2 kW rating, host included).
inline constexpr double kBusyPowerShare = 1.0;

// Decode power share at `batch` running sequences per engine: the two
// ML.ENERGY anchors joined linearly in log2(batch) (ASSUMED shape between
// them), flat outside [1, 128].
double DecodePowerShare(double batch);

EnergyEstimate BuildEnergy(const Scenario& s, const Estimate& e);

}  // namespace rlcost::econ_internal
