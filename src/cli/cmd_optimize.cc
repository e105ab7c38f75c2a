// `rlcost optimize [FILE] --minimize METRIC [--subject-to 'run.wall_time_h<=168' ...]
//   [--over KEY=V1,V2|LO..HI[:STEP] ...] [--top N] [--json]`
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/common.h"
#include "api/illustrative.h"
#include "explore/optimize.h"
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
};

nlohmann::json CandidateJson(const explore::Candidate& c, const explore::Design& d, const std::string& objective) {
  nlohmann::json j;
  j["point"] = c.row.index;
  for (size_t a = 0; a < d.axes().size(); ++a) j["config"][d.axes()[a].key] = c.row.values[a];
  j[objective] = c.objective;
  j["run.wall_time_h"] = c.wall_time_h;
  if (!c.row.goal_curve.empty()) j["goal_curve"] = c.row.goal_curve;  // what a goal figure here rests on
  return j;
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
  if (!bad.problems.empty()) return PrintError(bad, a.json);
  const auto over = a.over.empty() ? explore::DefaultSpace(*catalog) : a.over;
  std::vector<explore::Axis> axes;
  for (const auto& v : over) {
    auto axis = explore::ParseAxis(v);
    if (!axis) { add(axis.error()); continue; }
    axes.push_back(*axis);
  }
  if (!bad.problems.empty()) return PrintError(bad, a.json);
  auto design = explore::Design::Grid(axes, 10'000'000);
  if (!design) return PrintError(design.error(), a.json);
  auto doc = scenario_internal::ScenarioDocument::FromFile(a.file);
  if (!doc) return PrintError(doc.error(), a.json);
  if (auto ok = explore::Check(*doc, *catalog, *design, opt.sweep.fixed); !ok) return PrintError(ok.error(), a.json);
  opt.top = a.top;
  opt.sweep.threads = a.jobs;
  auto r = explore::Optimize(*doc, *catalog, *design, opt);
  if (!r) return PrintError(r.error(), a.json);
  const std::string obj(opt.objective->key);
  // Does the answer rest on the illustrative learning curve? Each candidate's
  // row says what its goal figures (objective or constraint) rest on.
  std::set<std::string> curves;
  for (const auto* list : {&r->best, &r->front}) {
    for (const auto& c : *list) {
      if (!c.row.goal_curve.empty()) curves.insert(c.row.goal_curve);
    }
  }
  const std::vector<std::string> curve_notes =
      api::SweepCurveNotes(curves, curves.size() > 1 ? "each configuration says which curve its figures rest on"
                                                     : "it holds for every configuration listed");
  nlohmann::json curve_flags = {{"goal_curve_is_illustrative", curves.count("illustrative") > 0}};
  if (curves.size() == 1) curve_flags["goal_curve"] = *curves.begin();
  if (!curve_notes.empty()) curve_flags["notes"] = curve_notes;
  // Several curves among the configurations (goal.curve varied): each line names its own.
  auto curve_of = [&](const explore::Candidate& c) {
    return curves.size() > 1 && !c.row.goal_curve.empty() ? " [goal curve: " + c.row.goal_curve + "]" : std::string();
  };
  if (a.json) {
    nlohmann::json j;
    j["minimize"] = obj;
    for (const auto& [k, v] : curve_flags.items()) j[k] = v;
    j["subject_to"] = a.subject_to;
    j["points"] = r->points;
    j["points_that_ran"] = r->ran;
    j["points_feasible"] = r->feasible;
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
  if (r->best.empty()) {
    std::cout << "no configuration meets the constraints";
    if (!r->binding.empty()) std::cout << " (" << r->binding.front() << " rules out every one that runs)";
    std::cout << "\n";
    return 3;
  }
  std::cout << "\nbest configurations:\n";
  for (size_t i = 0; i < r->best.size(); ++i) {
    const auto& c = r->best[i];
    std::string cfg;
    for (size_t k = 0; k < design->axes().size(); ++k) cfg += fmt::format(" {}={}", design->axes()[k].key, c.row.values[k]);
    std::cout << fmt::format("  {}. {} = {:.4g}, {:.3g} h wall:{}{}\n", i + 1, obj, c.objective, c.wall_time_h, cfg,
                             curve_of(c));
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
  for (const auto& c : r->front) {
    std::string cfg;
    for (size_t k = 0; k < design->axes().size(); ++k) cfg += fmt::format(" {}={}", design->axes()[k].key, c.row.values[k]);
    std::cout << fmt::format("  {:>9.3g} h  {:>11.4g}  {}{}\n", c.wall_time_h, c.objective, cfg, curve_of(c));
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
                  "search KEY=V1,V2,... or KEY=LO..HI[:STEP]; repeatable (default: GPU type and count, rollout TP, "
                  "rollout precision, sync/async, group size)");
  sub->add_option("--top", a->top, "configurations to print (default 5)");
  sub->add_option("--jobs", a->jobs, "threads (default: every core)");
  sub->add_option("--set", a->sets, "fix a scenario field in every configuration; repeatable");
  sub->add_option("--catalog", a->catalog_files, "extra catalog file; repeatable");
  sub->add_flag("--json", a->json, "print JSON");
  sub->callback([a, &exit_code] { exit_code = Run(*a); });
}

}  // namespace rlcost::cli
