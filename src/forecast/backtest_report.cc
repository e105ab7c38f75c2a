// The forecast's back-test over several runs and its tables.
#include "forecast/backtest_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

namespace rlcost::forecast {
namespace {

constexpr double kFractions[] = {0.3, 0.5, 0.7};
constexpr int kTargetsPerCase = 3;

std::string N0(double v) { return std::isfinite(v) ? fmt::format("{:.0f}", v) : (std::isnan(v) ? "n/a" : "beyond reach"); }

}  // namespace

BacktestRun RunBacktest(const std::vector<ProgressSeries>& runs, const Options& base,
                        const std::vector<double>& fractions) {
  const std::vector<double> fs =
      fractions.empty() ? std::vector<double>(std::begin(kFractions), std::end(kFractions)) : fractions;
  BacktestRun out;
  for (const auto& s : runs) {
    out.runs.push_back(fmt::format("{} ({}: {} points, steps {}..{})", s.path, s.metric, s.points.size(), s.first_step,
                                   s.last_step));
    auto c = Backtest(s, fs, kTargetsPerCase, base);
    out.cases.insert(out.cases.end(), c.begin(), c.end());
  }
  return out;
}

BacktestSummary Summarize(const std::vector<BacktestCase>& cases, double fraction) {
  BacktestSummary s;
  std::vector<double> errs;
  std::map<std::string, std::pair<int, int>> per_curve;  // pass, total
  for (const auto& c : cases) {
    if (fraction >= 0 && std::abs(c.fraction - fraction) > 1e-9) continue;
    ++s.cases;
    s.with_interval += !std::isnan(c.low);
    const bool within = c.within(0.3), covered = c.covered();
    s.forecast += c.ok;
    s.within30 += within;
    s.covered += covered;
    s.pass += within || covered;
    if (c.ok) errs.push_back(std::abs(c.rel_error()));
    auto& pc = per_curve[c.curve];
    pc.first += within || covered;
    pc.second += 1;
  }
  if (!errs.empty()) {
    std::sort(errs.begin(), errs.end());
    const size_t m = errs.size() / 2;
    s.median_abs_error = errs.size() % 2 ? errs[m] : (errs[m - 1] + errs[m]) / 2;
  } else {
    s.median_abs_error = std::nan("");
  }
  for (const auto& [name, pt] : per_curve) {
    ++s.curves;
    s.curves_pass += 2 * pt.first >= pt.second;
  }
  return s;
}

nlohmann::json BacktestToJson(const BacktestRun& b) {
  nlohmann::json j;
  j["runs"] = b.runs;
  nlohmann::json cases = nlohmann::json::array();
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("n/a"); };
  for (const auto& c : b.cases) {
    cases.push_back({{"curve", c.curve},
                     {"fraction", c.fraction},
                     {"fit_until", c.fit_until},
                     {"target", c.target},
                     {"true_step", c.true_step},
                     {"steps_to_target", c.ok ? num(c.forecast) : nlohmann::json("n/a")},
                     {"low", num(c.low)},
                     {"high", num(c.high)},
                     {"p_beyond_reach", c.p_beyond},
                     {"model", c.model},
                     {"rel_error", c.ok ? num(c.rel_error()) : nlohmann::json("n/a")},
                     {"within_30pct", c.within(0.3)},
                     {"interval_holds", c.covered()},
                     {"reason", c.reason}});
  }
  j["cases"] = cases;
  for (double f : kFractions) {
    auto s = Summarize(b.cases, f);
    j["summary"][fmt::format("{:.0f}%", 100 * f)] = {{"cases", s.cases},
                                                     {"forecast", s.forecast},
                                                     {"within_30pct", s.within30},
                                                     {"interval_holds", s.covered},
                                                     {"pass", s.pass},
                                                     {"median_abs_rel_error", num(s.median_abs_error)},
                                                     {"curves", s.curves},
                                                     {"curves_pass", s.curves_pass}};
  }
  auto all = Summarize(b.cases, -1);
  j["summary"]["all"] = {{"cases", all.cases}, {"with_interval", all.with_interval}, {"interval_holds", all.covered}};
  return j;
}

std::string BacktestToMarkdown(const BacktestRun& b, bool md) {
  std::string out;
  out += md ? "Runs:\n\n" : "runs:\n";
  for (const auto& r : b.runs) out += (md ? "- " : "  ") + r + "\n";
  out += "\n";
  // One row a case; the text form aligns the columns under a header.
  std::vector<std::vector<std::string>> rows = {
      {"fitted", "run", "fit until", "target", "true step", "forecast", "interval", "P(beyond)", "curve", "error",
       "pass"}};
  for (const auto& c : b.cases) {
    const std::string err = c.ok ? fmt::format("{:+.0f}%", 100 * c.rel_error()) : "n/a";
    const std::string pass = c.within(0.3) ? (c.covered() ? "within 30%, in interval" : "within 30%")
                                           : (c.covered() ? "in interval" : "no");
    rows.push_back({fmt::format("{:.0f}%", 100 * c.fraction), c.curve, std::to_string(c.fit_until),
                    fmt::format("{:.3f}", c.target), std::to_string(c.true_step), c.ok ? N0(c.forecast) : "n/a",
                    N0(c.low) + " .. " + N0(c.high), fmt::format("{:.0f}%", 100 * c.p_beyond),
                    c.model.empty() ? "-" : c.model, err, pass});
  }
  if (md) {
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string line = "|";
      for (const auto& cell : rows[i]) line += " " + cell + " |";
      out += line + "\n";
      if (i == 0) out += "|---|---|---|---|---|---|---|---|---|---|---|\n";
    }
  } else if (rows.size() > 1) {
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& row : rows) {
      for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
    }
    for (const auto& row : rows) {
      std::string line = " ";
      for (size_t k = 0; k < row.size(); ++k) {
        line += " " + row[k];
        if (k + 1 < row.size()) line += std::string(width[k] - row[k].size() + 1, ' ');
      }
      out += line + "\n";
    }
  } else {
    out += "  no target to score: no run reaches a level above its fitted part's best after the fitted part\n";
  }
  out += "\n";
  for (double f : kFractions) {
    auto s = Summarize(b.cases, f);
    out += fmt::format(
        "{}fitted on the first {:.0f}%: {} targets, {} forecast a step; median |error| {}; within 30%: {}/{}; "
        "interval holds the true step: {}/{}; within 30% or held: {}/{}; curves passing (half their targets or "
        "more): {}/{}\n",
        md ? "- " : "", 100 * f, s.cases, s.forecast,
        std::isfinite(s.median_abs_error) ? fmt::format("{:.0f}%", 100 * s.median_abs_error) : "n/a", s.within30,
        s.cases, s.covered, s.cases, s.pass, s.cases, s.curves_pass, s.curves);
  }
  auto all = Summarize(b.cases, -1);
  out += fmt::format("{}all fractions: the interval was given for {} of {} targets and held the true step for {} of "
                     "them ({:.0f}%)\n",
                     md ? "- " : "", all.with_interval, all.cases, all.covered,
                     all.with_interval ? 100.0 * all.covered / all.with_interval : 0.0);
  return out;
}

}  // namespace rlcost::forecast
