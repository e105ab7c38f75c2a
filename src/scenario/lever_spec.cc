// The scenario sections of the 2026 levers (`engine`, `energy`), read apart
// from the main loader so that each lever's fields live in one place
// (include/rlcost/lever_spec.h; docs/model.md "Speculative decoding in
// rollout", "Energy").
#include "scenario/lever_spec.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "rlcost/lever_spec.h"
#include "scenario/fields.h"

namespace rlcost {

std::string_view ToString(SpeculativeMethod m) {
  switch (m) {
    case SpeculativeMethod::kMtp: return "mtp";
    case SpeculativeMethod::kEagle: return "eagle";
    case SpeculativeMethod::kNgram: return "ngram";
  }
  return "mtp";
}

std::optional<SpeculativeMethod> SpeculativeMethodFromString(std::string_view s) {
  if (s == "mtp" || s == "deepseek_mtp") return SpeculativeMethod::kMtp;
  if (s == "eagle" || s == "eagle3") return SpeculativeMethod::kEagle;
  if (s == "ngram") return SpeculativeMethod::kNgram;
  return std::nullopt;
}

std::string_view ToString(TailMode m) {
  switch (m) {
    case TailMode::kNone: return "none";
    case TailMode::kOverProvision: return "over_provision";
    case TailMode::kTailBatching: return "tail_batching";
    case TailMode::kPartialRollout: return "partial_rollout";
  }
  return "none";
}

std::optional<TailMode> TailModeFromString(std::string_view s) {
  if (s == "none") return TailMode::kNone;
  if (s == "over_provision" || s == "drop_slowest") return TailMode::kOverProvision;
  if (s == "tail_batching" || s == "tail_batch") return TailMode::kTailBatching;
  if (s == "partial_rollout" || s == "partial") return TailMode::kPartialRollout;
  return std::nullopt;
}

const std::vector<GridIntensity>& GridIntensities() {
  // Lifecycle grams CO2e per kWh generated. The world average is Ember's
  // Global Electricity Review 2023 (data year 2022: "fell to 436 gCO2/kWh");
  // the countries are Ember's yearly electricity data for 2023 as Our World in
  // Data tabulates them (ourworldindata.org/grapher/carbon-intensity-electricity,
  // "Ember and Energy Institute"). A grid not listed: give its number.
  static const std::vector<GridIntensity> table = {
      {"world", kWorldGridGPerKwh, "Ember, Global Electricity Review 2023: world average 2022, 436 gCO2/kWh"},
      {"china", 582, "Ember via Our World in Data, China 2023"},
      {"india", 713, "Ember via Our World in Data, India 2023"},
      {"australia", 549, "Ember via Our World in Data, Australia 2023"},
      {"germany", 381, "Ember via Our World in Data, Germany 2023"},
      {"ireland", 291, "Ember via Our World in Data, Ireland 2023"},
      {"canada", 170, "Ember via Our World in Data, Canada 2023"},
      {"denmark", 152, "Ember via Our World in Data, Denmark 2023"},
      {"brazil", 98, "Ember via Our World in Data, Brazil 2023"},
      {"finland", 79, "Ember via Our World in Data, Finland 2023"},
      {"france", 56, "Ember via Our World in Data, France 2023"},
  };
  return table;
}

const GridIntensity* FindGrid(std::string_view id) {
  for (const auto& g : GridIntensities()) {
    if (g.id == id) return &g;
  }
  return nullptr;
}

namespace scenario_internal {
namespace {

// The most carbon-intensive generation (lignite) emits ~1,100-1,200 gCO2e/kWh
// over its life cycle (IPCC AR5 WG3 Annex III, Table A.III.2: coal PC median
// 820, max 1,100); no grid averages more than that.
constexpr double kMaxGridIntensity = 1500;

void ReadSpeculative(Reader& r, const YAML::Node& engine, Scenario& s) {
  const std::string path = "engine.speculative";
  YAML::Node n = Reader::Child(engine, "speculative");
  if (!n.IsDefined() || !r.CheckKeys(n, path, {"method", "draft_tokens", "acceptance", "draft_layers"})) return;
  SpeculativeSpec sp;
  if (!Reader::Child(n, "method").IsDefined()) {
    r.Add(n, Join(path, "method"), "missing; expected mtp, eagle, ngram or none");
    return;
  }
  // `none`: plain decoding, so that a sweep or `optimize --over
  // engine.speculative.method=none,mtp` can switch speculation off.
  if (YAML::Node m = Reader::Child(n, "method"); m.IsScalar() && m.Scalar() == "none") return;
  if (!r.Enum(n, "method", path, sp.method, &SpeculativeMethodFromString, "mtp, eagle, ngram or none")) return;
  sp.draft_layers = sp.method == SpeculativeMethod::kNgram ? 0.0 : 1.0;
  // vLLM proposes at most a handful of tokens; more than 16 is a typo.
  r.Int(n, "draft_tokens", path, sp.draft_tokens, 1, 16, "drafts longer than 16 tokens are not used");
  const bool has_a = Reader::Child(n, "acceptance").IsDefined();
  if (!has_a && sp.method != SpeculativeMethod::kMtp) {
    // Only DeepSeek's MTP module has a published acceptance rate (kMtpAcceptance);
    // an EAGLE head's or n-gram lookup's depends on the data and its training.
    r.Add(n, Join(path, "acceptance"),
          fmt::format("missing; expected the probability that a drafted token is accepted, in (0, 1] (no "
                      "default for method {}: it depends on the draft's training and the data)",
                      ToString(sp.method)));
  }
  r.Double(n, "acceptance", path, sp.acceptance, {.min = 0.0, .min_exclusive = true, .max = 1.0});
  r.Double(n, "draft_layers", path, sp.draft_layers, {.min = 0.0, .max = 64.0});
  s.engine.speculative = sp;
}

void ReadEnergy(Reader& r, const YAML::Node& root, Scenario& s) {
  EnergySpec& e = s.energy;
  const GridIntensity& world = GridIntensities().front();
  e.grid = std::string(world.id);
  e.g_co2e_per_kwh = world.g_co2e_per_kwh;
  e.grid_source = std::string(world.source);
  YAML::Node n = Reader::Child(root, "energy");
  if (!n.IsDefined() || !r.CheckKeys(n, "energy", {"grid"})) return;
  YAML::Node g = Reader::Child(n, "grid");
  if (!g.IsDefined()) return;
  auto text = r.AsString(g, "energy.grid");
  if (!text) return;
  if (const GridIntensity* known = FindGrid(*text)) {
    e.grid = std::string(known->id);
    e.g_co2e_per_kwh = known->g_co2e_per_kwh;
    e.grid_source = std::string(known->source);
    return;
  }
  char* end = nullptr;
  const double v = std::strtod(text->c_str(), &end);
  if (!text->empty() && end == text->c_str() + text->size() && std::isfinite(v)) {
    if (v < 0 || v > kMaxGridIntensity) {
      r.Add(g, "energy.grid",
            fmt::format("{} g CO2e/kWh is outside [0, {}] (no grid averages more than coal's life-cycle "
                        "emissions)",
                        *text, kMaxGridIntensity));
      return;
    }
    e.grid = "custom";
    e.g_co2e_per_kwh = v;
    e.grid_source = "given in the scenario";
    return;
  }
  std::string ids;
  for (const auto& k : GridIntensities()) ids += (ids.empty() ? "" : ", ") + std::string(k.id);
  r.Add(g, "energy.grid",
        "unknown grid '" + *text + "'; expected one of " + ids + ", or grams CO2e per kWh (e.g. 369)");
}

// hardware.spot.{rollout,train} (docs/model.md, "Spot GPUs"). A role is
// `none` (on-demand, so that a sweep can switch it off) or a map with a price
// (USD per GPU-hour, or price_ratio of the on-demand price) and a
// preemption rate: neither has a default (spot prices and reclaim rates move
// by the hour, region and GPU; see the docs for figures with their dates).
void ReadSpotRole(Reader& r, const YAML::Node& spot, const std::string& role, Scenario& s,
                  std::optional<SpotRole>& out) {
  const std::string path = "hardware.spot." + role;
  YAML::Node n = Reader::Child(spot, role);
  if (!n.IsDefined()) return;
  if (n.IsScalar() && n.Scalar() == "none") return;
  if (!n.IsMap()) {
    r.Add(n, path, "expected none or a mapping {price or price_ratio, preemptions_per_hour, restart_s}");
    return;
  }
  if (!r.CheckKeys(n, path, {"enabled", "price", "price_ratio", "preemptions_per_hour", "restart_s"})) return;
  SpotRole sr;
  r.Bool(n, "enabled", path, sr.enabled);
  const bool has_price = Reader::Child(n, "price").IsDefined();
  const bool has_ratio = Reader::Child(n, "price_ratio").IsDefined();
  if (has_price == has_ratio) {
    r.Add(n, Join(path, has_price ? "price_ratio" : "price"),
          has_price ? "give price or price_ratio, not both"
                    : "missing; expected price (USD per GPU-hour) or price_ratio (a fraction of the on-demand "
                      "price, e.g. 0.4): spot prices have no default, they move by the hour");
    return;
  }
  double v = 0;
  if (has_price && r.Double(n, "price", path, v, fields::kPricePerHour)) sr.price = v;
  if (has_ratio && r.Double(n, "price_ratio", path, v, {.min = 0.0, .max = 1.0})) sr.price_ratio = v;
  if (!Reader::Child(n, "preemptions_per_hour").IsDefined()) {
    r.Add(n, Join(path, "preemptions_per_hour"),
          "missing; expected how often one node (instance) is reclaimed, per hour (e.g. 0.05; no default: it "
          "depends on the market, region and GPU)");
    return;
  }
  // More than one reclaim a minute is no longer a spot market but an outage.
  r.Double(n, "preemptions_per_hour", path, sr.preemptions_per_hour, {.min = 0.0, .max = 60.0});
  if (Reader::Child(n, "restart_s").IsDefined()) {
    double rs = 0;
    if (r.Double(n, "restart_s", path, rs, {.min = 0.0, .max = 86400.0})) sr.restart_s = rs;
  }
  (void)s;
  out = sr;
}

void ReadSpot(Reader& r, const YAML::Node& root, Scenario& s) {
  YAML::Node hw = Reader::Child(root, "hardware");
  if (!hw.IsDefined() || !hw.IsMap()) return;
  YAML::Node spot = Reader::Child(hw, "spot");
  if (!spot.IsDefined()) return;
  if (spot.IsScalar() && spot.Scalar() == "none") return;
  if (!r.CheckKeys(spot, "hardware.spot", {"rollout", "train"})) return;
  ReadSpotRole(r, spot, "rollout", s, s.hardware.spot.rollout);
  ReadSpotRole(r, spot, "train", s, s.hardware.spot.train);
}


// pipeline.tail (docs/model.md, "Tail handling"): `none`, a mode name, or
// {mode, over_launch}.
void ReadTail(Reader& r, const YAML::Node& root, Scenario& s) {
  const std::string path = "pipeline.tail";
  YAML::Node p = Reader::Child(root, "pipeline");
  if (!p.IsDefined() || !p.IsMap()) return;
  YAML::Node n = Reader::Child(p, "tail");
  if (!n.IsDefined()) return;
  TailSpec t;
  const char* modes = "none, over_provision, tail_batching or partial_rollout";
  if (n.IsScalar()) {
    auto m = TailModeFromString(n.Scalar());
    if (!m) {
      r.Add(n, path, fmt::format("unknown tail handling '{}'; expected {}", n.Scalar(), modes));
      return;
    }
    t.mode = *m;
  } else {
    if (!r.CheckKeys(n, path, {"mode", "over_launch"})) return;
    if (!Reader::Child(n, "mode").IsDefined()) {
      r.Add(n, Join(path, "mode"), std::string("missing; expected ") + modes);
      return;
    }
    if (!r.Enum(n, "mode", path, t.mode, &TailModeFromString, modes)) return;
  }
  if (t.mode == TailMode::kNone) return;
  const bool has_f = n.IsMap() && Reader::Child(n, "over_launch").IsDefined();
  if (t.mode == TailMode::kPartialRollout) t.over_launch = kAprilOverLaunch;
  if (!has_f && t.mode != TailMode::kPartialRollout) {
    r.Add(n, Join(path, "over_launch"),
          fmt::format("missing; expected f, the extra share of prompts launched per step (e.g. 0.25 launches 1.25x "
                      "the prompts), > 0 and at most 4 (no published default for {})",
                      ToString(t.mode)));
    return;
  }
  // More than 5x the batch in flight is no longer a tail remedy.
  if (has_f) r.Double(n, "over_launch", path, t.over_launch, {.min = 0.0, .min_exclusive = true, .max = 4.0});
  s.pipeline.tail = t;
}

// placement.resplit (elastic rollout/train pools, docs/model.md "Elastic
// pools"): `none` or {phases, restart_s}; it needs a disaggregated placement
// and a response-length schedule to re-split along.
void ReadResplit(Reader& r, const YAML::Node& root, Scenario& s) {
  const std::string path = "placement.resplit";
  YAML::Node p = Reader::Child(root, "placement");
  if (!p.IsDefined() || !p.IsMap()) return;
  YAML::Node n = Reader::Child(p, "resplit");
  if (!n.IsDefined() || (n.IsScalar() && n.Scalar() == "none")) return;
  if (!n.IsMap()) {
    r.Add(n, path, "expected none or a mapping {phases, restart_s}");
    return;
  }
  if (!r.CheckKeys(n, path, {"phases", "restart_s"})) return;
  ResplitSpec rs;
  // One phase is no re-split; more than 64 is a re-split every few steps.
  r.Int(n, "phases", path, rs.phases, 2, 64, "a re-split needs at least two phases");
  if (Reader::Child(n, "restart_s").IsDefined()) {
    double v = 0;
    if (r.Double(n, "restart_s", path, v, {.min = 0.0, .max = 86400.0})) rs.restart_s = v;
  }
  if (s.placement.mode != PlacementMode::kDisaggregated) {
    r.Add(n, path, "re-splitting needs placement.mode: disaggregated (colocated, every GPU does both)");
    return;
  }
  if (!s.environment.response_tokens_schedule) {
    r.Add(n, path,
          "re-splitting follows the response lengths over the run: set environment.response_tokens_schedule");
    return;
  }
  s.placement.resplit = rs;
}
}  // namespace

void ReadLeverSections(Reader& r, const YAML::Node& root, Scenario& s) {
  YAML::Node engine = Reader::Child(root, "engine");
  if (engine.IsDefined() &&
      r.CheckKeys(engine, "engine", {"speculative", "enforce_eager", "cuda_graph_max_batch", "max_num_seqs"})) {
    ReadSpeculative(r, engine, s);
    r.Bool(engine, "enforce_eager", "engine", s.engine.enforce_eager);  // docs/model.md, "Eager decoding"
    // docs/model.md, "CUDA-graph coverage": 0 = every batch from a graph.
    r.Int(engine, "cuda_graph_max_batch", "engine", s.engine.cuda_graph_max_batch, 0, 1'000'000);
    // docs/model.md, "The engine's cap on running sequences": 0 = no cap.
    r.Int(engine, "max_num_seqs", "engine", s.engine.max_num_seqs, 0, 10'000'000);
  }
  ReadEnergy(r, root, s);
  ReadSpot(r, root, s);
  ReadTail(r, root, s);
  ReadResplit(r, root, s);
}

}  // namespace scenario_internal
}  // namespace rlcost
