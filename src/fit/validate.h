// Internal to econ: `rlcost validate` — every scenario with an `expect` block,
// predicted vs measured, on the analytic and the simulated path.
//
//   validate::Options opt;                      // both paths
//   auto rep = validate::ValidateDir("../shared/validation", catalog, opt);
//   for (auto& p : rep->paths) p.median_abs_error;
//   rep->AllPass();
//
// Absolute metrics pass when |pred/value - 1| <= tolerance; `relative_to`
// metrics compare this scenario's metric / the other scenario's with value the
// same way. A path whose estimator answers kNotImplemented is reported "not
// available", not failed.
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "rlcost/calibration.h"
#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/sim.h"

namespace rlcost::validate {

enum class Path { kAnalytic, kSimulated };
std::string_view ToString(Path p);

enum class Status { kPass, kFail, kUnavailable, kError };
std::string_view ToString(Status s);

struct Check {
  std::string file;          // scenario file name (no directory)
  std::string scenario;      // scenario name
  std::string key;           // metric key, e.g. "step.time_s"
  std::string relative_to;   // other scenario's file name; "" = absolute metric
  double measured = 0;       // value (a ratio for relative metrics)
  double tolerance = 0;
  double predicted = std::numeric_limits<double>::quiet_NaN();
  double error = std::numeric_limits<double>::quiet_NaN();  // predicted / measured - 1
  Status status = Status::kError;
  std::string message;       // why unavailable / error
  bool in_sample = false;    // this case (or relative_to) is where a catalog default was read off
};

// One metric (a phase of the step, the step, the run) over the cases that
// measure it, absolute figures only: how far off the model is phase by phase.
struct MetricSummary {
  std::string key;             // e.g. "step.rollout_s"
  int cases = 0, passed = 0;   // checks with a prediction (pass + fail)
  double median_ratio = std::numeric_limits<double>::quiet_NaN();  // median of predicted / measured
  double min_ratio = std::numeric_limits<double>::quiet_NaN();
  double max_ratio = std::numeric_limits<double>::quiet_NaN();
};

struct PathResult {
  Path path = Path::kAnalytic;
  bool available = true;
  std::string reason;        // when not available
  std::vector<Check> checks;
  int passed = 0, failed = 0, unavailable = 0;  // failed counts errors too
  double median_abs_error = std::numeric_limits<double>::quiet_NaN();  // over pass + fail
  double max_abs_error = std::numeric_limits<double>::quiet_NaN();
  // The same over the out-of-sample checks only (no catalog default was read
  // off their runs): the figure that says how well rlcost predicts.
  int oos_metrics = 0, oos_passed = 0, oos_failed = 0;
  double oos_median_abs_error = std::numeric_limits<double>::quiet_NaN();
  std::vector<MetricSummary> by_metric;  // in key order
};

// A catalog default read off a published figure of a run that is also a
// validation case (catalog/in-sample.yaml): that case cannot test it.
struct InSample {
  std::string figure;               // e.g. "efficiency.h20.decode_bw"
  std::vector<std::string> cases;   // case file names (no directory)
  std::string source;               // where the figure was read off (never empty)
};
// Parses an in-sample document (`in_sample:` list of {figure, cases, source}).
Result<std::vector<InSample>> ParseInSample(std::string_view text, const std::string& origin);
// The built-in list (catalog/in-sample.yaml, compiled in).
const std::vector<InSample>& BuiltinInSample();

// A fact a published source states about its run that the scenario file
// leaves out (which inference engine, whether there is a critic): applied to
// that case as a `--set` override, shown beside the case with its source.
struct Fact {
  std::string path;          // dotted scenario path, e.g. "placement.engine"
  std::string value;         // YAML scalar or flow value
  std::string source;        // where the source says so (never empty)
};

// A facts file: case file name (no directory) -> its facts.
//   facts:
//     areal-1p5b-sync.yaml:
//       - {set: placement.engine, value: sglang, source: "..."}
struct Facts {
  std::string file;          // the facts file's path, as given
  std::map<std::string, std::vector<Fact>> by_case;
};
Result<Facts> LoadFacts(const std::string& path);

struct Case {
  std::string file;
  std::string scenario;
  std::string source;        // expect.source
  std::vector<Fact> facts;   // applied from a facts file (also to this case as another's relative_to)
  std::vector<const InSample*> in_sample;  // catalog defaults read off this run's published figures
};

struct Report {
  std::string dir_name;      // last component of the directory (deterministic output)
  int scenarios = 0;         // files loaded
  std::vector<Case> cases;   // those with an expect block, by file name
  std::string facts_file;    // the facts file applied; "" = the files as written
  std::vector<PathResult> paths;
  bool AllPass() const;      // no fail and no error on any path
};

// The simulated path measures each case's per-step figures over this many
// steady steps after the pipeline's warm-up and extrapolates them to the
// scenario's steps (sim::Options::measure_steps, docs/model.md "Steady
// steps"); every metric validate checks is a per-step mean or that mean
// times the run's steps.
inline constexpr int kValidateMeasureSteps = 30;

struct Options {
  bool analytic = true;
  bool simulated = true;
  // seed, steps (0 = the scenario's), measure_steps (0 = simulate whole runs)
  sim::Options sim{.measure_steps = kValidateMeasureSteps};
  std::vector<Override> overrides;   // --set, applied to every scenario
  const Calibration* calibration = nullptr;  // --calibration, applied to every scenario
  const Facts* facts = nullptr;      // --facts, applied per case after `overrides`
  const std::vector<InSample>* in_sample = nullptr;  // nullptr = BuiltinInSample()
};

// The scenario files of `dir` (*.yaml, *.yml, *.json; links that do not
// resolve skipped), in directory order; an error when `dir` is not a folder or
// holds none. ValidateDir and FitNamedDefaults (fit/named_fit.h) read the same.
Result<std::vector<std::string>> ScenarioFilesIn(const std::string& dir);
// The folder's own name for reports ("logs" for "../shared/validation/logs/").
std::string DirName(const std::string& dir);

// Loads every *.yaml / *.yml / *.json of `dir` (sorted by name). Bad input (a
// scenario that does not load, an unknown metric key) fails with every problem
// named by file and key; estimator failures are reported per metric instead.
Result<Report> ValidateDir(const std::string& dir, const Catalog& cat, const Options& opt);
Result<Report> ValidateFiles(const std::vector<std::string>& files, const Catalog& cat, const Options& opt);

// Median of |x|; NaN when empty.
double MedianAbs(std::vector<double> v);

}  // namespace rlcost::validate
