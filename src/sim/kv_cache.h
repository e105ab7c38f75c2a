// The paged KV cache both time models share (analytic.cc and simulator.cc):
// the same block size and admission watermark, so both paths model one engine.
#pragma once

#include <cstdint>

namespace rlcost::sim {

// vLLM's default KV block size (CacheConfig.block_size = 16 tokens).
inline constexpr int64_t kBlockTokens = 16;
// vLLM BlockSpaceManager admits a prompt only if 1% of the blocks stay free
// afterwards (watermark = 0.01), to avoid preempting right after admission.
inline constexpr double kWatermarkFraction = 0.01;

}  // namespace rlcost::sim
