// The HTML report's opening (your run as planned, its likely ranges), section 8
// (the whole run beyond its steps, its energy) and the tables of inputs, outputs and notes.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/strings.h"
#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

namespace {

std::string InputsTable(const Scenario& s) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"model", fmt::format("{} ({:g}B params, {:g}B active{})", s.model_id, s.model.params_b, s.model.active_params_b, s.model.is_moe() ? ", MoE" : "")},
      {"hardware", fmt::format("{} x {}", s.hardware.gpus, s.hardware.gpu.id)},
      {"GPU price", PriceSource(s)},
      {"placement", s.placement.mode == PlacementMode::kDisaggregated
                        ? fmt::format("disaggregated: {} rollout + {} train GPUs, rollout TP {}", s.placement.rollout_gpus, s.placement.train_gpus, s.placement.rollout_tp)
                        : fmt::format("colocated, rollout TP {}", s.placement.rollout_tp)},
      {"pipeline", fmt::format("{}{}", ToString(s.pipeline.mode), s.pipeline.mode == PipelineMode::kAsync ? fmt::format(", staleness {:g}, partial rollouts {}", s.pipeline.max_staleness, s.pipeline.partial_rollouts ? "on" : "off") : "")},
      {"precision", fmt::format("rollout {}, KV {}, train {}", ToString(s.precision.rollout), ToString(s.precision.kv_cache), ToString(s.precision.train))},
      {"environment", fmt::format("{}: {:.3g} turn{}, prompt {:.0f} tok, response {:.0f} tok/turn, tool output {:.0f} tok/turn, tool latency {:.3g} s", s.environment.name,
                                  s.environment.turns.mean(), s.environment.turns.mean() == 1 ? "" : "s", s.environment.prompt_tokens.mean(), s.environment.response_tokens.mean(),
                                  s.environment.tool_output_tokens.mean(), s.environment.tool_latency_s.mean())},
      {"pass rate", fmt::format("mean {:.3f}", s.environment.pass_rate.mean())},
      {"algorithm", fmt::format("{}, G = {}, {} prompts/step, {} steps{}{}", ToString(s.algorithm.name), s.algorithm.group_size, s.algorithm.prompts_per_step, s.algorithm.steps,
                                s.algorithm.dynamic_sampling ? ", dynamic sampling" : "",
                                s.algorithm.lora ? fmt::format(", LoRA rank {} x {} tenants", s.algorithm.lora->rank, s.algorithm.lora->tenants) : ", full fine-tuning")},
      {"goal", s.goal.target_pass_rate ? fmt::format("target pass rate {:.2f}", *s.goal.target_pass_rate) : "none"},
  };
  std::string h = "<table><tr><th>input</th><th style=\"text-align:left\">value</th></tr>";
  for (auto& [k, v] : rows) h += fmt::format("<tr><td>{}</td><td style=\"text-align:left\">{}</td></tr>", HtmlEscape(k), HtmlEscape(v));
  return h + "</table>";
}

std::string OutputsTable(const Estimate& a, const Estimate* sim) {
  std::string h = "<table><tr><th>metric</th><th>analytic</th>";
  if (sim) h += "<th>simulated</th>";
  h += "<th>unit</th><th style=\"text-align:left\">meaning</th></tr>";
  for (const auto& m : Metrics()) {
    auto v = m.get(a);
    std::optional<double> w = sim ? m.get(*sim) : std::nullopt;
    if (!v && !w) continue;
    h += fmt::format("<tr><td>{}</td><td>{}</td>", HtmlEscape(m.key), v ? HtmlEscape(FormatValue(*v, m.unit)) : "-");
    if (sim) h += fmt::format("<td>{}</td>", w ? HtmlEscape(FormatValue(*w, m.unit)) : "-");
    std::string meaning(m.description);
    if (std::string_view(m.key).substr(0, 5) == "goal." && a.goal.requested && a.goal.curve_is_illustrative) {
      meaning += " (rests on rlcost's ILLUSTRATIVE learning curve)";
    }
    // A dollar figure already reads "$7.12": its unit column stays empty
    // rather than say "USD" after it.
    h += fmt::format("<td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                     std::string_view(m.unit) == "USD" ? "" : HtmlEscape(m.unit), HtmlEscape(meaning));
  }
  return h + "</table>";
}

}  // namespace

std::string LayoutWords(const Scenario& s) {
  return s.placement.mode == PlacementMode::kDisaggregated
             ? fmt::format("disaggregated: {} rollout + {} train GPUs, rollout TP {}", s.placement.rollout_gpus,
                           s.placement.train_gpus, s.placement.rollout_tp)
             : fmt::format("colocated on {}, rollout TP {}", GpuCount(s.hardware.gpus), s.placement.rollout_tp);
}

// A figure of the user's run with its JSON key and its value, so a browser
// test can hold the text to `rlcost estimate --json`.
std::string Figure(const Estimate& e, std::string_view key, const std::string& text) {
  return fmt::format(R"(<b data-key="{}" data-value="{:.9g}">{}</b>)", key, Get(e, key), HtmlEscape(text));
}

// True when the goal's figures rest on rlcost's default learning curve.
bool IllustrativeGoal(const Estimate& e) { return e.goal.requested && e.goal.curve_is_illustrative; }

// The report's opening: the user's run as planned — the answer, where its time
// and dollars go, and the layout chosen with why (plan.* of the JSON).
std::string YourRunSection(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  const Estimate& e = *in.estimate;
  std::string h = "<section id=\"your-run\"><h2>Your run</h2>";
  h += "<div class=\"verdict\" id=\"answer\">" + Figure(e, "run.usd", Usd(Get(e, "run.usd"))) +
       fmt::format(" for the run: {} steps of ", sc.algorithm.steps) + Figure(e, "step.time_s", Sec(Get(e, "step.time_s"))) +
       " at " + Figure(e, "cost.usd_per_step", Usd(Get(e, "cost.usd_per_step"))) + " each on " +
       HtmlEscape(fmt::format("{} x {}", sc.hardware.gpus, sc.hardware.gpu.name.empty() ? sc.hardware.gpu.id : sc.hardware.gpu.name)) +
       "; " + Figure(e, "run.wall_time_h", FormatValue(Get(e, "run.wall_time_h"), "h") + " h") + " wall time, " +
       Figure(e, "cost.gpu_hours", FormatValue(Get(e, "cost.gpu_hours"), "GPU-h") + " GPU-hours") + ", " +
       Figure(e, "cost.usd_per_useful_sample", Usd(Get(e, "cost.usd_per_useful_sample"))) + " per useful sample.</div>";
  if (e.goal.requested) {
    if (e.goal.reachable) {
      h += "<p id=\"goal-answer\">To reach a pass rate of " + HtmlEscape(fmt::format("{:.2f}", e.goal.target_pass_rate)) + ": " +
           Figure(e, "goal.usd", Usd(e.goal.usd)) + " over " + Figure(e, "goal.steps", fmt::format("{:.0f}", e.goal.steps)) + " steps";
    } else {
      h += "<p id=\"goal-answer\">The target pass rate " + HtmlEscape(fmt::format("{:.2f}", e.goal.target_pass_rate)) +
           " is not reached: " + HtmlEscape(e.goal.reason);
    }
    if (IllustrativeGoal(e)) h += std::string(" — <span class=\"illustrative\">") + kIllustrativeLabel + ".</span>";
    h += "</p>";
  }
  if (e.energy.known) {
    h += "<p class=\"note\" id=\"energy-answer\">Energy at the GPU boards: " +
         Figure(e, "energy.kwh", FormatValue(e.energy.kwh, "kWh") + " kWh") + ", " +
         Figure(e, "energy.co2e_kg", fmt::format("{:.4g} kg", e.energy.co2e_kg)) +
         HtmlEscape(fmt::format(" CO2e on the {} grid (GPU boards only; host, network and cooling not included).", sc.energy.grid)) +
         "</p>";
  }
  // The split: this run alone (the comparisons with other stages follow below).
  const std::vector<Named> me = {{"your run", &e}};
  h += StackedBars("chart-run-step", "Where a step's time goes (wall seconds on the critical path)", me, StepParts(),
                   "seconds per step", false);
  const std::vector<Part>& usd_parts = UsdParts();
  h += StackedBars("chart-run-usd", "Where the run's dollars go (dollars for the whole run)", me, usd_parts,
                   "dollars for the run", false, "USD");
  // The layout: chosen by the planner (and why), or as the scenario states it.
  h += "<h3>The layout</h3>";
  if (e.plan) {
    const PlanSummary& p = *e.plan;
    h += "<p id=\"plan-chosen\">Chosen by rlcost's planner for the fewest " +
         std::string(p.objective == "time" ? "seconds per step" : "dollars per step") + ": <b>" + HtmlEscape(p.layout) +
         "</b> (" + HtmlEscape(fmt::format("{} layout{} tried, {} fit{} in memory", p.candidates,
                                               p.candidates == 1 ? "" : "s", p.fitting, p.fitting == 1 ? "s" : "")) + ").</p>";
    h += "<table id=\"plan-table\"><tr><th>layout</th><th>$ per step</th><th>step time</th><th style=\"text-align:left\">what</th></tr>";
    h += fmt::format("<tr data-row=\"chosen\"><td>chosen</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                     HtmlEscape(Usd(e.usd_per_step)), HtmlEscape(Sec(e.step.time_s)), HtmlEscape(p.layout));
    if (!p.runner_up.empty()) {
      h += fmt::format("<tr data-row=\"runner-up\" data-usd-per-step=\"{:.9g}\"><td>runner-up</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                       p.runner_up_usd_per_step, HtmlEscape(Usd(p.runner_up_usd_per_step)), HtmlEscape(Sec(p.runner_up_step_s)),
                       HtmlEscape(p.runner_up));
    }
    if (p.literal != p.layout) {
      h += fmt::format("<tr data-row=\"as-written\"><td>as written</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                       p.literal_usd_per_step ? HtmlEscape(Usd(*p.literal_usd_per_step)) : "does not run",
                       p.literal_step_s ? HtmlEscape(Sec(*p.literal_step_s)) : "-",
                       HtmlEscape(p.literal + (p.literal_error.empty() ? "" : ": " + p.literal_error)));
    }
    h += "</table><ul class=\"note\" id=\"plan-why\">";
    for (const auto& w : p.why) h += "<li>" + HtmlEscape(w) + "</li>";
    h += "</ul>";
  } else {
    h += "<p id=\"plan-chosen\">As the scenario states it: <b>" + HtmlEscape(LayoutWords(sc)) +
         "</b>. Nothing was planned: the scenario states every layout field (leave placement.rollout_tp out to let "
         "rlcost choose it).</p>";
  }
  return h + "</section>";
}

// The run's own learning curve (`rlcost report --progress LOG`): the logged
// points, the fitted curve, its band and the target (forecast/plot.h).

std::string LikelyRanges(const HtmlInput& in) {
  const Estimate& e = *in.estimate;
  std::string body;
  {
    // Likely ranges of the headline figures (econ/interval.h), per path shown.
    const std::pair<const char*, const char*> heads[] = {{"step.time_s", "step time"}, {"run.wall_time_h", "wall time"},
                                                         {"cost.gpu_hours", "GPU-hours"}, {"run.usd", "dollars for the run"},
                                                         {"goal.usd", "dollars to the goal"}};
    for (const Estimate* x : {&e, in.simulated}) {
      if (!x) continue;
      std::string ranges;
      for (const auto& [key, label] : heads) {
        std::string t = IntervalText(*x, key);
        if (!t.empty()) ranges += fmt::format("{}<b>{}</b> {}", ranges.empty() ? "" : " · ", label, HtmlEscape(t));
      }
      body += fmt::format("<p class=\"note\" id=\"interval-{0}\">Likely range ({0} estimate): {1}. {2}</p>", x->method,
                          ranges, HtmlEscape(IntervalSource(*x)));
    }
  }
  return body;
}

std::string WholeRunSection(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  const Estimate& e = *in.estimate;
  std::string body;
  // The run beyond its steps.
  body += "<section><h2>8. The whole run</h2><table><tr><th>part</th><th>hours</th><th>share</th>"
          "<th style=\"text-align:left\">what</th></tr>";
  {
    const RunBreakdown& r = e.run;
    const std::pair<const char*, double> parts[] = {{"steps", r.steps_h}, {"start-up", r.startup_h},
                                                    {"checkpoints", r.checkpoints_h}, {"evaluation", r.evaluation_h},
                                                    {"restarts", r.restarts_h}};
    for (const auto& [name, h] : parts) {
      const MetricDef* m = FindMetric(std::string("run.breakdown_h.") + (name == std::string("start-up") ? "startup" : name));
      body += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.1f}%</td><td style=\"text-align:left\">{}</td></tr>", name,
                          HtmlEscape(FormatValue(h, "h")), e.wall_time_h > 0 ? 100 * h / e.wall_time_h : 0.0,
                          m ? HtmlEscape(m->description) : "");
    }
    body += fmt::format("<tr><td><b>run</b></td><td><b>{}</b></td><td>100%</td><td style=\"text-align:left\">{} GPU-h, {}</td></tr>",
                        HtmlEscape(FormatValue(e.wall_time_h, "h")), HtmlEscape(FormatValue(e.gpu_hours, "GPU-h")),
                        HtmlEscape(Usd(Get(e, "run.usd"))));
  }
  body += "</table>";
  if (e.energy.known) {
    // docs/model.md, "Energy": one table of the run's electricity by phase, from the metric registry.
    body += "<h3>Energy</h3><table><tr><th>part</th><th>kWh</th><th>share</th><th style=\"text-align:left\">what</th></tr>";
    for (const char* part : {"rollout", "train", "other", "idle", "startup", "checkpoints", "evaluation", "restarts"}) {
      const MetricDef* m = FindMetric(std::string("energy.kwh_by_phase.") + part);
      const double v = m ? m->get(e).value_or(0) : 0;
      if (v <= 0) continue;
      body += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.1f}%</td><td style=\"text-align:left\">{}</td></tr>", part,
                          HtmlEscape(FormatValue(v, "kWh")), e.energy.kwh > 0 ? 100 * v / e.energy.kwh : 0.0,
                          HtmlEscape(m->description));
    }
    body += fmt::format("<tr><td><b>run</b></td><td><b>{}</b></td><td>100%</td><td style=\"text-align:left\">{} CO2e "
                        "on the {} grid ({:g} g/kWh: {}); GPU boards only, at measured shares of the {:.0f} W power "
                        "limit (host, network and cooling not included)</td></tr></table>",
                        HtmlEscape(FormatValue(e.energy.kwh, "kWh")), HtmlEscape(fmt::format("{:.4g} kg", e.energy.co2e_kg)),
                        HtmlEscape(sc.energy.grid), e.energy.g_co2e_per_kwh, HtmlEscape(sc.energy.grid_source),
                        sc.hardware.gpu.tdp_w);
  }
  body += "</section>";
  return body;
}

std::string TablesSection(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  const Estimate& e = *in.estimate;
  std::string body;
  // Tables.
  // One table to a section, each as wide as its section: a short inputs
  // table beside the long outputs one left a column of blank page.
  body += "<section id=\"inputs\"><h2>Inputs</h2>" + InputsTable(sc) + "</section>";
  body += "<section id=\"outputs\"><h2>Outputs</h2>" + OutputsTable(e, in.simulated) + "</section>";
  if (!e.assumptions.empty() || !e.signal.notes.empty() || !e.step.notes.empty()) {
    body += "<section><h2>Assumptions and notes</h2><ul class=\"note\">";
    for (const auto& a : e.assumptions) body += "<li>ASSUMED: " + HtmlEscape(a) + "</li>";
    for (const auto& a : e.signal.notes) body += "<li>signal: " + HtmlEscape(a) + "</li>";
    for (const auto& a : e.step.notes) body += "<li>" + HtmlEscape(a) + "</li>";
    body += "</ul></section>";
  }
  return body;
}

}  // namespace rlcost::report::html
