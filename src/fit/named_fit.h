// Named fits: catalog defaults fitted to the development logs (catalog/
// efficiency.yaml's typical_update_share and pageable_copy_s_per_gb), each
// recomputed here from the runs it was fitted on, with its leave-one-out
// error (docs/model.md, "Named fits").
//
//   auto fits = validate::FitNamedDefaults("../shared/validation/logs", catalog, opt);
//   fits->fits[0].value;           // what the catalog should hold
//   fits->loo[0].median_abs_error; // each run predicted with the fits made without it
//
// A fit is the grid value whose predictions make the geometric mean of
// predicted / measured of its metric 1 (least squares in log ratio) over the
// runs that measure it, the analytic path, every other default as it is.
#pragma once

#include <string>
#include <vector>

#include "fit/validate.h"
#include "rlcost/catalog.h"

namespace rlcost::validate {

struct NamedFit {
  std::string field;         // Efficiency field, e.g. "typical_update_share"
  std::string metric;        // the metric it is fitted to, e.g. "step.train_s"
  std::string unit;          // how `value` reads, e.g. "share" or "GB/s"
  double value = 0;          // the fit, in the field's own units
  double catalog = 0;        // the catalog's value now, in the field's units
  int runs = 0;              // runs that measure the metric
  std::vector<std::pair<std::string, double>> folds;  // held-out run -> the fit without it (field units)
};

struct LeaveOneOut {
  Path path = Path::kAnalytic;
  std::vector<Check> checks;  // every metric of each run, predicted with the fits made without that run
  int passed = 0;
  double median_abs_error = 0;
};

struct NamedFitReport {
  std::string dir_name;
  std::vector<NamedFit> fits;
  std::vector<LeaveOneOut> loo;  // per path asked for in `opt`
};

// The two named fits over the cases of `dir`. Fails when no run measures a
// fit's metric.
Result<NamedFitReport> FitNamedDefaults(const std::string& dir, const Catalog& cat, const Options& opt);

// The report as text (what `rlcost validate DIR --fits` prints).
std::string NamedFitsToText(const NamedFitReport& r);

}  // namespace rlcost::validate
