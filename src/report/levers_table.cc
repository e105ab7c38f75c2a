#include "report/levers_table.h"

#include "fit/interval.h"
#include "report/intervals.h"
#include "report/price.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>

#include "report/report.h"

namespace rlcost::report {
namespace {

using levers::Config;
using levers::Headlines;

nlohmann::json Num(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

std::string Val(const std::optional<double>& v, std::string_view unit) {
  return v ? FormatValue(*v, unit) : "-";
}

nlohmann::json ConfigJson(const Config& c) {
  nlohmann::json j;
  j["id"] = c.id;
  j["title"] = c.title;
  j["detail"] = c.detail;
  nlohmann::json lv = nlohmann::json::array();
  for (auto l : c.levers) lv.push_back(std::string(levers::ToString(l)));
  j["levers"] = lv;
  j["ok"] = c.ok;
  if (!c.ok) {
    j["error"] = ErrorToJson(c.error)["error"];
    return j;
  }
  j["model"] = c.scenario.model_id;
  j["gpu"] = c.scenario.hardware.gpu.id;
  j["gpus"] = c.scenario.hardware.gpus;
  j["tenants"] = c.tenants;
  j["worth"] = c.worth;
  j["discounts"] = nlohmann::json::array();
  for (const auto& d : c.discounts) {
    j["discounts"].push_back({{"id", d.id}, {"label", d.label}, {"value", d.value}, {"user_set", d.user_set},
                              {"assumed", d.assumed}, {"source", d.source}});
  }
  j["placement"] = std::string(ToString(c.scenario.placement.mode));
  if (c.scenario.placement.mode == PlacementMode::kDisaggregated) {
    j["rollout_gpus"] = c.scenario.placement.rollout_gpus;
    j["train_gpus"] = c.scenario.placement.train_gpus;
  }
  j["pipeline"] = std::string(ToString(c.scenario.pipeline.mode));
  j["rollout_precision"] = std::string(ToString(c.scenario.precision.rollout));
  j["group_size"] = c.scenario.algorithm.group_size;
  j["prompts_per_step"] = c.scenario.algorithm.prompts_per_step;
  for (size_t i = 0; i < Headlines().size(); ++i) {
    std::string id(Headlines()[i].id);
    if (i < c.values.size()) j["values"][id] = Num(c.values[i]);
    if (i < c.factor_prev.size()) j["factor_vs_previous"][id] = Num(c.factor_prev[i]);
    if (i < c.factor_base.size()) j["factor_vs_baseline"][id] = Num(c.factor_base[i]);
  }
  j["estimate"] = EstimateToJson(c.scenario, c.estimate);
  j["interval"] = IntervalsToJson(c.estimate);
  return j;
}

// "likely range: step a .. b s, $ to goal .., $/run .." for the shown values
// (per tenant where they are), from the band of the estimate's path.
std::string RangeLine(const Config& c) {
  const auto& b = interval::BandFor(c.estimate.method);
  std::string out;
  const std::pair<int, const char*> shown[] = {{levers::kStepTime, "step"}, {levers::kUsdToGoal, "$ to goal"}, {levers::kUsdRun, "$/run"}};
  for (const auto& [i, name] : shown) {
    if (i >= static_cast<int>(c.values.size()) || !c.values[i]) continue;
    auto r = interval::Around(*c.values[i], b);
    out += fmt::format("{}{} {} .. {}", out.empty() ? "" : ", ", name, FormatValue(r.low, Headlines()[i].unit),
                       FormatValue(r.high, Headlines()[i].unit));
  }
  return out;
}

// One block of rows: a configuration, its values and factors.
void StageRows(std::string& out, const Config& c, bool show_prev) {
  if (!c.ok) {
    out += fmt::format("  {:<32} {}\n", c.title, ConfigError(c));
    return;
  }
  std::string vals, fp, fb;
  for (size_t i = 0; i < Headlines().size(); ++i) {
    vals += fmt::format(" {:>11}", Val(c.values[i], Headlines()[i].unit));
    fp += fmt::format(" {:>11}", FormatFactor(c.factor_prev.empty() ? std::nullopt : c.factor_prev[i]));
    fb += fmt::format(" {:>11}", FormatFactor(c.factor_base.empty() ? std::nullopt : c.factor_base[i]));
  }
  out += fmt::format("  {:<32}{}\n", c.title, vals);
  if (show_prev) out += fmt::format("  {:<32}{}\n", "    x vs previous", fp);
  out += fmt::format("  {:<32}{}\n", "    x vs baseline", fb);
  if (std::string r = RangeLine(c); !r.empty()) out += fmt::format("      likely range: {}\n", r);
  if (!c.discounts.empty()) out += fmt::format("      {}\n", WorthLine(c));
  if (!c.detail.empty()) out += fmt::format("      ({})\n", c.detail);
}

std::string HeaderRow() {
  static const char* short_names[] = {"step s", "$/step", "$/useful", "$/bit", "$ to goal", "$/run"};
  std::string h = fmt::format("  {:<32}", "");
  for (auto* n : short_names) h += fmt::format(" {:>11}", n);
  return h + "\n";
}

}  // namespace

std::string FormatFactor(const std::optional<double>& f) {
  if (!f || !std::isfinite(*f)) return "-";
  if (*f >= 100) return fmt::format("{:.0f}x", *f);
  if (*f >= 10) return fmt::format("{:.1f}x", *f);
  return fmt::format("{:.2f}x", *f);
}

// "a rollout is worth 0.931 of an on-policy bf16 one: staleness 1 (async) -5% (ASSUMPTION), ..."
std::string WorthLine(const levers::Config& c) {
  std::string parts;
  for (const auto& d : c.discounts) {
    parts += fmt::format("{}{} -{:.3g}% ({})", parts.empty() ? "" : ", ", d.label, d.value * 100,
                         d.user_set ? "yours" : d.assumed ? "ASSUMPTION" : "sourced");
  }
  return fmt::format("a rollout is worth {:.3f} of an on-policy bf16 one: {}", c.worth, parts);
}

std::string ConfigError(const levers::Config& c) {
  if (c.ok) return "";
  std::string msg;
  for (const auto& p : c.error.problems) {
    if (!msg.empty()) msg += "; ";
    msg += p.message;
  }
  if (c.error.code == ErrorCode::kDoesNotFit) return "does not fit: " + msg;
  if (c.error.code == ErrorCode::kNotImplemented) return "not available: " + msg;
  return "cannot run: " + msg;
}

// --- Waterfall ------------------------------------------------------------------

std::string WaterfallToTable(const levers::Waterfall& wf) {
  std::string out;
  out += fmt::format("rlcost waterfall — {}\n", wf.scenario_name);
  const bool from_run = wf.options.baseline == levers::Baseline::kRun;
  out += "  the cost levers (async RL, fp8 rollout, newer GPUs, fp4 rollout, 2-GRPO, bigger batch, LoRA tenancy, MoE)\n";
  out += from_run ? "  applied one at a time, cumulatively, to your run as given (the baseline row is `estimate`'s run);\n"
                    "  the essay's naive baseline (H100, synchronous, colocated, bf16, G = 16) is the reference row\n"
                  : "  applied one at a time, cumulatively, to a naive baseline: this model (for an MoE, a dense one of matching\n"
                    "  quality) on H100 with synchronous, colocated veRL-style RL, bf16, G = 16\n";
  out += "  columns: step time; dollars per step, per useful sample, per reward bit, to the goal, per run\n";
  out += "  like for like: $ per useful sample and $ to goal (what the money buys); per step and per run are shown\n"
         "  but count a step with fewer or worse rollouts as a saving\n\n";
  out += HeaderRow();
  StageRows(out, wf.baseline, false);
  for (const auto& st : wf.stages) StageRows(out, st, true);
  out += from_run ? "\n  reference: the essay's naive baseline (factor: your run / this; below 1 your run is cheaper)\n"
                  : "\n  reference: your run as given (factor: the naive baseline / this)\n";
  out += HeaderRow();
  StageRows(out, wf.reference, true);

  out += "\n  each lever alone on the baseline\n";
  out += HeaderRow();
  for (const auto& so : wf.solo) StageRows(out, so, false);
  std::string prod, comb;
  const Config* combined = nullptr;
  for (auto it = wf.stages.rbegin(); it != wf.stages.rend(); ++it) {
    if (it->ok) { combined = &*it; break; }
  }
  for (size_t i = 0; i < Headlines().size(); ++i) {
    prod += fmt::format(" {:>11}", FormatFactor(wf.solo_product[i]));
    comb += fmt::format(" {:>11}", FormatFactor(combined ? combined->factor_base[i] : std::nullopt));
  }
  out += fmt::format("  {:<32}{}\n", "product of solo factors", prod);
  out += fmt::format("  {:<32}{}\n", "combined (all levers together)", comb);
  out += "  (combined above the product: the levers reinforce each other; below: they overlap)\n";

  out += "\n  2-GRPO, exactly (over this scenario's pass-rate distribution):\n";
  out += fmt::format("    P(group of {} informative) = E[1 - p^{} - (1-p)^{}] = {:.4f}\n", wf.grpo2.group_large,
                     wf.grpo2.group_large, wf.grpo2.group_large, wf.grpo2.p_informative_large);
  out += fmt::format("    P(group of {} informative)  = E[2p(1-p)]             = {:.4f}\n", wf.grpo2.group_small,
                     wf.grpo2.p_informative_small);
  out += fmt::format("    paper's CLAIM: {:.1f}% of 16-GRPO's quality with {:.1f}% of the rollouts — {}\n",
                     wf.grpo2.claim_quality * 100, wf.grpo2.claim_rollout_share * 100, wf.grpo2.claim_source);
  for (const auto& st : wf.stages) {
    if (st.id == "grpo2" && st.ok) {
      out += fmt::format("    at the 2-GRPO stage: {} per useful sample ({} vs previous); at equal final quality "
                         "under the paper's claim, {} per run ({} vs previous)\n",
                         Val(st.values[levers::kUsdPerUsefulSample], "USD"),
                         FormatFactor(st.factor_prev[levers::kUsdPerUsefulSample]),
                         Val(st.values[levers::kUsdRun], "USD"), FormatFactor(st.factor_prev[levers::kUsdRun]));
    }
  }

  // Each quality discount once, with where its value comes from.
  std::vector<const levers::Discount*> seen;
  auto note = [&](const Config& c) {
    for (const auto& d : c.discounts) {
      bool dup = false;
      for (const auto* x : seen) dup = dup || (x->id == d.id && x->label == d.label);
      if (!dup) seen.push_back(&d);
    }
  };
  note(wf.baseline);
  for (const auto& st : wf.stages) note(st);
  for (const auto& so : wf.solo) note(so);
  if (!seen.empty()) {
    out += "\n  quality discounts (what a rollout is worth; divide $ per useful sample, per reward bit and to goal):\n";
    for (const auto* d : seen) out += fmt::format("    - {}: {:.3g}. {}\n", d->label, d->value, d->source);
  }

  out += "\n  " + interval::BandSentence(interval::BandFor("analytic"), "analytic") + "\n";
  out += "\n  verdict: " + wf.verdict_summary + "\n";
  out += "\n  rules:\n";
  for (const auto& r : wf.rules) out += "    - " + r + "\n";
  return out;
}

nlohmann::json WaterfallToJson(const levers::Waterfall& wf) {
  nlohmann::json j;
  j["scenario"] = wf.scenario_name;
  nlohmann::json order = nlohmann::json::array();
  for (auto l : wf.options.order) order.push_back(std::string(levers::ToString(l)));
  j["order"] = order;
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& h : Headlines()) {
    metrics.push_back({{"id", std::string(h.id)}, {"metric", std::string(h.key)}, {"label", std::string(h.label)},
                       {"unit", std::string(h.unit)}});
  }
  j["metrics"] = metrics;
  j["baseline"] = ConfigJson(wf.baseline);
  // What the levers start from ("run": the user's run, `estimate`'s figures;
  // "naive": the essay's baseline) and the other one, labelled.
  j["baseline_kind"] = wf.options.baseline == levers::Baseline::kRun ? "run" : "naive";
  j["reference"] = ConfigJson(wf.reference);
  j["stages"] = nlohmann::json::array();
  for (const auto& st : wf.stages) j["stages"].push_back(ConfigJson(st));
  j["solo"] = nlohmann::json::array();
  for (const auto& so : wf.solo) j["solo"].push_back(ConfigJson(so));
  for (size_t i = 0; i < Headlines().size(); ++i) j["solo_product"][std::string(Headlines()[i].id)] = Num(wf.solo_product[i]);
  j["claim"]["range"] = {20, 50};
  j["claim"]["judged_on"] = {"usd_per_useful_sample", "usd_to_goal"};
  j["claim"]["verdict"] = wf.verdict.empty() ? nlohmann::json(nullptr) : nlohmann::json(wf.verdict);
  j["claim"]["summary"] = wf.verdict_summary;
  j["claim"]["verdicts"] = nlohmann::json::array();
  for (const auto& v : wf.verdicts) {
    j["claim"]["verdicts"].push_back({{"metric", v.metric_id},
                                      {"combined_factor", Num(v.combined_factor)},
                                      {"solo_product", Num(v.solo_product)},
                                      {"verdict", v.verdict},
                                      {"like_for_like", v.like_for_like}});
  }
  j["grpo2"] = {{"group_large", wf.grpo2.group_large},
                {"group_small", wf.grpo2.group_small},
                {"p_informative_large", wf.grpo2.p_informative_large},
                {"p_informative_small", wf.grpo2.p_informative_small},
                {"claim_quality", wf.grpo2.claim_quality},
                {"claim_rollout_share", wf.grpo2.claim_rollout_share},
                {"claim_source", wf.grpo2.claim_source}};
  j["quality_discounts"] = {
      {"staleness", {{"value", wf.options.discounts.staleness.value_or(levers::kDefaultStalenessDiscount)},
                     {"per", "policy version of lag"}, {"user_set", wf.options.discounts.staleness.has_value()}}},
      {"fp8_mismatch", {{"value", wf.options.discounts.fp8.value_or(levers::kDefaultFp8Discount)},
                        {"user_set", wf.options.discounts.fp8.has_value()}}},
      {"fp4_mismatch", {{"value", wf.options.discounts.fp4.value_or(levers::kDefaultFp4Discount)},
                        {"user_set", wf.options.discounts.fp4.has_value()}}}};
  j["rules"] = wf.rules;
  return j;
}

// --- Price card ------------------------------------------------------------------

std::string PriceCardToTable(const levers::PriceCard& card) {
  std::string out = fmt::format("rlcost price — {}\n", card.scenario_name);
  std::string stack;
  for (auto l : card.stack) stack += (stack.empty() ? "" : ",") + std::string(levers::ToString(l));
  out += fmt::format("  post-training price card, stack: {}\n\n", stack.empty() ? "none (the scenario as is)" : stack);
  // Tenants exist only where the stack shares one base among LoRA adapters;
  // elsewhere a figure is the run's, and "per tenant" would name nobody.
  const bool tenants = std::find(card.stack.begin(), card.stack.end(), levers::Lever::kLora) != card.stack.end();
  auto label = [tenants](size_t i) {
    std::string l(levers::PriceMetrics()[i].label);
    if (const auto at = l.find(" (per tenant)"); !tenants && at != std::string::npos) l.erase(at);
    return l;
  };
  out += fmt::format("  {:<16} {:<10}", "model", "gpu");
  static const char* short_names[] = {"$/M trained", "$/M generated", "$/useful", "$/reward bit", "$ to goal", "step s"};
  for (auto* n : short_names) out += fmt::format(" {:>15}", n);
  out += "\n";
  for (const auto& r : card.rows) {
    out += fmt::format("  {:<16} {:<10}", r.model_id, r.gpu_id);
    if (!r.config.ok) {
      out += " " + ConfigError(r.config) + "\n";
      continue;
    }
    for (size_t i = 0; i < levers::PriceMetrics().size(); ++i) {
      out += fmt::format(" {:>15}", Val(r.values[i], levers::PriceMetrics()[i].unit));
    }
    out += "\n";
    const auto& b = interval::BandFor(r.config.estimate.method);
    std::string ranges;
    for (size_t i = 0; i < levers::PriceMetrics().size(); ++i) {
      std::string_view id = levers::PriceMetrics()[i].id;
      if ((id != "usd_to_goal" && id != "step_time_s") || !r.values[i]) continue;
      auto rg = interval::Around(*r.values[i], b);
      ranges += fmt::format("{}{} {} .. {}", ranges.empty() ? "" : ", ", label(i),
                            FormatValue(rg.low, levers::PriceMetrics()[i].unit), FormatValue(rg.high, levers::PriceMetrics()[i].unit));
    }
    if (!ranges.empty()) out += "    likely range: " + ranges + "\n";
  }
  out += "\n  " + interval::BandSentence(interval::BandFor("analytic"), "analytic") + "\n";
  // The price each GPU's rows pay, with its date and source.
  std::vector<std::string> priced;
  for (const auto& r : card.rows) {
    const Scenario& sc = r.config.scenario;
    if (sc.hardware.gpu.id.empty() || std::find(priced.begin(), priced.end(), sc.hardware.gpu.id) != priced.end()) continue;
    priced.push_back(sc.hardware.gpu.id);
    out += fmt::format("  GPU price, {}: {}\n", sc.hardware.gpu.id, PriceSource(sc));
  }
  for (const auto& n : card.notes) out += "  note: " + n + "\n";
  out += tenants ? "  note: $ to goal is per tenant (each LoRA tenant's goal on its share of the batch), on rlcost's "
                   "learning curve (illustrative unless goal.curve is given)\n"
                 : "  note: $ to goal is the run's, on rlcost's learning curve (illustrative unless goal.curve is "
                   "given)\n";
  return out;
}

nlohmann::json PriceCardToJson(const levers::PriceCard& card) {
  nlohmann::json j;
  j["scenario"] = card.scenario_name;
  j["stack"] = nlohmann::json::array();
  for (auto l : card.stack) j["stack"].push_back(std::string(levers::ToString(l)));
  j["rows"] = nlohmann::json::array();
  for (const auto& r : card.rows) {
    nlohmann::json row = {{"model", r.model_id}, {"gpu", r.gpu_id}, {"ok", r.config.ok}};
    if (!r.config.ok) {
      row["error"] = ConfigError(r.config);
      row["code"] = std::string(ToString(r.config.error.code));
    } else {
      for (size_t i = 0; i < levers::PriceMetrics().size(); ++i) {
        row[std::string(levers::PriceMetrics()[i].id)] = Num(r.values[i]);
      }
      row["interval"] = IntervalsToJson(r.config.estimate);
      // The GPU price the row pays and where it comes from (date and source).
      row["gpu_price"] = {{"usd_per_gpu_hour", r.config.scenario.hardware.price_per_gpu_hour},
                          {"source", PriceOrigin(r.config.scenario)}};
    }
    j["rows"].push_back(std::move(row));
  }
  j["notes"] = card.notes;
  return j;
}

// --- Comparison -------------------------------------------------------------------

// What each column's goal.usd rests on (Estimate::goal.curve), said once
// under the table: the columns on rlcost's illustrative curve, then those on
// a published one. "" when no column's goal figure needs a word.
static std::string CompareGoalCurveNote(const levers::Comparison& cmp) {
  std::string illustrative;
  std::map<std::string, std::string> published;  // curve -> columns
  for (size_t i = 0; i < cmp.entries.size(); ++i) {
    const auto& c = cmp.entries[i].config;
    if (!c.ok || !c.estimate.goal.requested) continue;
    const std::string col(1, char('A' + i % 26));
    if (c.estimate.goal.curve_is_illustrative) {
      illustrative += (illustrative.empty() ? "" : ", ") + col;
    } else if (c.estimate.goal.curve.rfind("published:", 0) == 0) {
      auto& cols = published[c.estimate.goal.curve.substr(10)];
      cols += (cols.empty() ? "" : ", ") + col;
    }
  }
  std::string out;
  if (!illustrative.empty()) {
    out += fmt::format("\n  note: goal.usd of {} rests on rlcost's ILLUSTRATIVE learning curve (default parameters, "
                       "not measured): set goal.curve to your run's own fit (rlcost forecast) or a published one\n",
                       illustrative);
  }
  for (const auto& [name, cols] : published) {
    out += fmt::format("\n  note: goal.usd of {} rests on a published learning curve, {} (catalog/curves.yaml), "
                       "fitted to another run\n",
                       cols, name);
  }
  return out;
}

std::string ComparisonToTable(const levers::Comparison& cmp) {
  std::string out = "rlcost compare — ratios are against the first column; '<' marks a difference over 10%\n\n";
  // Columns are lettered; the legend gives each one's full label.
  for (size_t i = 0; i < cmp.entries.size(); ++i) {
    out += fmt::format("  {} = {}\n", char('A' + i % 26), cmp.entries[i].label);
  }
  out += fmt::format("\n  {:<38}", "");
  for (size_t i = 0; i < cmp.entries.size(); ++i) out += fmt::format(" {:>22}", std::string(1, char('A' + i % 26)));
  out += "\n";
  for (size_t k = 0; k < levers::CompareMetrics().size(); ++k) {
    auto key = levers::CompareMetrics()[k];
    const MetricDef* m = FindMetric(key);
    std::string unit = m ? std::string(m->unit) : "";
    out += fmt::format("  {:<38}", key);
    bool marked = false;
    for (size_t i = 0; i < cmp.entries.size(); ++i) {
      const auto& c = cmp.entries[i].config;
      if (!c.ok) {
        out += fmt::format(" {:>22}", "(no result)");
        continue;
      }
      auto v = levers::MetricValue(c.estimate, key);
      std::string cell = Val(v, unit);
      if (i > 0 && k < cmp.diffs[i].ratios.size() && cmp.diffs[i].ratios[k]) {
        double r = *cmp.diffs[i].ratios[k];
        cell += fmt::format(" ({:.2f}x)", r);
        if (std::fabs(std::log(r)) > std::log(1.1)) marked = true;
      }
      out += fmt::format(" {:>22}", cell);
    }
    out += marked ? "  <\n" : "\n";
  }
  out += CompareGoalCurveNote(cmp);
  for (size_t i = 0; i < cmp.entries.size(); ++i) {
    const auto& e = cmp.entries[i];
    if (!e.config.ok) out += fmt::format("\n  {}: {}\n", e.label, ConfigError(e.config));
  }
  for (size_t i = 1; i < cmp.entries.size(); ++i) {
    const auto& d = cmp.diffs[i];
    if (d.per_useful_sample.empty()) continue;
    out += fmt::format("\n  {} vs A ({} vs {}):\n", char('A' + i % 26), cmp.entries[i].label, cmp.entries[0].label);
    auto line = [&](const char* what, const std::vector<levers::Factor>& fs) {
      std::string s;
      for (const auto& f : fs) s += fmt::format("{}{} {:.3g}x", s.empty() ? "" : "  x  ", f.name, f.ratio);
      out += fmt::format("    {:<18} = {}\n", what, s);
    };
    line("$/useful sample", d.per_useful_sample);
    line("$/step", d.per_step);
    line("$/reward bit", d.per_reward_bit);
    out += "    " + d.explains + "\n";
  }
  return out;
}

nlohmann::json ComparisonToJson(const levers::Comparison& cmp) {
  nlohmann::json j;
  j["entries"] = nlohmann::json::array();
  for (size_t i = 0; i < cmp.entries.size(); ++i) {
    const auto& e = cmp.entries[i];
    nlohmann::json x = {{"label", e.label}, {"ok", e.config.ok}};
    if (!e.config.ok) {
      x["error"] = ConfigError(e.config);
    } else {
      x["estimate"] = EstimateToJson(e.config.scenario, e.config.estimate);
    }
    if (i > 0 && !cmp.diffs[i].ratios.empty()) {
      const auto& d = cmp.diffs[i];
      for (size_t k = 0; k < levers::CompareMetrics().size(); ++k) {
        x["ratio_vs_first"][std::string(levers::CompareMetrics()[k])] = Num(d.ratios[k]);
      }
      auto fj = [](const std::vector<levers::Factor>& fs) {
        nlohmann::json a = nlohmann::json::array();
        for (const auto& f : fs) a.push_back({{"factor", f.name}, {"ratio", f.ratio}});
        return a;
      };
      x["decomposition"]["usd_per_useful_sample"] = fj(d.per_useful_sample);
      x["decomposition"]["usd_per_step"] = fj(d.per_step);
      x["decomposition"]["usd_per_reward_bit"] = fj(d.per_reward_bit);
      x["explains"] = d.explains;
    }
    j["entries"].push_back(std::move(x));
  }
  return j;
}

}  // namespace rlcost::report
