#include "fit/interval.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "rlcost/embedded.h"

namespace rlcost::interval {
namespace {

bool IsTimeKey(std::string_view k) { return k == "step.time_s" || k == "run.wall_time_h"; }

Result<Band> ParseBand(const YAML::Node& n, const std::string& origin, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return Fail(ErrorCode::kInvalidInput, origin + ": intervals." + path, what);
  };
  if (!n || !n.IsMap()) return bad("missing; expected a mapping {p10, p90, cases, source}");
  Band b;
  try {
    b.p10 = n["p10"].as<double>();
    b.p90 = n["p90"].as<double>();
    b.cases = n["cases"].as<int>();
    b.source = n["source"].as<std::string>();
  } catch (const YAML::Exception& e) {
    return bad(std::string("expected p10, p90 (numbers), cases (integer), source (text): ") + e.what());
  }
  if (!(b.p10 > 0) || !(b.p90 >= b.p10)) {
    return bad(fmt::format("p10 {} and p90 {}; expected 0 < p10 <= p90", b.p10, b.p90));
  }
  if (b.source.empty()) return bad("source is empty; expected where the band comes from");
  return b;
}

}  // namespace

Result<Bands> ParseBands(std::string_view text, const std::string& origin) {
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

const Bands& BuiltinBands() {
  static const Bands bands = [] {
    auto text = EmbeddedFile("intervals.yaml");
    auto parsed = text ? ParseBands(*text, "catalog/intervals.yaml") : Result<Bands>{};
    if (!text || !parsed) {
      // A build-time file: a bad one is a programmer error, not user input.
      std::cerr << "internal error: catalog/intervals.yaml: "
                << (text ? parsed.error().ToString() : std::string("not compiled in")) << "\n";
      std::abort();
    }
    return *parsed;
  }();
  return bands;
}

const Band& BandFor(std::string_view method) {
  return method == "simulated" ? BuiltinBands().simulated : BuiltinBands().analytic;
}

std::vector<double> TimeRatios(const validate::PathResult& p) {
  std::vector<double> r;
  for (const auto& c : p.checks) {
    if (!IsTimeKey(c.key) || !c.relative_to.empty() || c.in_sample) continue;
    if (c.status != validate::Status::kPass && c.status != validate::Status::kFail) continue;
    if (!(c.measured > 0) || !(c.predicted > 0)) continue;
    r.push_back(c.predicted / c.measured);
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

Band BandFrom(std::vector<double> ratios) {
  Band b;
  b.cases = static_cast<int>(ratios.size());
  if (ratios.empty()) return b;
  b.p10 = Percentile(ratios, 0.10);
  b.p90 = Percentile(ratios, 0.90);
  return b;
}

const std::vector<std::string_view>& HeadlineKeys() {
  static const std::vector<std::string_view> k = {"step.time_s", "run.wall_time_h", "cost.gpu_hours", "run.usd",
                                                  "goal.usd"};
  return k;
}

Range Around(double predicted, const Band& b) {
  // predicted / measured lies in [p10, p90] -> measured in [v / p90, v / p10].
  return {predicted / b.p90, predicted / b.p10};
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

std::string BandSentence(const Band& b, std::string_view method) {
  return fmt::format(
      "Likely range: on {} published runs the {} estimate's time figures came out at {:.2f}x to {:.2f}x the measured "
      "ones (10th to 90th percentile of predicted / measured); each range applies that spread, scaling dollars and "
      "GPU-hours with time. The band is read off the same runs it is checked on (in-sample), so expect it to be "
      "somewhat too narrow for a new setup.",
      b.cases, method, b.p10, b.p90);
}

Coverage CoverageOf(const validate::PathResult& p, const Band& b) {
  Coverage c;
  for (const auto& k : p.checks) {
    if (!IsTimeKey(k.key) || !k.relative_to.empty() || k.in_sample) continue;
    if (k.status != validate::Status::kPass && k.status != validate::Status::kFail) continue;
    if (!(k.measured > 0) || !(k.predicted > 0)) continue;
    Range r = Around(k.predicted, b);
    ++c.total;
    // A hair of slack: the stored band has four decimals.
    if (k.measured >= r.low * (1 - 1e-4) && k.measured <= r.high * (1 + 1e-4)) ++c.inside;
  }
  return c;
}

std::string BandsYaml(const validate::Report& r, const std::string& dir_label) {
  std::string y =
      "# How far off rlcost's time figures were on the published runs: the 10th and 90th\n"
      "# percentile of predicted / measured over the absolute step.time_s and run.wall_time_h\n"
      "# checks of the out-of-sample validation cases, per path. Every headline figure's\n"
      "# interval applies this spread (docs/model.md, \"Intervals from the validation residuals\").\n"
      "# Generated by: rlcost validate ../shared/validation --intervals > catalog/intervals.yaml\n"
      "# tests/econ/interval_test.cc recomputes it and fails when it is stale.\n"
      "intervals:\n";
  for (const auto& p : r.paths) {
    if (!p.available) continue;
    Band b = BandFrom(TimeRatios(p));
    y += fmt::format(
        "  {}:\n    p10: {:.4f}\n    p90: {:.4f}\n    cases: {}\n"
        "    source: \"rlcost validate .../{} ({} path): 10th-90th percentile of predicted/measured over {} "
        "published step-time and wall-time figures (in-sample for these runs)\"\n",
        ToString(p.path), b.p10, b.p90, b.cases, dir_label, ToString(p.path), b.cases);
  }
  return y;
}

}  // namespace rlcost::interval
