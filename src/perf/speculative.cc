// Speculative decoding in the rollout engines: the cost of one generated
// token when a draft proposes k tokens and the target verifies them in one
// pass. docs/model.md, "Speculative decoding in rollout".
#include <algorithm>
#include <cmath>

#include "rlcost/perf.h"

namespace rlcost::perf {
namespace {

// Parameters of one decoder layer of the target: all weights less the input
// embedding and the output projection, over the layers.
double LayerParams(const ModelSpec& m) {
  const double emb = 2.0 * double(m.vocab) * m.hidden;
  return std::max(0.0, m.params_b * 1e9 - emb) / std::max(m.layers, 1);
}

DecodeArms::Linear Plus(DecodeArms::Linear x, const DecodeArms::Linear& y, double w = 1.0) {
  x.a += w * y.a;
  x.b += w * y.b;
  return x;
}

DecodeArms::Linear Scaled(DecodeArms::Linear x, double w) {
  x.a *= w;
  x.b *= w;
  return x;
}

}  // namespace

DecodeArms SpeculativeDecodeArms(const EngineConfig& e, double batch) {
  EngineConfig plain = e;
  plain.speculative.reset();
  if (!e.speculative) return DecodeArmsFor(plain, batch);
  const SpeculativeSpec& sp = *e.speculative;
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  const double k = sp.draft_tokens;
  const double q = k + 1.0;  // tokens per sequence in the verification pass
  // Verification: one forward of q tokens per sequence. The weight part is
  // that of a batch of batch x q tokens (weights streamed once, q times the
  // GEMM rows, experts touched by every token); each sequence's KV cache is
  // read once for its q queries, whose attention FLOPs are q times one
  // token's; the all-reduces carry batch x q hidden states.
  DecodeArms v = DecodeArmsFor(plain, batch * q);
  v.compute_s = Scaled(v.compute_s, q);
  v.flops.b *= q;
  // The draft: per drafted token, draft_layers of the target's layers at the
  // batch (its share of a plain iteration's weight and attention parts and
  // of the per-layer fixed costs) plus the output projection over the vocabulary.
  DecodeArms d = DecodeArmsFor(plain, batch);
  const double f = sp.draft_layers / std::max(m.layers, 1);
  const double bw = g.hbm_tb_per_s * 1e12 * e.eff.decode_bw;
  const double peak = g.PeakFlops(e.weights) * e.eff.decode_compute;
  const double head_bytes = double(m.vocab) * m.hidden * BytesPer(e.weights) / e.tp;
  const double head_flops = 2.0 * double(m.vocab) * m.hidden * batch / e.tp;
  const double draft_weight_s =
      f > 0 ? std::max((f * d.bytes.a + head_bytes) / bw, (f * d.flops.a + head_flops) / peak) : 0.0;
  const double draft_fixed_s = f * (d.fixed_s - e.eff.decode_iter_overhead_s);
  // One verification step advances each sequence by E tokens on average.
  const double tokens = sp.ExpectedTokensPerStep();
  DecodeArms out;
  out.weights_s = (v.weights_s + k * draft_weight_s) / tokens;
  out.weights_compute_bound = v.weights_compute_bound;
  out.fixed_s = (v.fixed_s + k * draft_fixed_s) / tokens;
  out.mem_s = Scaled(Plus(v.mem_s, d.mem_s, k * f), 1.0 / tokens);
  out.compute_s = Scaled(Plus(v.compute_s, d.compute_s, k * f), 1.0 / tokens);
  DecodeArms::Linear draft_bytes{f > 0 ? f * d.bytes.a + head_bytes : 0.0, f * d.bytes.b};
  DecodeArms::Linear draft_flops{f > 0 ? f * d.flops.a + head_flops : 0.0, f * d.flops.b};
  out.bytes = Scaled(Plus(v.bytes, draft_bytes, k), 1.0 / tokens);
  out.flops = Scaled(Plus(v.flops, draft_flops, k), 1.0 / tokens);
  return out;
}

double DraftWeightBytes(const Scenario& s) {
  if (!s.engine.speculative) return 0.0;
  return s.engine.speculative->draft_layers * LayerParams(s.model) * BytesPer(s.precision.rollout);
}

double DraftKvShare(const Scenario& s) {
  if (!s.engine.speculative) return 0.0;
  return s.engine.speculative->draft_layers / std::max(s.model.layers, 1);
}

double SpeculativeSpeedup(const EngineConfig& e, double batch, double context) {
  EngineConfig plain = e;
  plain.speculative.reset();
  const double base = DecodeIterations(DecodeArmsFor(plain, batch), batch, batch * context, 1.0).time_s;
  const double spec = DecodeIterations(SpeculativeDecodeArms(e, batch), batch, batch * context, 1.0).time_s;
  return spec > 0 ? base / spec : 1.0;
}

}  // namespace rlcost::perf
