#include "api/validate_render.h"

#include "fit/interval.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "report/report.h"

namespace rlcost::api {
namespace {

using validate::Check;
using validate::PathResult;
using validate::Status;

std::string Num(double v) { return report::FormatValue(v, "s"); }
std::string Pct(double v) { return std::isfinite(v) ? fmt::format("{:+.1f}%", v * 100) : "n/a"; }
std::string AbsPct(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", v * 100) : "n/a"; }

std::string MetricLabel(const Check& c) {
  return c.relative_to.empty() ? c.key : c.key + " / " + c.relative_to;
}

std::string Summary(const PathResult& p) {
  if (!p.available) return "not available (" + p.reason + ")";
  int with_value = 0;
  for (const auto& c : p.checks) with_value += c.status == Status::kPass || c.status == Status::kFail;
  std::string s = fmt::format("median |error| {} over {} metrics (max {}); {} pass, {} fail",
                              AbsPct(p.median_abs_error), with_value, AbsPct(p.max_abs_error), p.passed, p.failed);
  if (p.unavailable) s += fmt::format(", {} not available", p.unavailable);
  return s;
}

// How often the published time figures fall inside the likely range that
// the estimates of this path print (econ/interval.h).
std::string CoverageLine(const PathResult& p) {
  const auto& b = interval::BandFor(ToString(p.path));
  auto in = interval::CoverageOf(p, b);
  auto loo = interval::LeaveOneRunOut(p);
  auto frac = [](const interval::Coverage& c) { return c.total ? AbsPct(double(c.inside) / c.total) : "n/a"; };
  return fmt::format("published step and wall times inside the 80% likely range: {} of {} ({}) with each run's band "
                     "read off the other runs only (leave one run out), target >= 80%; {} of {} ({}) in-sample with "
                     "the band the estimates carry ({:.2f}x..{:.2f}x, catalog/intervals.yaml: the smallest and largest "
                     "ratio of these figures with the files as written, so in-sample it holds all of them)",
                     loo.inside, loo.total, frac(loo), in.inside, in.total, frac(in), b.low, b.high);
}

// The out-of-sample line: the metrics of runs no catalog default was read off.
std::string OutOfSample(const PathResult& p) {
  if (!p.available) return "";
  if (p.oos_metrics == static_cast<int>(p.checks.size()) - p.unavailable) {
    return "out-of-sample: all of them (no catalog default was read off or fitted to these runs)";
  }
  if (p.oos_metrics == 0) {
    return "out-of-sample: none (a catalog default was fitted to every run here); the out-of-sample figure is the "
           "leave-one-out one: `rlcost validate` on this folder with `--fits`";
  }
  return fmt::format("out-of-sample (no catalog default read off or fitted to these runs): median |error| {} over {} metrics; "
                     "{} pass, {} fail",
                     AbsPct(p.oos_median_abs_error), p.oos_metrics, p.oos_passed, p.oos_failed);
}

std::string InSampleNote(const validate::Case& c) {
  std::string s;
  for (const auto* e : c.in_sample) s += (s.empty() ? "" : "; ") + e->figure + " (" + e->source + ")";
  return s;
}

std::string MdEscape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

std::string FactLine(const validate::Fact& f) { return fmt::format("{} = {} ({})", f.path, f.value, f.source); }

std::string Ratio(double v) { return std::isfinite(v) ? fmt::format("{:.2f}", v) : "n/a"; }

// Phase by phase: each metric over the cases that measure it (fit/validate.h,
// MetricSummary), the same figures in text, JSON and markdown.
std::string ByMetricMarkdown(const validate::Report& r) {
  bool any = false;
  for (const auto& p : r.paths) any |= p.available && !p.by_metric.empty();
  if (!any) return "";
  std::string md =
      "\n## Phase by phase\n\nEach metric over the cases that measure it: how many pass, and predicted / measured "
      "(median, smallest, largest). Below 1 the model is too fast (too cheap), above 1 too slow.\n\n"
      "| path | metric | cases | pass | median predicted / measured | range |\n|---|---|---|---|---|---|\n";
  for (const auto& p : r.paths) {
    if (!p.available) continue;
    for (const auto& m : p.by_metric) {
      md += fmt::format("| {} | `{}` | {} | {} | {} | {} .. {} |\n", ToString(p.path), m.key, m.cases, m.passed,
                        Ratio(m.median_ratio), Ratio(m.min_ratio), Ratio(m.max_ratio));
    }
  }
  return md;
}

std::string ByMetricText(const validate::PathResult& p) {
  std::string out;
  if (p.by_metric.size() < 2) return out;
  out += "  phase by phase (predicted / measured: median, range):\n";
  for (const auto& m : p.by_metric) {
    out += fmt::format("    {:<28} {:>2}/{:<2} pass  {}  ({} .. {})\n", m.key, m.passed, m.cases, Ratio(m.median_ratio),
                       Ratio(m.min_ratio), Ratio(m.max_ratio));
  }
  return out;
}

std::string ValidationToText(const validate::Report& r) {
  std::string out = fmt::format("rlcost validate — {} scenarios in {}/, {} with expectations\n", r.scenarios,
                                r.dir_name, r.cases.size());
  if (!r.facts_file.empty()) {
    out += fmt::format("\nfacts from {} (stated by each run's source, not in its file):\n", r.facts_file);
    for (const auto& c : r.cases) {
      for (const auto& f : c.facts) out += fmt::format("  {}: {}\n", c.file, FactLine(f));
    }
  }
  bool any_in_sample = false;
  for (const auto& c : r.cases) any_in_sample |= !c.in_sample.empty();
  if (any_in_sample) {
    out += "\nin-sample cases (a catalog default was read off the run's published figures or fitted to them; marked *):\n";
    for (const auto& c : r.cases) {
      if (!c.in_sample.empty()) out += fmt::format("  {}: {}\n", c.file, InSampleNote(c));
    }
  }
  for (const auto& p : r.paths) {
    out += fmt::format("\n{} path: {}\n", ToString(p.path), Summary(p));
    if (std::string oos = OutOfSample(p); !oos.empty()) out += "  " + oos + "\n";
    if (p.available) out += "  " + CoverageLine(p) + "\n";
    if (!p.available) continue;
    out += ByMetricText(p);
    out += fmt::format("  {:<42} {:<55} {:>10} {:>10} {:>8} {:>5}  {}\n", "case", "metric", "measured", "predicted",
                       "error", "tol", "result");
    for (const auto& c : p.checks) {
      out += fmt::format("  {:<42} {:<55} {:>10} {:>10} {:>8} {:>5}  {}\n", c.file, MetricLabel(c), Num(c.measured),
                         std::isfinite(c.predicted) ? Num(c.predicted) : "-", Pct(c.error),
                         fmt::format("{:.0f}%", c.tolerance * 100),
                         std::string(ToString(c.status)) + (c.in_sample ? " *" : ""));
      if (!c.message.empty()) out += "      " + c.message + "\n";
    }
  }
  out += r.AllPass() ? "\nall metrics within tolerance\n" : "\nsome metrics are out of tolerance\n";
  return out;
}

nlohmann::json ValidationToJson(const validate::Report& r) {
  using nlohmann::json;
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  json j;
  j["dir"] = r.dir_name;
  j["scenarios"] = r.scenarios;
  j["pass"] = r.AllPass();
  j["cases"] = json::array();
  if (!r.facts_file.empty()) j["facts_file"] = r.facts_file;
  for (const auto& c : r.cases) {
    json jc = {{"file", c.file}, {"scenario", c.scenario}, {"source", c.source}};
    jc["in_sample"] = json::array();
    for (const auto* e : c.in_sample) jc["in_sample"].push_back({{"figure", e->figure}, {"source", e->source}});
    if (!r.facts_file.empty()) {
      jc["facts"] = json::array();
      for (const auto& f : c.facts) jc["facts"].push_back({{"set", f.path}, {"value", f.value}, {"source", f.source}});
    }
    j["cases"].push_back(jc);
  }
  j["paths"] = json::array();
  for (const auto& p : r.paths) {
    json jp = {{"path", ToString(p.path)},        {"available", p.available},
               {"passed", p.passed},              {"failed", p.failed},
               {"unavailable", p.unavailable},    {"median_abs_error", num(p.median_abs_error)},
               {"max_abs_error", num(p.max_abs_error)}};
    jp["out_of_sample"] = {{"metrics", p.oos_metrics},
                           {"passed", p.oos_passed},
                           {"failed", p.oos_failed},
                           {"median_abs_error", num(p.oos_median_abs_error)}};
    if (!p.available) jp["reason"] = p.reason;
    if (p.available) {
      const auto& b = interval::BandFor(ToString(p.path));
      auto cov = interval::CoverageOf(p, b);
      auto loo = interval::LeaveOneRunOut(p);
      jp["interval_coverage"] = {{"inside", cov.inside}, {"total", cov.total}, {"low", b.low}, {"high", b.high},
                                 {"nominal", b.nominal},
                                 {"fraction", cov.total ? json(double(cov.inside) / cov.total) : json(nullptr)},
                                 {"leave_one_run_out", {{"inside", loo.inside}, {"total", loo.total},
                                                        {"fraction", loo.total ? json(double(loo.inside) / loo.total)
                                                                               : json(nullptr)}}}};
    }
    jp["by_metric"] = json::array();
    for (const auto& m : p.by_metric) {
      jp["by_metric"].push_back({{"metric", m.key}, {"cases", m.cases}, {"passed", m.passed},
                                 {"median_ratio", num(m.median_ratio)}, {"min_ratio", num(m.min_ratio)},
                                 {"max_ratio", num(m.max_ratio)}});
    }
    jp["checks"] = json::array();
    for (const auto& c : p.checks) {
      json jc = {{"file", c.file},         {"scenario", c.scenario},          {"metric", c.key},
                 {"measured", c.measured}, {"predicted", num(c.predicted)},   {"error", num(c.error)},
                 {"tolerance", c.tolerance}, {"status", ToString(c.status)}};
      if (!c.relative_to.empty()) jc["relative_to"] = c.relative_to;
      if (!c.message.empty()) jc["message"] = c.message;
      jc["in_sample"] = c.in_sample;
      jp["checks"].push_back(jc);
    }
    j["paths"].push_back(jp);
  }
  return j;
}

// Real training logs with their configs, what each showed (issue #25). Fixed
// text: these logs are not validation cases (no published expectation), they
// are evidence for the mechanisms in docs/model.md.
constexpr const char* kRealLogsSection = R"(
## Real training logs

Besides the published step and wall times above, three real veRL training logs that print their
config and per-phase timers were read (github eric-haibin-lin/verl-data, branch `experiments` @
f07af3291bd1c87fe8a7301cc3b883c0d2572720; parsed in `../shared/curves/`). They are not cases:
no figure of theirs is an expectation, and no default was read off them.

| log (gsm8k/) | run | per-step phases, median over the run | what it shows |
|---|---|---|---|
| `Qwen2.5-0.5B-bsz256_2-prompt1024-resp512-0.567.log` | veRL 50ac725, PPO + GAE critic, Qwen2.5-0.5B-Instruct, 1 GPU, 256 prompts x 1, micro-batch 2, `rollout.enforce_eager: True` | gen 17.8 s (27%), ref 5.4 s (8%), values 5.7 s (9%), update_critic 16.6 s (25%), update_actor 20.8 s (31%); 66.3 s a step | generation at >= 36 ms per decode iteration for a 24-layer 0.5B model whose weights and KV cache read in ~1-2 ms: launch-bound eager decoding ("Eager decoding" in docs/model.md); log-prob and update passes 10-12x rlcost's roofline time at micro-batch 2 and 4: fixed costs per micro-batch that rlcost does not model yet |
| `Qwen2.5-0.5B-bsz256_2-prompt512-resp256-0.538.log` | the same run at max response 256 | gen 17.1 s, ref 4.5 s, values 5.9 s, update_critic 15.7 s, update_actor 20.3 s | halving the response cap left generation time unchanged (19.0 vs 18.5 s over the first 20 steps): generation was not token-bound but dominated by per-step and per-iteration fixed costs |
| `gemma-2-2b-it-ppo-bsz512_4-prompt1024-resp-512-0.640.log` | veRL d60f843, PPO + critic, gemma-2-2b-it SFT, 2 GPUs (TP 2 rollout), 512 prompts x 1 | gen 45.0 s (33%), ref 11.3 s (8%), values 9.7 s (7%), update_critic 32.5 s (24%), update_actor 38.3 s (28%) | the same shape: generation a third of the step, the critic's update as long as the actor's |

`rlcost calibrate` on the first log (it now reads this early console format, `timing/gen` ...
without `timing_s/`; `tests/data/ingest/logs/verl_early_timing.log` holds its first steps) with
the run written as a scenario (Qwen2.5-0.5B inline, 1 x H100 assumed: the log does not name the
GPU) predicts 17.0 s a step against 66.3 s logged before the fit, 9.3 s of it with
`framework: verl@0.4` (eager decoding, but none of NeMo RL's refit offload that rlcost charges a
colocated run by default); fitting then needs decode_bw 0.014, train_mfu 0.029 and logprob_mfu
0.037. Fitted factors that small say the run was bound by fixed costs, not by bandwidth or FLOPs:
a small model at small micro-batches on a 2024 stack. A team budgeting such a run should
calibrate on its own log rather than trust the catalog's efficiencies.
)";

// Long (about 90 lines) on purpose: the page's sections in the order they
// are read, each a few lines of text around one table; split, each piece
// would only append to the same string.
std::string ValidationToMarkdown(const validate::Report& r) {
  std::string md;
  md += "# Validation against published runs\n\n";
  const std::string facts_name =
      r.facts_file.empty() ? "" : std::filesystem::path(r.facts_file).filename().string();
  md += fmt::format("<!-- Generated by `make docs` (`rlcost validate {}{} --markdown ...`). "
                    "Do not edit by hand. -->\n\n",
                    r.dir_name, facts_name.empty() ? "" : " --facts " + facts_name);
  md += fmt::format("Each case is a published run written as a scenario in `{}/`, with the measured figures "
                    "and their source in its `expect` block. Inputs a source does not state are marked "
                    "`assumed` in the file. A metric passes when |predicted / measured − 1| ≤ tolerance; "
                    "a ratio metric (`a / b.yaml`) compares this case's value divided by the other case's "
                    "with the published ratio.\n\n",
                    r.dir_name);
  if (facts_name.empty()) {
    md += "The files are run as written: where a file does not say which inference engine, critic or "
          "placement its run used, rlcost's defaults stand in (vLLM's per-iteration overhead, a critic for "
          "`ppo`).\n\n";
  } else {
    md += fmt::format("Here each case also gets the facts of `{}`: settings its published source states "
                      "(in its paper, blog, config or script) that the case file leaves out, each applied as a "
                      "`--set` override and listed below with where the source says so. Nothing in it is a "
                      "tuned number.\n\n## Facts from the sources\n\n| case | set | source |\n|---|---|---|\n",
                      facts_name);
    for (const auto& c : r.cases) {
      for (const auto& f : c.facts) {
        md += fmt::format("| `{}` | `{} = {}` | {} |\n", c.file, f.path, MdEscape(f.value), MdEscape(f.source));
      }
    }
    md += "\n";
  }
  md += "A case is *in-sample* when a catalog default was read off its run's published figures "
        "(`catalog/in-sample.yaml`): it cannot test that default, so the out-of-sample columns leave it "
        "(and every ratio involving it) out.\n\n";
  bool any_in_sample = false;
  for (const auto& c : r.cases) any_in_sample |= !c.in_sample.empty();
  if (any_in_sample) {
    md += "| in-sample case | default read off or fitted to its run |\n|---|---|\n";
    for (const auto& c : r.cases) {
      if (!c.in_sample.empty()) md += fmt::format("| `{}` | {} |\n", c.file, MdEscape(InSampleNote(c)));
    }
    md += "\n";
  } else {
    md += "No case is in-sample: no catalog default was read off or fitted to these runs.\n\n";
  }
  md += "## Summary\n\n| path | metrics | pass | fail | median abs. error | max abs. error | out-of-sample metrics "
        "| out-of-sample pass | out-of-sample median abs. error |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : r.paths) {
    if (!p.available) {
      md += fmt::format("| {} | not available: {} | | | | | | | |\n", ToString(p.path), MdEscape(p.reason));
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", ToString(p.path), p.checks.size(),
                      p.passed, p.failed, AbsPct(p.median_abs_error), AbsPct(p.max_abs_error), p.oos_metrics,
                      p.oos_passed, AbsPct(p.oos_median_abs_error));
  }
  md += ByMetricMarkdown(r);
  md += "\n## Likely ranges\n\nEvery headline figure of `estimate`, `simulate`, `waterfall`, `price` and the HTML report carries an 80% likely range: "
        "its value divided by the upper and by the lower bound of a distribution-free 80% prediction band for predicted / "
        "measured, read off the step and wall times below (order statistics j and n+1-j, j = max(1, floor(0.1 (n+1))); "
        "`catalog/intervals.yaml`, written by `rlcost validate ../shared/validation --intervals`). The honest figure is "
        "the leave-one-run-out coverage: each run checked against the band read off the other runs only; the in-sample "
        "coverage is shown beside it (the band spans the smallest and largest ratio of the files as written, so it "
        "holds all of those by construction).\n\n";
  for (const auto& p : r.paths) {
    if (p.available) md += "- " + std::string(ToString(p.path)) + ": " + MdEscape(CoverageLine(p)) + "\n";
  }
  md += "\n## Cases\n\n| file | run | source |\n|---|---|---|\n";
  for (const auto& c : r.cases) {
    md += fmt::format("| `{}` | {} | {} |\n", c.file, MdEscape(c.scenario), MdEscape(c.source));
  }
  for (const auto& p : r.paths) {
    md += fmt::format("\n## {} path\n\n", p.path == validate::Path::kAnalytic ? "Analytic" : "Simulated");
    if (!p.available) {
      md += "Not available: " + MdEscape(p.reason) + "\n";
      continue;
    }
    md += "| case | metric | measured | predicted | error | tolerance | result |\n|---|---|---|---|---|---|---|\n";
    for (const auto& c : p.checks) {
      md += fmt::format("| `{}` | `{}`{} | {} | {} | {} | {:.0f}% | {} |\n", c.file, c.key,
                        c.relative_to.empty() ? "" : " / `" + c.relative_to + "`", Num(c.measured),
                        std::isfinite(c.predicted) ? Num(c.predicted) : "–", Pct(c.error), c.tolerance * 100,
                        (c.message.empty() ? std::string(ToString(c.status))
                                           : std::string(ToString(c.status)) + ": " + MdEscape(c.message)) +
                            (c.in_sample ? " (in-sample)" : ""));
    }
  }
  md += kRealLogsSection;
  return md;
}

std::string CalibrationFitToText(const calib::FitResult& f, const calib::TrainingLog& log) {
  const Calibration& c = f.calibration;
  std::string out = fmt::format("rlcost calibrate — {} logged steps from {} ({}), GPU {}\n", c.steps, c.source,
                                log.format, c.gpu_id);
  if (!c.scenario.empty()) out += "  scenario: " + c.scenario + "\n";
  out += fmt::format("\n  {:<12} {:>6} {:>12} {:>12} {:>12} {:>11} {:>11}  {}\n", "phase", "points", "logged mean",
                     "pred before", "pred after", "rms before", "rms after", "fitted");
  for (const auto& p : f.phases) {
    out += fmt::format("  {:<12} {:>6} {:>12} {:>12} {:>12} {:>11} {:>11}  {}\n", p.phase, p.points,
                       Num(p.logged_mean_s) + " s", Num(p.predicted_before_mean_s) + " s",
                       Num(p.predicted_after_mean_s) + " s", AbsPct(p.error_before), AbsPct(p.error_after),
                       p.field.empty() ? "-" : p.field);
  }
  out += fmt::format("\n  {:<24} {:>10} {:>10}\n", "factor", "catalog", "fitted");
  for (const auto& fld : calib::EfficiencyFields()) {
    bool fitted = std::find(c.fitted.begin(), c.fitted.end(), fld.name) != c.fitted.end();
    out += fmt::format("  {:<24} {:>10.4g} {:>10}\n", fld.name, f.before.*(fld.member),
                       fitted ? fmt::format("{:.4g}", c.efficiency.*(fld.member)) : "(kept)");
  }
  if (!c.notes.empty()) {
    out += "\n  notes:\n";
    for (const auto& n : c.notes) out += "  - " + n + "\n";
  }
  double rel = f.logged_step_mean_s > 0 ? f.predicted_step_mean_after_s / f.logged_step_mean_s - 1 : 0;
  out += fmt::format("\n  step time: relative RMS error {} before, {} after; this run's predicted mean step "
                     "{} s vs logged {} s ({})\n",
                     AbsPct(c.error_before), AbsPct(c.error_after), Num(f.predicted_step_mean_after_s),
                     Num(f.logged_step_mean_s), Pct(rel));
  return out;
}

nlohmann::json CalibrationFitToJson(const calib::FitResult& f, const calib::TrainingLog& log) {
  using nlohmann::json;
  const Calibration& c = f.calibration;
  json j = {{"source", c.source},
            {"format", log.format},
            {"scenario", c.scenario},
            {"gpu", c.gpu_id},
            {"steps", c.steps},
            {"error_before", c.error_before},
            {"error_after", c.error_after},
            {"logged_step_mean_s", f.logged_step_mean_s},
            {"predicted_step_mean_s", f.predicted_step_mean_after_s},
            {"fitted", c.fitted},
            {"notes", c.notes}};
  // Measured: the log's mean share of responses at the maximum length (null when not logged).
  j["response_clip_ratio"] = c.response_clip_ratio ? json(*c.response_clip_ratio) : json(nullptr);
  for (const auto& fld : calib::EfficiencyFields()) {
    j["efficiency_before"][fld.name] = f.before.*(fld.member);
    j["efficiency"][fld.name] = c.efficiency.*(fld.member);
  }
  j["phases"] = json::array();
  for (const auto& p : f.phases) {
    j["phases"].push_back({{"phase", p.phase},
                           {"field", p.field},
                           {"points", p.points},
                           {"logged_mean_s", p.logged_mean_s},
                           {"predicted_before_mean_s", p.predicted_before_mean_s},
                           {"predicted_after_mean_s", p.predicted_after_mean_s},
                           {"error_before", p.error_before},
                           {"error_after", p.error_after}});
  }
  return j;
}

}  // namespace rlcost::api
