#include "cli/sweep_command.h"

#include <ctime>
#include <filesystem>
#include <iostream>
#include <tuple>

#include <fmt/format.h>

#include "api/illustrative.h"
#include "api/sweep_checks.h"
#include "cli/common.h"
#include "core/file.h"

#ifndef RLCOST_VERSION
#define RLCOST_VERSION "unknown"
#endif

namespace rlcost::cli {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<long long> g_first_interrupt_ns{0};
// The first Ctrl-C asks the sweep to stop; one more, a second or more later,
// ends the process at once. (Closer repeats are the same signal delivered twice,
// e.g. `timeout` signals the command and then its process group.)
extern "C" void OnInterrupt(int sig) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  const long long now = static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
  if (!g_interrupted.exchange(true)) {
    g_first_interrupt_ns.store(now);
    return;
  }
  if (now - g_first_interrupt_ns.load() > 1'000'000'000LL) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

std::string CommandLine(const SweepArgs& a, const std::string& command_name) {
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

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  struct sigaction act{};
  act.sa_handler = OnInterrupt;
  sigemptyset(&act.sa_mask);
  sigaction(SIGINT, &act, &old_int_);
  sigaction(SIGTERM, &act, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

std::atomic<bool>& InterruptGuard::Interrupted() { return g_interrupted; }

void AddSweepOptions(CLI::App* sub, SweepArgs& a) {
  sub->add_option("file", a.file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--vary", a.vary,
                  "KEY=V1,V2,... or KEY=LO..HI[:STEP] (a --set path and its values); repeatable, grid of all")
      ->required();
  sub->add_option("--sample", a.sample, "N points of a Latin hypercube over the --vary values instead of the grid");
  sub->add_option("--seed", a.seed, "seed of --sample and of the simulator (same seed, same rows)");
  sub->add_flag("--simulate", a.simulate, "run the discrete-event simulator at every point (slower)");
  sub->add_option("--steps", a.steps, "steps to simulate (default: the scenario's algorithm.steps)");
  sub->add_option("--metric", a.metrics, "output column (a JSON key such as run.usd); repeatable; default: the main ones");
  sub->add_option("-o,--output", a.db, "SQLite database to write (default sweep.db when no --csv/--jsonl)");
  sub->add_option("--csv", a.csv, "also write the rows as CSV");
  sub->add_option("--jsonl", a.jsonl, "also write the rows as JSON Lines");
  sub->add_option("--jobs", a.jobs, "threads (default and at most: one per core)");
  sub->add_option("--catalog", a.catalog_files, "extra catalog file (GPUs, models, efficiency); repeatable");
  sub->add_option("--set", a.sets, "fix a scenario field at every point, e.g. --set model=qwen3-32b; repeatable");
  sub->add_flag("--no-plan", a.no_plan,
                "read every point's placement literally instead of planning the fields it leaves out");
  sub->add_option("--plan-for", a.plan_for, "what the planner minimises at every point: cost (default) or time")
      ->check(CLI::IsMember({"cost", "time"}));
}

Result<PreparedSweep> PrepareSweep(const SweepArgs& a, const std::string& command_name) {
  // Everything that can be wrong with the command is found before any point runs,
  // by the checks the server's sweep makes too, said in the command line's words.
  Error bad;
  ops::SweepFieldWords words;
  words.vary_twice = "varied twice; give each key one --vary";
  words.nothing_path = "";
  words.nothing_message = "nothing to vary; expected at least one --vary KEY=V1,V2,... or KEY=LO..HI[:STEP]";
  words.metric_field = "--metric";
  words.clear_vary_file = false;
  auto fields = ops::CheckSweepFields(a.vary, a.sample > 0, a.sets, a.metrics, words, bad);
  const std::vector<explore::Axis>& axes = fields.axes;
  const std::vector<Override>& fixed = fields.fixed;
  explore::SweepOptions opt;
  opt.metrics = fields.metrics;
  if (!bad.problems.empty()) return Fail(std::move(bad));

  auto design = a.sample ? explore::Design::Sample(axes, a.sample, a.seed) : explore::Design::Grid(axes);
  if (!design) return Fail(design.error());
  Common common;
  common.catalog_files = a.catalog_files;
  auto catalog = LoadCatalog(common);
  if (!catalog) return Fail(catalog.error());
  auto doc = scenario_internal::ScenarioDocument::FromFile(a.file);
  if (!doc) return Fail(doc.error());
  opt.fixed = fixed;
  if (auto ok = explore::Check(*doc, *catalog, *design, fixed); !ok) return Fail(ok.error());
  opt.simulate = a.simulate;
  if (!a.no_plan) {
    auto obj = plan::ObjectiveFromString(a.plan_for);
    if (!obj) return Fail(obj.error());
    opt.plan = *obj;
  }
  opt.sim.seed = a.seed;
  opt.sim.steps = a.steps;
  opt.threads = a.jobs;

  explore::StoreHeader header;
  for (const auto& ax : design->axes()) header.keys.push_back(ax.key);
  header.metrics = opt.metrics;
  header.scenario_text = doc->text();
  header.scenario_file = a.file;
  header.rlcost_version = RLCOST_VERSION;
  header.command_line = CommandLine(a, command_name);
  header.engine = a.simulate ? "simulator" : "analytic";
  header.points_planned = design->size();
  return PreparedSweep{std::move(*design), std::move(*catalog), std::move(*doc), std::move(opt), std::move(header)};
}

Result<SweepOutput> SweepOutput::Open(const SweepArgs& a, const explore::StoreHeader& header) {
  SweepOutput out;
  std::string db = a.db;
  if (db.empty() && a.csv.empty() && a.jsonl.empty()) db = "sweep.db";
  const std::tuple<explore::StoreFormat, std::string, const char*> targets[] = {
      {explore::StoreFormat::kSqlite, db, "-o"},
      {explore::StoreFormat::kCsv, a.csv, "--csv"},
      {explore::StoreFormat::kJsonl, a.jsonl, "--jsonl"}};
  // An output may be neither an input of the sweep (its scenario, a catalog)
  // nor another of its outputs: each would be overwritten.
  std::vector<std::string> inputs = a.catalog_files;
  if (!a.file.empty()) inputs.push_back(a.file);
  std::vector<std::pair<std::string, const char*>> seen;
  for (const auto& [format, path, flag] : targets) {
    if (path.empty()) continue;
    if (auto ok = CheckOutputNotInput(path, flag, inputs); !ok) return Fail(ok.error());
    std::error_code ec;
    const std::string canon = std::filesystem::weakly_canonical(path, ec).string();
    for (const auto& [other, other_flag] : seen) {
      if (other == canon) {
        return Fail(ErrorCode::kInvalidInput, flag,
                    "'" + path + "' is also the file of " + other_flag + "; give each output its own file");
      }
    }
    seen.emplace_back(canon, flag);
  }
  for (const auto& [format, path, flag] : targets) {
    if (path.empty()) continue;
    auto w = explore::OpenWriter(format, path, header, flag);
    if (!w) return Fail(w.error());
    out.writers_.emplace_back(path, std::move(*w));
  }
  return out;
}

void SweepOutput::Write(explore::PointRow&& row, std::atomic<bool>* stop) {
  ++counts_[static_cast<int>(row.status)];
  if (!row.goal_curve.empty()) goal_curves_.insert(row.goal_curve);
  if (write_error_) return;
  for (auto& [path, w] : writers_) {
    if (auto ok = w->Write(row); !ok) {
      write_error_ = ok.error();
      if (stop) stop->store(true);  // no point computing rows that cannot be kept
      return;
    }
  }
}

int SweepOutput::Finish(uint64_t done, uint64_t planned, std::chrono::steady_clock::time_point start,
                        const std::string& engine) {
  const bool complete = done == planned && !write_error_;
  for (auto& [path, w] : writers_) {
    if (auto ok = w->Close(complete); !ok && !write_error_) write_error_ = ok.error();
  }
  if (write_error_) return PrintError(*write_error_, false);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string where;
  for (const auto& [path, w] : writers_) where += (where.empty() ? "" : ", ") + path;
  std::string tally = fmt::format("{} ok", counts_[0]);
  const char* names[] = {"ok", "do not fit", "invalid", "not yet built"};
  for (int i = 1; i < 4; ++i) {
    if (counts_[i]) tally += fmt::format(", {} {}", counts_[i], names[i]);
  }
  std::cout << fmt::format("{} {} of {} points ({}) in {:.2f} s: {} -> {}\n", complete ? "swept" : "interrupted:",
                           done, planned, engine, secs, tally, where);
  for (const auto& note : api::SweepCurveNotes(goal_curves_)) std::cout << "note: " << note << "\n";
  if (!complete) {
    std::cerr << "sweep stopped early; the files hold the " << done << " points finished (marked incomplete)\n";
    return 130;
  }
  return 0;
}

}  // namespace rlcost::cli
