// `rlcost sweep [FILE] --vary KEY=V1,V2,... --vary KEY=LO..HI[:STEP] ... [--sample N]
//   [--simulate] [--metric M ...] [-o sweep.db | --csv FILE | --jsonl FILE]`
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "explore/design.h"
#include "explore/store.h"
#include "explore/sweep.h"
#include "spec/document.h"

#ifndef RLCOST_VERSION
#define RLCOST_VERSION "unknown"
#endif

namespace rlcost::cli {
namespace {

struct SweepArgs {
  std::string file;
  std::vector<std::string> catalog_files;
  std::vector<std::string> sets;
  std::vector<std::string> vary;
  std::vector<std::string> metrics;
  uint64_t sample = 0;
  uint64_t seed = 1;
  bool simulate = false;
  int steps = 0;
  unsigned jobs = 0;
  std::string db, csv, jsonl;
};

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

std::string Clock(double s) {
  if (!(s >= 0) || s > 359999) return "--:--";
  const int t = static_cast<int>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60) : fmt::format("{}:{:02}", t / 60, t % 60);
}

std::string CommandLine(const SweepArgs& a) {
  std::string out = "rlcost sweep";
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

// Ctrl-C (or SIGTERM) from here on stops the sweep cleanly; a second one ends
// the process at once. Restored when the command returns.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupted.store(false);
    struct sigaction act{};
    act.sa_handler = OnInterrupt;
    sigemptyset(&act.sa_mask);
    sigaction(SIGINT, &act, &old_int_);
    sigaction(SIGTERM, &act, &old_term_);
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_{}, old_term_{};
};

int Run(const SweepArgs& a) {
  InterruptGuard guard;
  // Everything that can be wrong with the command is found before any point runs.
  Error bad;
  auto add_problems = [&](const Error& e) {
    if (bad.problems.empty()) bad.code = e.code;
    for (const auto& p : e.problems) bad.problems.push_back(p);
  };
  std::vector<explore::Axis> axes;
  for (const auto& v : a.vary) {
    auto axis = explore::ParseAxis(v, a.sample > 0);
    if (!axis) { add_problems(axis.error()); continue; }
    for (const auto& prev : axes) {
      if (prev.key == axis->key) add_problems(Error(ErrorCode::kInvalidInput, axis->key, "varied twice; give each key one --vary"));
    }
    axes.push_back(std::move(*axis));
  }
  if (a.vary.empty()) add_problems(Error(ErrorCode::kInvalidInput, "", "nothing to vary; expected at least one --vary KEY=V1,V2,... or KEY=LO..HI[:STEP]"));
  std::vector<Override> fixed;
  for (const auto& s : a.sets) {
    auto o = ParseOverride(s);
    if (!o) add_problems(o.error()); else fixed.push_back(*o);
  }
  explore::SweepOptions opt;
  for (const auto& m : a.metrics) {
    auto def = explore::MetricByName(m, "--metric");
    if (!def) add_problems(def.error()); else opt.metrics.push_back(*def);
  }
  if (opt.metrics.empty()) opt.metrics = explore::DefaultMetrics();
  if (!bad.problems.empty()) return PrintError(bad, false);

  auto design = a.sample ? explore::Design::Sample(axes, a.sample, a.seed) : explore::Design::Grid(axes);
  if (!design) return PrintError(design.error(), false);
  Common common;
  common.catalog_files = a.catalog_files;
  auto catalog = LoadCatalog(common);
  if (!catalog) return PrintError(catalog.error(), false);
  auto doc = spec_internal::ScenarioDocument::FromFile(a.file);
  if (!doc) return PrintError(doc.error(), false);
  opt.fixed = fixed;
  if (auto ok = explore::Check(*doc, *catalog, *design, fixed); !ok) return PrintError(ok.error(), false);

  explore::StoreHeader header;
  for (const auto& ax : design->axes()) header.keys.push_back(ax.key);
  header.metrics = opt.metrics;
  header.scenario_text = doc->text();
  header.scenario_file = a.file;
  header.rlcost_version = RLCOST_VERSION;
  header.command_line = CommandLine(a);
  header.engine = a.simulate ? "simulator" : "analytic";
  header.points_planned = design->size();
  std::string db = a.db;
  if (db.empty() && a.csv.empty() && a.jsonl.empty()) db = "sweep.db";
  std::vector<std::pair<std::string, std::unique_ptr<explore::RowWriter>>> writers;
  const std::tuple<explore::StoreFormat, std::string, const char*> targets[] = {
      {explore::StoreFormat::kSqlite, db, "-o"},
      {explore::StoreFormat::kCsv, a.csv, "--csv"},
      {explore::StoreFormat::kJsonl, a.jsonl, "--jsonl"}};
  for (const auto& [format, path, flag] : targets) {
    if (path.empty()) continue;
    auto w = explore::OpenWriter(format, path, header, flag);
    if (!w) return PrintError(w.error(), false);
    writers.emplace_back(path, std::move(*w));
  }

  opt.simulate = a.simulate;
  opt.sim.seed = a.seed;
  opt.sim.steps = a.steps;
  opt.threads = a.jobs;
  opt.stop = &g_interrupted;
  const uint64_t total = design->size();
  const auto start = std::chrono::steady_clock::now();
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  if (tty) {
    opt.progress = [&](uint64_t done) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double rate = s > 0 ? static_cast<double>(done) / s : 0;
      const int width = 30;
      const int filled = static_cast<int>(width * static_cast<double>(done) / static_cast<double>(total));
      std::fprintf(stderr, "\r[%s%s] %llu/%llu points  %.0f/s  ETA %s\033[K", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), static_cast<unsigned long long>(done),
                   static_cast<unsigned long long>(total), rate,
                   Clock(rate > 0 ? static_cast<double>(total - done) / rate : -1).c_str());
      std::fflush(stderr);
    };
  }

  std::optional<Error> write_error;
  uint64_t counts[4] = {0, 0, 0, 0};
  const uint64_t done = explore::RunSweep(*doc, *catalog, *design, opt, [&](explore::PointRow&& row) {
    ++counts[static_cast<int>(row.status)];
    if (write_error) return;
    for (auto& [path, w] : writers) {
      if (auto ok = w->Write(row); !ok) {
        write_error = ok.error();
        g_interrupted.store(true);  // no point computing rows that cannot be kept
        return;
      }
    }
  });
  if (tty) std::fprintf(stderr, "\r\033[K");
  const bool complete = done == total && !write_error;
  for (auto& [path, w] : writers) {
    if (auto ok = w->Close(complete); !ok && !write_error) write_error = ok.error();
  }
  if (write_error) return PrintError(*write_error, false);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string where;
  for (const auto& [path, w] : writers) where += (where.empty() ? "" : ", ") + path;
  std::string tally = fmt::format("{} ok", counts[0]);
  const char* names[] = {"ok", "do not fit", "invalid", "not yet built"};
  for (int i = 1; i < 4; ++i) {
    if (counts[i]) tally += fmt::format(", {} {}", counts[i], names[i]);
  }
  std::cout << fmt::format("{} {} of {} points ({}) in {:.2f} s: {} -> {}\n", complete ? "swept" : "interrupted:",
                           done, total, header.engine, secs, tally, where);
  if (!complete) {
    std::cerr << "sweep stopped early; the files hold the " << done << " points finished (marked incomplete)\n";
    return 130;
  }
  return 0;
}

}  // namespace

void RegisterSweep(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<SweepArgs>();
  auto* sub = app.add_subcommand("sweep", "a full estimate at every point of a grid or sample of scenario fields");
  sub->add_option("file", a->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--vary", a->vary,
                  "KEY=V1,V2,... or KEY=LO..HI[:STEP] (a --set path and its values); repeatable, grid of all")
      ->required();
  sub->add_option("--sample", a->sample, "N points of a Latin hypercube over the --vary values instead of the grid");
  sub->add_option("--seed", a->seed, "seed of --sample and of the simulator (same seed, same rows)");
  sub->add_flag("--simulate", a->simulate, "run the discrete-event simulator at every point (slower)");
  sub->add_option("--steps", a->steps, "steps to simulate (default: the scenario's algorithm.steps)");
  sub->add_option("--metric", a->metrics, "output column (a JSON key such as run.usd); repeatable; default: the main ones");
  sub->add_option("-o,--output", a->db, "SQLite database to write (default sweep.db when no --csv/--jsonl)");
  sub->add_option("--csv", a->csv, "also write the rows as CSV");
  sub->add_option("--jsonl", a->jsonl, "also write the rows as JSON Lines");
  sub->add_option("--jobs", a->jobs, "threads (default: every core)");
  sub->add_option("--catalog", a->catalog_files, "extra catalog file (GPUs, models, efficiency); repeatable");
  sub->add_option("--set", a->sets, "fix a scenario field at every point, e.g. --set model=qwen3-32b; repeatable");
  sub->callback([a, &exit_code] { exit_code = Run(*a); });
}

}  // namespace rlcost::cli
