// A sweep written to files as it runs (api/sweep_run.h).
#include "api/sweep_run.h"

#include <filesystem>
#include <tuple>

#include <fmt/format.h>

#include "api/illustrative.h"
#include "api/run.h"
#include "api/ops.h"
#include "core/file.h"
#include "explore/eta.h"

#ifndef RLCOST_VERSION
#define RLCOST_VERSION "unknown"
#endif

namespace rlcost::ops {

Result<PreparedSweep> PrepareSweep(const SweepRunInput& in) {
  // Everything that can be wrong with the request is found before any point
  // runs, by the checks the server's sweep makes too, in the front end's words.
  Error bad;
  auto fields = CheckSweepFields(in.vary, in.sample > 0, in.sets, in.metrics, in.words, bad);
  explore::SweepOptions opt;
  opt.metrics = fields.metrics;
  if (!bad.problems.empty()) return Fail(std::move(bad));

  auto design = in.sample ? explore::Design::Sample(fields.axes, in.sample, in.seed) : explore::Design::Grid(fields.axes);
  if (!design) return Fail(design.error());
  ScenarioInput cat_in;
  cat_in.catalog_files = in.catalog_files;
  auto catalog = CatalogOf(cat_in);
  if (!catalog) return Fail(catalog.error());
  auto doc = scenario_internal::ScenarioDocument::FromFile(in.file);
  if (!doc) return Fail(doc.error());
  opt.fixed = fields.fixed;
  if (auto ok = explore::Check(*doc, **catalog, *design, opt.fixed); !ok) return Fail(ok.error());
  opt.simulate = in.simulate;
  if (!in.plan_for.empty()) {
    auto obj = plan::ObjectiveFromString(in.plan_for);
    if (!obj) return Fail(obj.error());
    opt.plan = *obj;
  }
  opt.sim.seed = in.seed;
  opt.sim.steps = in.steps;
  opt.threads = in.jobs;

  explore::StoreHeader header;
  for (const auto& ax : design->axes()) header.keys.push_back(ax.key);
  header.metrics = opt.metrics;
  header.scenario_text = doc->text();
  header.scenario_file = in.file;
  header.rlcost_version = RLCOST_VERSION;
  header.command_line = in.command_line;
  header.engine = in.simulate ? "simulator" : "analytic";
  header.points_planned = design->size();
  return PreparedSweep{std::move(*design), **catalog, std::move(*doc), std::move(opt), std::move(header)};
}

Result<SweepFiles> SweepFiles::Open(const SweepRunInput& in, const explore::StoreHeader& header) {
  SweepFiles out;
  std::string db = in.output;
  if (db.empty() && in.csv.empty() && in.jsonl.empty()) db = "sweep.db";
  const std::tuple<explore::StoreFormat, std::string, const char*> targets[] = {
      {explore::StoreFormat::kSqlite, db, "output"},
      {explore::StoreFormat::kCsv, in.csv, "csv"},
      {explore::StoreFormat::kJsonl, in.jsonl, "jsonl"}};
  // An output may be neither an input of the sweep (its scenario, a catalog)
  // nor another of its outputs: each would be overwritten.
  std::vector<std::string> inputs = in.catalog_files;
  if (!in.file.empty()) inputs.push_back(in.file);
  std::vector<std::pair<std::string, const char*>> seen;
  for (const auto& [format, path, field] : targets) {
    if (path.empty()) continue;
    if (auto ok = CheckOutputNotInput(path, field, inputs); !ok) return Fail(ok.error());
    std::error_code ec;
    const std::string canon = std::filesystem::weakly_canonical(path, ec).string();
    for (const auto& [other, other_field] : seen) {
      if (other == canon) {
        return Fail(ErrorCode::kInvalidInput, field,
                    "'" + path + "' is also the file of `" + other_field + "`; give each output its own file");
      }
    }
    seen.emplace_back(canon, field);
  }
  for (const auto& [format, path, field] : targets) {
    if (path.empty()) continue;
    auto w = explore::OpenWriter(format, path, header, field);
    if (!w) return Fail(w.error());
    out.writers_.emplace_back(path, std::move(*w));
  }
  return out;
}

void SweepFiles::Write(explore::PointRow&& row, std::atomic<bool>* stop) {
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

Result<SweepSummary> SweepFiles::Finish(uint64_t done, uint64_t planned, std::chrono::steady_clock::time_point start,
                                        const std::string& engine) {
  const bool complete = done == planned && !write_error_;
  for (auto& [path, w] : writers_) {
    if (auto ok = w->Close(complete); !ok && !write_error_) write_error_ = ok.error();
  }
  if (write_error_) return Fail(*write_error_);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string where;
  for (const auto& [path, w] : writers_) where += (where.empty() ? "" : ", ") + path;
  std::string tally = fmt::format("{} ok", counts_[0]);
  const char* names[] = {"ok", "do not fit", "invalid", "not yet built"};
  for (int i = 1; i < 4; ++i) {
    if (counts_[i]) tally += fmt::format(", {} {}", counts_[i], names[i]);
  }
  SweepSummary out;
  out.text = fmt::format("{} {} of {} points ({}) in {:.2f} s: {} -> {}\n", complete ? "swept" : "interrupted:", done,
                         planned, engine, secs, tally, where);
  for (const auto& note : api::SweepCurveNotes(goal_curves_)) out.text += "note: " + note + "\n";
  if (!complete) {
    out.stopped = fmt::format("sweep stopped early; the files hold the {} points finished (marked incomplete)\n", done);
    out.exit_code = 130;
  }
  return out;
}

uint64_t RunPreparedSweep(const PreparedSweep& p, SweepFiles& files, std::atomic<bool>* stop,
                          const std::function<void(const SweepProgress&)>& progress) {
  explore::SweepOptions opt = p.opt;
  opt.stop = stop;
  const uint64_t total = p.design.size();
  const auto start = std::chrono::steady_clock::now();
  explore::EtaEstimator eta(total);
  if (progress) {
    // A simulated point's cost, predicted ahead from the rollouts it simulates.
    eta.SetPointCosts(explore::PredictedPointCosts(p.doc, p.catalog, p.design, opt));
    opt.progress = [&](uint64_t done) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      eta.Observe(done, s);
      progress(SweepProgress{done, total, eta.MeanRate(), eta.RemainingS()});
    };
  }
  return explore::RunSweep(p.doc, p.catalog, p.design, opt,
                           [&](explore::PointRow&& row) { files.Write(std::move(row), stop); });
}

}  // namespace rlcost::ops
