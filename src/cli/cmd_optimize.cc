// `rlcost optimize [FILE] --minimize METRIC [--subject-to 'run.wall_time_h<=168' ...]
//   [--over KEY=V1,V2|LO..HI[:STEP] ...] [--top N] [--json]`
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/common.h"
#include "api/illustrative.h"
#include "explore/optimize.h"
#include "rlcost/estimate.h"
#include "scenario/document.h"

namespace rlcost::cli {
namespace {

struct OptimizeArgs {
  std::string file;
  std::string minimize;
  std::vector<std::string> subject_to, over, sets, catalog_files;
  size_t top = 5;
  unsigned jobs = 0;
  bool json = false;
  bool no_plan = false;   // --no-plan: every configuration's placement read as written
  std::string plan_for;   // --plan-for cost|time; default: time for a time metric, else cost
};

// How the configuration ran: the layout (planned or as written) and the pipeline as the model runs it.
nlohmann::json RunsAsJson(const explore::Effective& e) {
  const auto& l = e.layout;
  nlohmann::json j;
  j["placement.mode"] = l.mode == PlacementMode::kColocated ? "colocated" : "disaggregated";
  j["placement.rollout_gpus"] = l.rollout_gpus;
  j["placement.train_gpus"] = l.train_gpus;
  j["placement.rollout_tp"] = l.rollout_tp;
  j["placement.dp_attention"] = l.dp_attention;
  j["placement.gpu_memory_utilization"] =
      l.gpu_memory_utilization ? nlohmann::json(*l.gpu_memory_utilization) : nlohmann::json(nullptr);
  j["pipeline.mode"] = e.pipeline == PipelineMode::kAsync ? "async" : "sync";
  j["pipeline.max_staleness"] = e.pipeline == PipelineMode::kAsync ? nlohmann::json(e.staleness) : nlohmann::json(nullptr);
  j["text"] = explore::Describe(e);
  return j;
}

nlohmann::json CandidateJson(const explore::Candidate& c, const explore::Design& d, const std::string& objective) {
  nlohmann::json j;
  j["point"] = c.row.index;
  for (size_t a = 0; a < d.axes().size(); ++a) j["config"][d.axes()[a].key] = c.row.values[a];
  j[objective] = c.objective;
  j["run.wall_time_h"] = c.wall_time_h;
  if (!c.row.goal_curve.empty()) j["goal_curve"] = c.row.goal_curve;  // what a goal figure here rests on
  j["runs_as"] = c.row.effective ? RunsAsJson(*c.row.effective) : nlohmann::json(nullptr);
  j["note"] = c.row.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.row.note);
  return j;
}

// The unit a column header shows: the metric registry's, dollars as "$".
std::string UnitWords(std::string_view unit) {
  std::string u(unit);
  if (auto i = u.find("USD"); i != std::string::npos) u.replace(i, 3, "$");
  return u;
}

// The unit of a searched scenario field (an --over KEY), read off its name;
// "" for a choice (a GPU type, a precision, a mode), which has none.
std::string_view AxisUnit(std::string_view key) {
  auto ends = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
  };
  if (ends("gpus") || ends("_tp") || ends("_pp") || ends("_dp") || ends("_ep") || ends("nodes")) {
    return ends("nodes") ? "nodes" : "GPUs";
  }
  if (ends("group_size")) return "rollouts per prompt";
  if (ends("prompts_per_step")) return "prompts per step";
  if (ends("tokens")) return "tokens";
  if (ends("price_per_gpu_hour")) return "$ per GPU-hour";
  if (ends("staleness")) return "steps";
  if (ends("steps")) return "steps";
  if (ends("_s")) return "s";
  if (ends("_h")) return "h";
  if (ends("pass_rate") || ends("pass_rate.mean")) return "fraction solved";
  if (ends("turns")) return "turns";
  return "";
}

std::string WithUnit(std::string_view name, std::string_view unit) {
  return unit.empty() ? std::string(name) : fmt::format("{} ({})", name, unit);
}

// Rows under headers, each column as wide as its widest cell; numbers right-aligned.
void PrintTable(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(headers.size());
  std::vector<bool> numeric(headers.size(), true);
  for (size_t k = 0; k < headers.size(); ++k) w[k] = headers[k].size();
  for (const auto& r : rows) {
    for (size_t k = 0; k < r.size(); ++k) {
      w[k] = std::max(w[k], r[k].size());
      char* end = nullptr;
      std::strtod(r[k].c_str(), &end);
      numeric[k] = numeric[k] && !r[k].empty() && end && *end == '\0';
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = " ";
    for (size_t k = 0; k < cells.size(); ++k) {
      out += "  " + (numeric[k] ? fmt::format("{:>{}}", cells[k], w[k]) : fmt::format("{:<{}}", cells[k], w[k]));
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::cout << out << "\n";
  };
  line(headers);
  for (const auto& r : rows) line(r);
}

// The headers of a table of configurations: the objective and the wall time,
// each with its unit, then every searched field with its own.
std::vector<std::string> ConfigHeaders(const explore::Design& d, const std::string& obj, bool numbered) {
  std::vector<std::string> h;
  if (numbered) h.push_back("#");
  const MetricDef* m = FindMetric(obj);
  h.push_back(WithUnit(obj, m ? UnitWords(m->unit) : ""));
  h.push_back(WithUnit("wall time", "h"));
  for (const auto& axis : d.axes()) h.push_back(WithUnit(axis.key, AxisUnit(axis.key)));
  return h;
}

std::vector<std::string> ConfigRow(const explore::Candidate& c, const explore::Design& d, std::optional<size_t> number) {
  std::vector<std::string> r;
  if (number) r.push_back(fmt::format("{}", *number));
  r.push_back(fmt::format("{:.4g}", c.objective));
  r.push_back(fmt::format("{:.3g}", c.wall_time_h));
  for (size_t k = 0; k < d.axes().size(); ++k) r.push_back(c.row.values[k]);
  return r;
}

int Run(const OptimizeArgs& a) {
  Error bad;
  auto add = [&](const Error& e) { for (const auto& p : e.problems) bad.problems.push_back(p); };
  explore::OptimizeOptions opt;
  if (auto m = explore::MetricByName(a.minimize, "--minimize"); m) opt.objective = *m; else add(m.error());
  for (const auto& t : a.subject_to) {
    if (auto c = explore::ParseConstraint(t); c) opt.constraints.push_back(*c); else add(c.error());
  }
  if (opt.constraints.size() > 32) add(Error::Invalid("", "more than 32 --subject-to; expected fewer"));
  for (const auto& s : a.sets) {
    if (auto o = ParseOverride(s); o) opt.sweep.fixed.push_back(*o); else add(o.error());
  }
  Common common;
  common.catalog_files = a.catalog_files;
  auto catalog = LoadCatalog(common);
  if (!catalog) add(catalog.error());
  if (!a.no_plan) {
    std::string what = a.plan_for;
    if (what.empty()) what = opt.objective && (opt.objective->unit == "h" || opt.objective->unit == "s") ? "time" : "cost";
    if (auto o = plan::ObjectiveFromString(what); o) opt.sweep.plan = *o; else add(o.error());
  }
  if (!bad.problems.empty()) return PrintError(bad, a.json);
  const auto over = a.over.empty() ? explore::DefaultSpace(*catalog, !a.no_plan) : a.over;
  std::vector<explore::Axis> axes;
  for (const auto& v : over) {
    auto axis = explore::ParseAxis(v);
    if (!axis) { add(axis.error()); continue; }
    axes.push_back(*axis);
  }
  if (!bad.problems.empty()) return PrintError(bad, a.json);
  // At most 20,000 points: each is a planned estimate (about 1k a second on a
  // core, docs/performance.md), so an open range (hardware.gpus=8..1000000:8,
  // 124,999 points) took minutes and printed a front of as many rows (#40).
  constexpr uint64_t kMaxOptimizePoints = 20'000;
  uint64_t points = axes.empty() ? 0 : 1;
  for (const auto& axis : axes) {
    const uint64_t n = std::max<uint64_t>(1, axis.values.size());
    points = points > kMaxOptimizePoints / n ? kMaxOptimizePoints + 1 : points * n;
  }
  if (points > kMaxOptimizePoints) {
    return PrintError(Error::Invalid("--over", fmt::format("the search has more than {} points (the product of the "
                                                           "ranges' value counts); expected at most {}: narrow a "
                                                           "range or take a larger :STEP",
                                                           kMaxOptimizePoints, kMaxOptimizePoints)),
                      a.json);
  }
  auto design = explore::Design::Grid(axes, kMaxOptimizePoints);
  if (!design) return PrintError(design.error(), a.json);
  auto doc = scenario_internal::ScenarioDocument::FromFile(a.file);
  if (!doc) return PrintError(doc.error(), a.json);
  if (auto ok = explore::Check(*doc, *catalog, *design, opt.sweep.fixed); !ok) return PrintError(ok.error(), a.json);
  opt.top = a.top;
  opt.sweep.threads = a.jobs;
  auto r = explore::Optimize(*doc, *catalog, *design, opt);
  if (!r) return PrintError(r.error(), a.json);
  const std::string obj(opt.objective->key);
  // Fields the scenario writes are kept in every configuration: say so.
  std::string kept;
  if (opt.sweep.plan) {
    Common sc;
    sc.catalog_files = a.catalog_files;
    sc.sets = a.sets;
    if (auto base = LoadScenario(a.file, *catalog, sc)) {
      const auto& st = base->placement.stated;
      for (auto [on, name] : {std::pair{st.mode, "placement.mode"}, std::pair{st.split, "placement.rollout_gpus/train_gpus"},
                              std::pair{st.rollout_tp, "placement.rollout_tp"}}) {
        // A field the user searches with --over is not kept as written.
        const std::string n(name);
        bool searched = false;
        for (const auto& axis : design->axes()) {
          if (n == axis.key || (n.find('/') != std::string::npos &&
                                (axis.key == "placement.rollout_gpus" || axis.key == "placement.train_gpus"))) {
            searched = true;
          }
        }
        if (on && !searched) kept += (kept.empty() ? "" : ", ") + n;
      }
    }
  }
  // Does the answer rest on the illustrative learning curve? Each candidate's
  // row says what its goal figures (objective or constraint) rest on.
  std::set<std::string> curves;
  for (const auto* list : {&r->best, &r->front}) {
    for (const auto& c : *list) {
      if (!c.row.goal_curve.empty()) curves.insert(c.row.goal_curve);
    }
  }
  const std::vector<std::string> curve_notes =
      api::SweepCurveNotes(curves, curves.size() > 1 ? "the goal curve column says which curve each configuration's figures rest on"
                                                     : "it holds for every configuration listed");
  nlohmann::json curve_flags = {{"goal_curve_is_illustrative", curves.count("illustrative") > 0}};
  if (curves.size() == 1) curve_flags["goal_curve"] = *curves.begin();
  if (!curve_notes.empty()) curve_flags["notes"] = curve_notes;
  if (a.json) {
    nlohmann::json j;
    j["minimize"] = obj;
    for (const auto& [k, v] : curve_flags.items()) j[k] = v;
    j["subject_to"] = a.subject_to;
    j["points"] = r->points;
    j["points_that_ran"] = r->ran;
    j["points_feasible"] = r->feasible;
    j["points_same_run_as_a_better_one"] = r->same_run;
    j["points_disaggregated"] = r->disaggregated;
    j["layout_fields_kept_as_written"] = kept;
    j["layout_planned_for"] = opt.sweep.plan ? nlohmann::json(*opt.sweep.plan == plan::Objective::kTime ? "time" : "cost")
                                             : nlohmann::json(nullptr);
    j["best"] = nlohmann::json::array();
    for (const auto& c : r->best) j["best"].push_back(CandidateJson(c, *design, obj));
    j["binding_constraints"] = r->binding;
    j["best_at_edge_of_space"] = r->at_edge;
    j["pareto_front"] = nlohmann::json::array();
    for (const auto& c : r->front) j["pareto_front"].push_back(CandidateJson(c, *design, obj));
    std::cout << Dump(j) << "\n";
    return r->best.empty() ? 3 : 0;
  }
  std::cout << fmt::format("searched {} configurations ({} ran, {} meet every constraint); minimising {}\n",
                           r->points, r->ran, r->feasible, obj);
  for (const auto& note : curve_notes) std::cout << "note: " << note << "\n";
  if (opt.sweep.plan) {
    std::cout << fmt::format("layout of each planned for {} (colocated and disaggregated splits, rollout TP); {} ran "
                             "disaggregated\n",
                             *opt.sweep.plan == plan::Objective::kTime ? "the shortest step" : "the fewest dollars per step",
                             r->disaggregated);
  }
  if (!kept.empty()) {
    const bool one = kept.find(", ") == std::string::npos;
    std::cout << "note: " << kept << (one ? " as the scenario writes it" : " as the scenario writes them")
              << " in every configuration; leave " << (one ? "it" : "them") << " out (or --over "
              << (one ? "it" : "them") << ") to search " << (one ? "it" : "them") << "\n";
  }
  if (r->same_run > 0) {
    std::cout << fmt::format("{} configurations run exactly as a better one (e.g. async on shared GPUs runs "
                             "synchronously) and are listed once\n",
                             r->same_run);
  }
  if (r->best.empty()) {
    std::cout << "no configuration meets the constraints";
    if (!r->binding.empty()) std::cout << " (" << r->binding.front() << " rules out every one that runs)";
    std::cout << "\n";
    return 3;
  }
  // Where configurations rest on different goal curves (--over goal.curve=...),
  // a last column names each one's.
  auto with_curve = [&](std::vector<std::string> headers, std::vector<std::vector<std::string>> rows,
                        const std::vector<explore::Candidate>& cs) {
    if (curves.size() > 1) {
      headers.push_back("goal curve");
      for (size_t i = 0; i < rows.size(); ++i) rows[i].push_back(cs[i].row.goal_curve.empty() ? "-" : cs[i].row.goal_curve);
    }
    PrintTable(headers, rows);
  };
  std::cout << "\nbest configurations (lowest " << obj << " first):\n";
  std::vector<std::vector<std::string>> best;
  for (size_t i = 0; i < r->best.size(); ++i) best.push_back(ConfigRow(r->best[i], *design, i + 1));
  with_curve(ConfigHeaders(*design, obj, true), best, r->best);
  // How each listed configuration runs (its planned layout and pipeline), and its note.
  for (size_t i = 0; i < r->best.size(); ++i) {
    const auto& c = r->best[i];
    if (c.row.effective) std::cout << fmt::format("  {}. runs as: {}\n", i + 1, explore::Describe(*c.row.effective));
    if (!c.row.note.empty()) std::cout << fmt::format("  {}. note: {}\n", i + 1, c.row.note);
  }
  std::cout << "\nwhat binds: ";
  if (!r->binding.empty()) {
    std::string b;
    for (const auto& s : r->binding) b += (b.empty() ? "" : ", ") + s;
    std::cout << b << " (relaxing it alone finds a lower " << obj << ")";
  } else {
    std::cout << "no constraint";
  }
  if (!r->at_edge.empty()) {
    std::string e;
    for (const auto& s : r->at_edge) e += (e.empty() ? "" : ", ") + s;
    std::cout << "; the best sits at the edge of the searched range for " << e << " (widen --over to look further)";
  }
  std::cout << "\n\nPareto front (" << obj << " vs wall time; no other configuration is both cheaper and faster):\n";
  std::vector<std::vector<std::string>> front;
  for (const auto& c : r->front) front.push_back(ConfigRow(c, *design, std::nullopt));
  with_curve(ConfigHeaders(*design, obj, false), front, r->front);
  // How each row of the front runs, as for the best configurations (a row that
  // is also one of those says which).
  for (size_t i = 0; i < r->front.size(); ++i) {
    const auto& c = r->front[i];
    std::optional<size_t> same;
    for (size_t k = 0; k < r->best.size() && !same; ++k) {
      if (r->best[k].row.values == c.row.values) same = k + 1;
    }
    if (same) {
      std::cout << fmt::format("  row {} of the front is best configuration {}\n", i + 1, *same);
    } else if (c.row.effective) {
      std::cout << fmt::format("  row {} of the front runs as: {}\n", i + 1, explore::Describe(*c.row.effective));
    }
  }
  return 0;
}

}  // namespace

void RegisterOptimize(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<OptimizeArgs>();
  auto* sub = app.add_subcommand("optimize", "the best configurations under constraints, what binds, the Pareto front");
  sub->add_option("file", a->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--minimize", a->minimize, "metric to minimise, e.g. goal.usd or run.usd")->required();
  sub->add_option("--subject-to", a->subject_to, "constraint METRIC<=VALUE (<, >=, >), e.g. run.wall_time_h<=168; repeatable");
  sub->add_option("--over", a->over,
                  "search KEY=V1,V2,... or KEY=LO..HI[:STEP]; repeatable (default: GPU type and count, rollout "
                  "precision, sync/async, group size; the layout of each is planned)");
  sub->add_option("--top", a->top, "configurations to print (default 5)");
  sub->add_option("--jobs", a->jobs, "threads (default: every core)");
  sub->add_option("--set", a->sets, "fix a scenario field in every configuration; repeatable");
  sub->add_option("--catalog", a->catalog_files, "extra catalog file; repeatable");
  sub->add_flag("--no-plan", a->no_plan,
                "read every configuration's placement as written instead of planning the fields it leaves out");
  sub->add_option("--plan-for", a->plan_for,
                  "what the layout planner minimises in each configuration: cost or time (default: time when "
                  "minimising a time, else cost)");
  sub->add_flag("--json", a->json, "print JSON");
  sub->callback([a, &exit_code] { exit_code = Run(*a); });
}

}  // namespace rlcost::cli
