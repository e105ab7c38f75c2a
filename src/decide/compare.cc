// Scenarios side by side, with the factors that explain the difference in
// cost per useful sample; and the cost against the pass rate.
// Rules and formulas: docs/model.md (levers section).
#include <fmt/format.h>

#include "decide/levers_internal.h"

namespace rlcost::levers {

using namespace internal;

const std::vector<std::string_view>& CompareMetrics() {
  static const std::vector<std::string_view> k = {
      "step.time_s",           "step.rollout_s",          "step.train_s",
      "step.other_s",          "cost.usd_per_step",       "signal.rollouts_per_step",
      "signal.informative_fraction", "signal.useful_samples_per_step", "signal.reward_bits_per_rollout",
      "cost.usd_per_useful_sample",  "cost.usd_per_reward_bit",  "cost.usd_per_million_trained_tokens",
      "goal.usd",              "run.usd",                 "run.wall_time_h"};
  return k;
}

CompareEntry MakeEntry(std::string label, const Scenario& s) {
  CompareEntry ce;
  ce.label = std::move(label);
  ce.config.id = ce.label;
  ce.config.title = s.name;
  ce.config.scenario = s;
  auto e = EstimateAnalytic(s);
  if (!e) {
    ce.config.ok = false;
    ce.config.error = e.error();
    ce.config.values.assign(kHeadlineCount, std::nullopt);
    return ce;
  }
  ce.config.ok = true;
  ce.config.estimate = *e;
  ce.config.values = ValuesOf(*e, nullptr, 1);
  return ce;
}

namespace {

// B/A of one metric.
std::optional<double> MetricRatio(const Estimate& b, const Estimate& a, std::string_view key) {
  return OptRatio(MetricValue(b, key), MetricValue(a, key));
}

// Factors whose product is `total`; the residual closes the gap.
std::vector<Factor> Close(std::optional<double> total, std::vector<std::pair<std::string, std::optional<double>>> parts) {
  std::vector<Factor> out;
  if (!total) return out;
  double prod = 1;
  for (auto& [name, r] : parts) {
    if (!r) continue;
    out.push_back({name, *r});
    prod *= *r;
  }
  double resid = *total / prod;
  if (std::fabs(std::log(resid)) > 1e-3) out.push_back({"other (residual)", resid});
  return out;
}

// Rollouts trained on per step = useful samples / (informative fraction x
// reward signal factor) (signal::Summary's definition), read through the metrics.
std::optional<double> TrainedRollouts(const Estimate& e) {
  auto u = MetricValue(e, "signal.useful_samples_per_step");
  auto f = MetricValue(e, "signal.informative_fraction");
  auto k = MetricValue(e, "signal.reward_signal_factor");
  if (!u || !f || !(*f > 0) || !k || !(*k > 0)) return std::nullopt;
  return *u / (*f * *k);
}

std::optional<double> Inv(std::optional<double> r) {
  if (!r || !(*r > 0)) return std::nullopt;
  return 1.0 / *r;
}

}  // namespace

Comparison BuildComparison(std::vector<CompareEntry> entries) {
  Comparison cmp;
  cmp.entries = std::move(entries);
  cmp.diffs.resize(cmp.entries.size());
  if (cmp.entries.empty() || !cmp.entries[0].config.ok) return cmp;
  const Estimate& a = cmp.entries[0].config.estimate;
  for (size_t i = 1; i < cmp.entries.size(); ++i) {
    if (!cmp.entries[i].config.ok) continue;
    const Estimate& b = cmp.entries[i].config.estimate;
    CompareDiff& d = cmp.diffs[i];
    for (auto k : CompareMetrics()) d.ratios.push_back(MetricRatio(b, a, k));
    // $/step = step time x dollars per second of the run (GPUs x price + sandbox).
    auto step_usd = MetricRatio(b, a, "cost.usd_per_step");
    auto time = MetricRatio(b, a, "step.time_s");
    d.per_step = Close(step_usd, {{"step time", time}, {"$ per second of run (GPUs x price, sandbox)", OptRatio(step_usd, time)}});
    // $/useful sample = $/step / (rollouts trained x informative fraction).
    auto useful = MetricRatio(b, a, "cost.usd_per_useful_sample");
    auto trained = OptRatio(TrainedRollouts(b), TrainedRollouts(a));
    // Verifier errors enter only where the two runs' reward noise differs.
    auto noise = Inv(MetricRatio(b, a, "signal.reward_signal_factor"));
    if (noise && *noise == 1.0) noise.reset();
    d.per_useful_sample = Close(useful, {{"$ per step", step_usd},
                                         {"1 / rollouts trained per step", Inv(trained)},
                                         {"1 / informative fraction", Inv(MetricRatio(b, a, "signal.informative_fraction"))},
                                         {"1 / reward signal factor (verifier errors)", noise}});
    // $/reward bit = $/step / (rollouts x bits per rollout).
    d.per_reward_bit = Close(MetricRatio(b, a, "cost.usd_per_reward_bit"),
                             {{"$ per step", step_usd},
                              {"1 / rollouts per step", Inv(MetricRatio(b, a, "signal.rollouts_per_step"))},
                              {"1 / reward bits per rollout", Inv(MetricRatio(b, a, "signal.reward_bits_per_rollout"))}});
    // The factor that explains most: largest |log|; $/step is opened into its parts.
    std::vector<Factor> flat;
    for (const auto& f : d.per_useful_sample) {
      if (f.name == "$ per step") {
        for (const auto& g : d.per_step) flat.push_back(g);
      } else {
        flat.push_back(f);
      }
    }
    const Factor* big = nullptr;
    for (const auto& f : flat) {
      if (!big || std::fabs(std::log(f.ratio)) > std::fabs(std::log(big->ratio))) big = &f;
    }
    if (big && useful) {
      d.explains = fmt::format("{} costs {:.2f}x per useful sample of {}; the largest factor is {} ({:.2f}x)",
                               cmp.entries[i].label, *useful, cmp.entries[0].label, big->name, big->ratio);
    }
  }
  return cmp;
}

// --- Cost against pass rate -----------------------------------------------------------

std::vector<PassRateCurve> CostVsPassRate(const Scenario& s, const std::vector<int>& groups,
                                          const std::vector<double>& pass_rates) {
  std::vector<PassRateCurve> out;
  for (int g : groups) {
    PassRateCurve c;
    c.group_size = g;
    for (double p : pass_rates) {
      Scenario v = s;
      v.algorithm.group_size = g;
      v.environment.pass_rate = PassRateSpec{};
      v.environment.pass_rate.kind = PassRateSpec::Kind::kHistogram;
      v.environment.pass_rate.histogram = {{p, 1.0}};
      auto e = EstimateAnalytic(v);
      c.pass_rate.push_back(p);
      c.usd_per_useful_sample.push_back(e ? MetricValue(*e, "cost.usd_per_useful_sample") : std::nullopt);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rlcost::levers
