#include "fit/interval.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/yaml.h"


namespace rlcost::interval {
namespace {

bool IsTimeKey(std::string_view k) { return k == "step.time_s" || k == "run.wall_time_h"; }

Result<Band> ParseBand(const YAML::Node& n, const std::string& origin, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return Fail(ErrorCode::kInvalidInput, origin + ": intervals." + path, what);
  };
  if (!n || !n.IsMap()) return bad("missing; expected a mapping {low, high, nominal, cases, source}");
  Band b;
  try {
    b.low = n["low"].as<double>();
    b.high = n["high"].as<double>();
    b.nominal = n["nominal"].as<double>();
    b.cases = n["cases"].as<int>();
    b.loo_inside = n["leave_one_out_inside"].as<int>();
    b.source = n["source"].as<std::string>();
  } catch (const YAML::Exception& e) {
    return bad(std::string("expected low, high, nominal (numbers), cases, leave_one_out_inside (integers), source "
                           "(text): ") + e.what());
  }
  if (!(b.low > 0) || !(b.high >= b.low)) {
    return bad(fmt::format("low {} and high {}; expected 0 < low <= high", b.low, b.high));
  }
  if (!(b.nominal >= 0 && b.nominal <= 1)) return bad(fmt::format("nominal {}; expected a fraction in [0, 1]", b.nominal));
  if (b.source.empty()) return bad("source is empty; expected where the band comes from");
  if (b.loo_inside < 0 || b.loo_inside > b.cases) {
    return bad(fmt::format("leave_one_out_inside {}; expected 0 to cases ({})", b.loo_inside, b.cases));
  }
  return b;
}

}  // namespace

Result<Bands> ParseBands(std::string_view text, const std::string& origin) {
  if (std::string why = YamlAliasProblem(text); !why.empty()) return Fail(ErrorCode::kInvalidInput, origin, why);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Fail(ErrorCode::kInvalidInput, fmt::format("{}:{}", origin, e.mark.line + 1), e.msg);
  }
  Bands out;
  auto a = ParseBand(root["intervals"]["analytic"], origin, "analytic");
  if (!a) return Fail(a.error());
  auto s = ParseBand(root["intervals"]["simulated"], origin, "simulated");
  if (!s) return Fail(s.error());
  out.analytic = *a;
  out.simulated = *s;
  return out;
}

// BuiltinBands(): generated from catalog/intervals.yaml at build time
// (cmake/intervals.cmake).

const Band& BandFor(std::string_view method) {
  return method == "simulated" ? BuiltinBands().simulated : BuiltinBands().analytic;
}

namespace {
// The checks a band is read off and checked on.
bool Counts(const validate::Check& c) {
  if (!IsTimeKey(c.key) || !c.relative_to.empty() || c.in_sample) return false;
  if (c.status != validate::Status::kPass && c.status != validate::Status::kFail) return false;
  return c.measured > 0 && c.predicted > 0;
}
bool Inside(const validate::Check& k, const Band& b) {
  Range r = Around(k.predicted, b);
  // A hair of slack: the stored band has four decimals.
  return k.measured >= r.low * (1 - 1e-4) && k.measured <= r.high * (1 + 1e-4);
}
}  // namespace

std::vector<double> TimeRatios(const validate::PathResult& p) {
  std::vector<double> r;
  for (const auto& c : p.checks) {
    if (Counts(c)) r.push_back(c.predicted / c.measured);
  }
  return r;
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  double pos = q * (v.size() - 1);
  size_t i = static_cast<size_t>(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

int LowerRank(int n) {
  return std::max(1, static_cast<int>(std::floor((1 - kBandCoverage) / 2 * (n + 1) + 1e-9)));
}

Band BandFrom(std::vector<double> ratios) {
  Band b;
  const int n = static_cast<int>(ratios.size());
  b.cases = n;
  if (n == 0) return b;
  std::sort(ratios.begin(), ratios.end());
  const int j = std::min(LowerRank(n), (n + 1) / 2);  // 1-based rank of the lower bound
  b.low = ratios[j - 1];
  b.high = ratios[n - j];  // rank n + 1 - j
  b.nominal = double(n + 1 - 2 * j) / (n + 1);
  return b;
}

const std::vector<std::string_view>& HeadlineKeys() {
  static const std::vector<std::string_view> k = {"step.time_s", "run.wall_time_h", "cost.gpu_hours", "run.usd",
                                                  "goal.usd"};
  return k;
}

Range Around(double predicted, const Band& b) {
  // predicted / measured lies in [low, high] -> measured in [v / high, v / low].
  return {predicted / b.high, predicted / b.low};
}

std::map<std::string, Range> Intervals(const Estimate& e, const Band& b) {
  std::map<std::string, Range> out;
  for (auto key : HeadlineKeys()) {
    const MetricDef* m = FindMetric(key);
    if (!m) continue;
    auto v = m->get(e);
    if (!v || !std::isfinite(*v)) continue;
    out[std::string(key)] = Around(*v, b);
  }
  return out;
}

// The one wording of a likely range, used by every command and the HTML
// report: what the range is (an 80% band read off the published runs, its
// spread), what it assumes, and nothing that contradicts the 80%.
std::string BandSentence(const Band& b, std::string_view method) {
  // The coverage measured out of sample: each run against the band of the others.
  const std::string loo =
      b.cases > 0 ? fmt::format("; leave-one-out coverage {:.0f}%: {} of {} figures inside the band read off the other "
                                "runs",
                                100.0 * b.loo_inside / b.cases, b.loo_inside, b.cases)
                  : std::string();
  return fmt::format(
      "likely range: the 80% band read off the published runs ({} step and wall times, the {} estimate {:.2f}x to "
      "{:.2f}x the measured ones{}), applied to each headline figure; dollars and GPU-hours take the time band. It "
      "assumes this run errs as those did; a setup unlike them can fall outside.",
      b.cases, method, b.low, b.high, loo);
}

Coverage CoverageOf(const validate::PathResult& p, const Band& b) {
  Coverage c;
  for (const auto& k : p.checks) {
    if (!Counts(k)) continue;
    ++c.total;
    c.inside += Inside(k, b);
  }
  return c;
}

Coverage LeaveOneRunOut(const validate::PathResult& p) {
  Coverage c;
  for (const auto& k : p.checks) {
    if (!Counts(k)) continue;
    std::vector<double> others;
    for (const auto& o : p.checks) {
      if (Counts(o) && o.file != k.file) others.push_back(o.predicted / o.measured);
    }
    ++c.total;
    if (!others.empty()) c.inside += Inside(k, BandFrom(others));
  }
  return c;
}

std::string BandsYaml(const validate::Report& r, const std::string& dir_label) {
  std::string y =
      "# How far off rlcost's time figures were on the published runs: an 80% distribution-free\n"
      "# prediction band for predicted / measured over the absolute step.time_s and run.wall_time_h\n"
      "# checks of the out-of-sample validation cases, per path: with the n ratios sorted,\n"
      "# low = x_(j), high = x_(n+1-j), j = max(1, floor(0.1 (n + 1))); nominal = (n + 1 - 2j) / (n + 1).\n"
      "# leave_one_out_inside: of the cases, how many lie inside the band read off the other runs only\n"
      "# (a run's step and wall time leave together): the coverage measured out of sample.\n"
      "# Every headline figure's interval applies this spread (docs/model.md,\n"
      "# \"Intervals from the validation residuals\").\n"
      "# Generated by: rlcost validate ../shared/validation --intervals > catalog/intervals.yaml\n"
      "# tests/fit/interval_test.cc recomputes it and fails when it is stale.\n"
      "intervals:\n";
  for (const auto& p : r.paths) {
    if (!p.available) continue;
    Band b = BandFrom(TimeRatios(p));
    const int j = b.cases ? std::min(LowerRank(b.cases), (b.cases + 1) / 2) : 0;
    const Coverage loo = LeaveOneRunOut(p);
    y += fmt::format(
        "  {}:\n    low: {:.4f}\n    high: {:.4f}\n    nominal: {:.4f}\n    cases: {}\n    leave_one_out_inside: {}\n"
        "    source: \"rlcost validate .../{} ({} path): order statistics {} and {} of predicted/measured over {} "
        "published step-time and wall-time figures\"\n",
        ToString(p.path), b.low, b.high, b.nominal, b.cases, loo.inside, dir_label, ToString(p.path), j,
        b.cases + 1 - j, b.cases);
  }
  return y;
}

}  // namespace rlcost::interval
