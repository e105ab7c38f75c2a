// Named fits recomputed from the runs they were fitted on (fit/named_fit.h).
#include "fit/named_fit.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "fit/calibrate.h"

namespace rlcost::validate {
namespace {

namespace fs = std::filesystem;

// A fit: which Efficiency field, to which metric, over which grid (in the
// field's reading units), and how a grid value becomes the field's value.
struct FitSpec {
  const char* field;
  const char* metric;
  const char* unit;
  int lo, hi;      // grid indices: value = index * step
  double step;
  bool reciprocal;  // the field holds 1 / value (seconds per GB from GB/s)
};
// typical_update_share: 0.50 .. 1.00 in steps of 0.01. pageable_copy_s_per_gb:
// read as GB/s, 0.5 .. 8.0 in steps of 0.1 (the measured host's 1.31 GB/s to
// a pinned-memory-like rate).
constexpr FitSpec kFits[] = {
    {"typical_update_share", "step.train_s", "share of train_mfu", 50, 100, 0.01, false},
    {"pageable_copy_s_per_gb", "step.weight_sync_s", "GB/s", 5, 80, 0.1, true},
};

// Every FitSpec names an Efficiency field (calib::FindEfficiencyField).
double Efficiency::*MemberOf(const char* field) { return calib::FindEfficiencyField(field)->member; }

double FieldValue(const FitSpec& f, double v) { return f.reciprocal ? 1.0 / v : v; }

// The catalog with every GPU's `member` set to `v` (the named fits are the same
// for every GPU: EfficiencyField::per_gpu false).
Catalog With(const Catalog& cat, const std::vector<std::pair<double Efficiency::*, double>>& values) {
  Catalog c = cat;
  for (const auto& [id, g] : cat.gpus()) {
    GpuSpec next = g;
    for (const auto& [member, v] : values) next.efficiency.*member = v;
    c.AddGpu(std::move(next));
  }
  return c;
}

bool Scored(const Check& c) {
  return c.relative_to.empty() && (c.status == Status::kPass || c.status == Status::kFail) &&
         std::isfinite(c.predicted) && c.predicted > 0 && c.measured > 0;
}

// Per run, the squared log ratio of `metric` at one grid value.
using Terms = std::map<std::string, double>;

Result<Terms> TermsAt(const std::vector<std::string>& files, const Catalog& cat, const Options& opt,
                      const FitSpec& f, int index) {
  Options a = opt;
  a.analytic = true;
  a.simulated = false;
  const Catalog c = With(cat, {{MemberOf(f.field), FieldValue(f, index * f.step)}});
  auto rep = ValidateFiles(files, c, a);
  if (!rep) return Fail(rep.error());
  Terms t;
  for (const auto& ch : rep->paths.front().checks) {
    if (ch.key != f.metric || !Scored(ch)) continue;
    const double l = std::log(ch.predicted / ch.measured);
    t[ch.file] += l * l;
  }
  return t;
}

// The grid index minimising the sum of `terms` without `held_out` ("" = none);
// the lowest index on a tie.
int ArgMin(const std::map<int, Terms>& grid, const std::string& held_out) {
  int best = grid.begin()->first;
  double best_sum = INFINITY;
  for (const auto& [i, terms] : grid) {
    double sum = 0;
    for (const auto& [file, v] : terms) {
      if (file != held_out) sum += v;
    }
    if (sum < best_sum) {
      best_sum = sum;
      best = i;
    }
  }
  return best;
}

struct Fitted {
  NamedFit fit;
  std::map<std::string, int> fold_index;  // held-out run -> grid index
  int index = 0;
};

Result<Fitted> FitOne(const std::vector<std::string>& files, const Catalog& cat, const Options& opt,
                      const FitSpec& f) {
  // Every fifth grid point, then every point within five of each minimum
  // (of the whole set and of each fold): the sum of squared log ratios is
  // smooth in the parameter, so the fine pass finds the grid's minimum.
  std::map<int, Terms> grid;
  auto eval = [&](int i) -> Result<void> {
    if (i < f.lo || i > f.hi || grid.count(i)) return {};
    auto t = TermsAt(files, cat, opt, f, i);
    if (!t) return Fail(t.error());
    grid[i] = std::move(*t);
    return {};
  };
  for (int i = f.lo; i <= f.hi; i += 5) {
    if (auto ok = eval(i); !ok) return Fail(ok.error());
  }
  if (auto ok = eval(f.hi); !ok) return Fail(ok.error());
  const Terms& any = grid.begin()->second;
  if (any.empty()) {
    return Fail(ErrorCode::kInvalidInput, f.metric,
                fmt::format("no run here measures {}, the metric {} is fitted to", f.metric, f.field));
  }
  std::vector<std::string> runs;
  for (const auto& [file, v] : any) runs.push_back(file);
  std::set<int> centres{ArgMin(grid, "")};
  for (const auto& r : runs) centres.insert(ArgMin(grid, r));
  for (int c : centres) {
    for (int i = c - 4; i <= c + 4; ++i) {
      if (auto ok = eval(i); !ok) return Fail(ok.error());
    }
  }
  Fitted out;
  out.index = ArgMin(grid, "");
  out.fit.field = f.field;
  out.fit.metric = f.metric;
  out.fit.unit = f.unit;
  out.fit.value = out.index * f.step;
  const double now = cat.gpus().empty() ? 0 : cat.gpus().begin()->second.efficiency.*MemberOf(f.field);
  out.fit.catalog = f.reciprocal && now > 0 ? 1.0 / now : now;
  out.fit.runs = static_cast<int>(runs.size());
  for (const auto& r : runs) {
    const int i = ArgMin(grid, r);
    out.fold_index[r] = i;
    out.fit.folds.emplace_back(r, i * f.step);
  }
  return out;
}

}  // namespace

Result<NamedFitReport> FitNamedDefaults(const std::string& dir, const Catalog& cat, const Options& opt) {
  auto listed = ScenarioFilesIn(dir);
  if (!listed) return Fail(listed.error());
  std::vector<std::string> files = std::move(*listed);
  std::sort(files.begin(), files.end());

  NamedFitReport rep;
  rep.dir_name = DirName(dir);
  std::vector<Fitted> fitted;
  for (const auto& f : kFits) {
    auto one = FitOne(files, cat, opt, f);
    if (!one) return Fail(one.error());
    rep.fits.push_back(one->fit);
    fitted.push_back(std::move(*one));
  }
  // Leave one run out: every metric of each run, predicted with both fits
  // made without it (a run that does not measure a fit's metric takes that
  // fit made on all the runs).
  std::set<std::string> held;
  for (const auto& f : fitted) {
    for (const auto& [r, i] : f.fold_index) held.insert(r);
  }
  std::map<Path, LeaveOneOut> loo;
  for (const auto& r : held) {
    std::vector<std::pair<double Efficiency::*, double>> values;
    for (std::size_t k = 0; k < fitted.size(); ++k) {
      auto it = fitted[k].fold_index.find(r);
      const int i = it != fitted[k].fold_index.end() ? it->second : fitted[k].index;
      values.emplace_back(MemberOf(kFits[k].field), FieldValue(kFits[k], i * kFits[k].step));
    }
    // Only the held-out run is predicted with its fold's values (a relative
    // metric loads its other scenario itself), with its own facts alone.
    const auto path_of_r = std::find_if(files.begin(), files.end(), [&](const std::string& f) {
      return fs::path(f).filename().string() == r;
    });
    assert(path_of_r != files.end());  // r is a file name these files gave
    Options one = opt;
    Facts own;
    if (opt.facts) {
      own.file = opt.facts->file;
      if (auto it = opt.facts->by_case.find(r); it != opt.facts->by_case.end()) own.by_case.insert(*it);
      one.facts = &own;
    }
    auto v = ValidateFiles({*path_of_r}, With(cat, values), one);
    if (!v) return Fail(v.error());
    for (const auto& path : v->paths) {
      if (!path.available) continue;
      LeaveOneOut& l = loo[path.path];
      l.path = path.path;
      l.checks.insert(l.checks.end(), path.checks.begin(), path.checks.end());
    }
  }
  for (auto& [path, l] : loo) {
    std::vector<double> errors;
    for (const auto& ch : l.checks) {
      if (!Scored(ch)) continue;
      errors.push_back(ch.error);
      if (ch.status == Status::kPass) ++l.passed;
    }
    l.median_abs_error = MedianAbs(errors);
    rep.loo.push_back(std::move(l));
  }
  return rep;
}

std::string NamedFitsToText(const NamedFitReport& r) {
  std::string out = fmt::format("rlcost validate --fits — the named fits of catalog/efficiency.yaml recomputed from "
                                "the runs in {}/\n",
                                r.dir_name);
  for (const auto& f : r.fits) {
    out += fmt::format("\n{}: {:.3g} {} (the catalog holds {:.3g}), fitted to {} over {} runs: the geometric mean of "
                       "predicted / measured is 1 on the analytic path\n",
                       f.field, f.value, f.unit, f.catalog, f.metric, f.runs);
    out += "  fitted without each run in turn:\n";
    for (const auto& [run, v] : f.folds) out += fmt::format("    {:<44} {:.3g}\n", run, v);
  }
  for (const auto& l : r.loo) {
    int scored = 0;
    for (const auto& ch : l.checks) scored += Scored(ch) ? 1 : 0;
    out += fmt::format("\nleave one run out, {} path: {} of {} metrics within their tolerance, median |error| "
                       "{:.1f}% (each run predicted with both fits made without it)\n",
                       ToString(l.path), l.passed, scored, 100.0 * l.median_abs_error);
    for (const auto& ch : l.checks) {
      if (!Scored(ch)) continue;
      out += fmt::format("  {:<44} {:<20} {:>9.3g} {:>9.3g} {:>+7.1f}%  {}\n", ch.file, ch.key, ch.measured,
                         ch.predicted, 100.0 * ch.error, ch.status == Status::kPass ? "pass" : "FAIL");
    }
  }
  return out;
}

}  // namespace rlcost::validate
