#include "cli/sweep_command.h"

#include "cli/common.h"

namespace rlcost::cli {
namespace {

std::string CommandLine(const ops::SweepRunInput& a, const std::string& command_name) {
  std::string out = command_name;
  auto add = [&](const std::string& flag, const std::string& v) { out += " " + flag + (v.empty() ? "" : " '" + v + "'"); };
  if (!a.file.empty()) out += " '" + a.file + "'";
  for (const auto& c : a.catalog_files) add("--catalog", c);
  for (const auto& s : a.sets) add("--set", s);
  for (const auto& v : a.vary) add("--vary", v);
  if (a.sample) add("--sample", std::to_string(a.sample));
  if (a.sample || a.simulate) add("--seed", std::to_string(a.seed));
  if (a.simulate) add("--simulate", "");
  if (a.steps) add("--steps", std::to_string(a.steps));
  for (const auto& m : a.metrics) add("--metric", m);
  return out;
}

}  // namespace

void AddSweepOptions(CLI::App* sub, SweepArgs& args) {
  ops::SweepRunInput& a = args.in;
  sub->add_option("file", a.file, "scenario YAML or JSON; omitted = built-in default");
  AddRepeatable(sub, "--vary", a.vary,
                  "KEY=V1,V2,... or KEY=LO..HI[:STEP] (a --set path and its values); repeatable, grid of all")
      ->required();
  sub->add_option("--sample", a.sample, "N points of a Latin hypercube over the --vary values instead of the grid");
  sub->add_option("--seed", a.seed, "seed of --sample and of the simulator (same seed, same rows)");
  sub->add_flag("--simulate", a.simulate, "run the discrete-event simulator at every point (slower)");
  sub->add_option("--steps", a.steps, "steps to simulate (default: the scenario's algorithm.steps)");
  AddRepeatable(sub, "--metric", a.metrics, "output column (a JSON key such as run.usd); repeatable; default: the main ones");
  sub->add_option("-o,--output", a.output, "SQLite database to write (default sweep.db when no --csv/--jsonl)");
  sub->add_option("--csv", a.csv, "also write the rows as CSV");
  sub->add_option("--jsonl", a.jsonl, "also write the rows as JSON Lines");
  sub->add_option("--jobs", a.jobs, "threads (default and at most: one per core)");
  AddRepeatable(sub, "--catalog", a.catalog_files, "extra catalog file (GPUs, models, efficiency); repeatable");
  AddRepeatable(sub, "--set", a.sets, "fix a scenario field at every point, e.g. --set model=qwen3-32b; repeatable");
  sub->add_flag("--no-plan", args.no_plan,
                "read every point's placement literally instead of planning the fields it leaves out");
  sub->add_option("--plan-for", a.plan_for, "what the planner minimises at every point: cost (default) or time")
      ->check(CLI::IsMember({"cost", "time"}));
}

ops::SweepRunInput SweepRequest(const SweepArgs& a, const std::string& command_name) {
  ops::SweepRunInput in = a.in;
  if (a.no_plan) in.plan_for.clear();
  in.command_line = CommandLine(a.in, command_name);
  // The checks' messages in this command line's words (`vary` reads --vary).
  in.words.vary_twice = "varied twice; give each key one `vary`";
  in.words.nothing_path = "";
  in.words.nothing_message = "nothing to vary; expected at least one `vary` KEY=V1,V2,... or KEY=LO..HI[:STEP]";
  in.words.metric_field = "metrics";
  in.words.clear_vary_file = false;
  return in;
}

}  // namespace rlcost::cli
