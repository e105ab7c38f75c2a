// `rlcost optimize [FILE] --minimize METRIC [--subject-to 'run.wall_time_h<=168' ...]
//   [--over KEY=V1,V2|LO..HI[:STEP] ...] [--top N] [--json]`
#include <iostream>
#include <memory>

#include "api/optimize_op.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

// The flags fill the request's fields; --no-plan is its `plan` turned off.
struct OptimizeArgs {
  ops::OptimizeInput in;
  bool json = false;
  bool no_plan = false;
};

int Run(const OptimizeArgs& a) {
  ops::OptimizeInput in = a.in;
  in.plan = !a.no_plan;
  auto r = ops::OptimizeView(in);
  if (!r) return PrintError(r.error(), a.json);
  PrintWarnings(r->view.warnings);
  std::cout << (a.json ? Dump(r->view.json) + "\n" : AsFlags(r->view.text));
  return r->found ? 0 : 3;
}

}  // namespace

void RegisterOptimize(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<OptimizeArgs>();
  auto* sub = app.add_subcommand("optimize", "the best configurations under constraints, what binds, the Pareto front");
  sub->add_option("file", a->in.file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--minimize", a->in.minimize, "metric to minimise, e.g. goal.usd or run.usd")->required();
  AddRepeatable(sub, "--subject-to", a->in.subject_to, "constraint METRIC<=VALUE (<, >=, >), e.g. run.wall_time_h<=168; repeatable");
  AddRepeatable(sub, "--over", a->in.over,
                  "search KEY=V1,V2,... or KEY=LO..HI[:STEP]; repeatable (default: GPU type and count, rollout "
                  "precision, sync/async, group size; the layout of each is planned)");
  sub->add_option("--top", a->in.top, "configurations to print (default 5)");
  sub->add_option("--jobs", a->in.jobs, "threads (default: every core)");
  AddRepeatable(sub, "--set", a->in.sets, "fix a scenario field in every configuration; repeatable");
  AddRepeatable(sub, "--catalog", a->in.catalog_files, "extra catalog file; repeatable");
  sub->add_flag("--no-plan", a->no_plan,
                "read every configuration's placement as written instead of planning the fields it leaves out");
  sub->add_option("--plan-for", a->in.plan_for,
                  "what the layout planner minimises in each configuration: cost or time (default: time when "
                  "minimising a time, else cost)");
  sub->add_flag("--json", a->json, "print JSON");
  sub->callback([a, &exit_code] { exit_code = Run(*a); });
}

}  // namespace rlcost::cli
