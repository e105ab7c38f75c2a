// The learning side of `rlcost validate` (fit/learning.h; docs/model.md, sec. 7d).
#include "fit/learning.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "fit/validate.h"

namespace rlcost::learning {
namespace fs = std::filesystem;
namespace {

Error Bad(const std::string& file, const std::string& field, const std::string& what) {
  return Error::Invalid(fmt::format("{}: {}", file, field), what);
}

Result<double> Number(const YAML::Node& n, const std::string& file, const std::string& field, double lo, double hi) {
  if (!n.IsDefined() || !n.IsScalar()) return Fail(Bad(file, field, "missing; expected a number"));
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    return Fail(Bad(file, field, fmt::format("\"{}\"; expected a number", n.Scalar())));
  }
  if (!(v >= lo && v <= hi)) return Fail(Bad(file, field, fmt::format("{}; expected {} to {}", v, lo, hi)));
  return v;
}

std::string Text(const YAML::Node& n) { return n.IsDefined() && n.IsScalar() ? n.Scalar() : std::string(); }

Result<signal::RunShape> Shape(const YAML::Node& n, const PassRateSpec& pr, const std::string& file,
                               const std::string& key) {
  signal::RunShape s;
  auto g = Number(n["group_size"], file, key + ".group_size", 1, 4096);
  if (!g) return Fail(g.error());
  auto p = Number(n["prompts_per_step"], file, key + ".prompts_per_step", 1, 1e7);
  if (!p) return Fail(p.error());
  s.group_size = int(*g);
  s.prompts_per_step = *p;
  s.pass_rate = pr;
  return s;
}

Result<Case> LoadCase(const fs::path& path) {
  const std::string file = path.filename().string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    return Fail(Bad(file, "(file)", std::string("not YAML: ") + e.what()));
  }
  Case c;
  c.file = file;
  c.id = Text(root["case"]);
  c.effect = Text(root["effect"]);
  c.paper = Text(root["source"]["paper"]);
  c.where = Text(root["source"]["where"]);
  c.read = Text(root["source"]["read"]);
  if (c.paper.empty() || c.where.empty() || c.read.empty()) {
    return Fail(Bad(file, "source", "expected paper, where and read: every figure is read from a cited source"));
  }
  auto mean = Number(root["pass_rate"]["mean"], file, "pass_rate.mean", 1e-6, 1 - 1e-6);
  if (!mean) return Fail(mean.error());
  auto kappa = Number(root["pass_rate"]["concentration"], file, "pass_rate.concentration", 1e-3, 1e6);
  if (!kappa) return Fail(kappa.error());
  PassRateSpec pr;
  pr.kind = PassRateSpec::Kind::kBeta;
  pr.a = *mean * *kappa;
  pr.b = (1 - *mean) * *kappa;
  auto a = Shape(root["a"], pr, file, "a");
  if (!a) return Fail(a.error());
  auto b = Shape(root["b"], pr, file, "b");
  if (!b) return Fail(b.error());
  c.a = *a;
  c.b = *b;
  auto m = Number(root["measured"]["steps_ratio"], file, "measured.steps_ratio", 1e-9, 1e9);
  if (!m) return Fail(m.error());
  c.measured = *m;
  auto t = Number(root["measured"]["tolerance"], file, "measured.tolerance", 0, 10);
  if (!t) return Fail(t.error());
  c.tolerance = *t;
  c.reading = Text(root["measured"]["reading"]);
  return c;
}

double Predict(const Case& c, signal::LearningModel m, double rho) { return signal::StepsRatio(m, c.a, c.b, rho); }
double Err(double pred, double meas) { return pred / meas - 1; }
bool In(const Case& c, double err) { return std::isfinite(err) && std::abs(err) <= c.tolerance; }

}  // namespace

Result<std::vector<Case>> LoadDir(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
  }
  if (ec) return Fail(Error::Invalid("learning", fmt::format("\"{}\": {}; expected a folder of case files", dir, ec.message())));
  std::sort(files.begin(), files.end());
  std::vector<Case> out;
  for (const auto& f : files) {
    auto c = LoadCase(f);
    if (!c) return Fail(c.error());
    out.push_back(std::move(*c));
  }
  if (out.empty()) return Fail(Error::Invalid("learning", fmt::format("\"{}\": no case files (*.yaml)", dir)));
  return out;
}

double FitRho(const std::vector<Case>& cases, int skip) {
  auto all_in = [&](double rho) {
    for (size_t i = 0; i < cases.size(); ++i) {
      if (int(i) == skip) continue;
      const Case& c = cases[i];
      // Strictly inside, so that a case on the edge does not flip on rounding.
      if (!(std::abs(Err(Predict(c, signal::LearningModel::kNoiseScale, rho), c.measured)) <= c.tolerance * (1 - 1e-9))) {
        return false;
      }
    }
    return true;
  };
  if (!all_in(0)) return 0;
  double lo = 0, hi = 10;
  if (all_in(hi)) return hi;
  for (int k = 0; k < 200 && hi - lo > 1e-12; ++k) {
    const double mid = (lo + hi) / 2;
    (all_in(mid) ? lo : hi) = mid;
  }
  return lo;
}

Report Validate(std::vector<Case> cases, std::string dir_name) {
  Report r;
  r.dir_name = std::move(dir_name);
  r.cases = std::move(cases);
  for (auto m : {signal::LearningModel::kUsefulSamples, signal::LearningModel::kNoiseScale}) {
    ModelReport mr;
    mr.model = m;
    const bool fitted = m == signal::LearningModel::kNoiseScale;
    mr.rho = fitted ? FitRho(r.cases) : 0;
    std::vector<double> oos_abs;
    for (size_t i = 0; i < r.cases.size(); ++i) {
      const Case& c = r.cases[i];
      Prediction p;
      p.in_sample = Predict(c, m, mr.rho);
      p.in_sample_error = Err(p.in_sample, c.measured);
      p.rho_oos = fitted ? FitRho(r.cases, int(i)) : 0;
      p.oos = Predict(c, m, p.rho_oos);
      p.oos_error = Err(p.oos, c.measured);
      mr.in_passed += In(c, p.in_sample_error);
      mr.oos_passed += In(c, p.oos_error);
      oos_abs.push_back(p.oos_error);
      mr.predictions.push_back(p);
    }
    mr.oos_median_abs_error = validate::MedianAbs(oos_abs);
    r.models.push_back(std::move(mr));
  }
  const ModelReport& u = r.models[0];
  const ModelReport& n = r.models[1];
  const bool noise = n.oos_passed > u.oos_passed ||
                     (n.oos_passed == u.oos_passed && n.oos_median_abs_error <= u.oos_median_abs_error);
  r.chosen = std::string(signal::ToString(noise ? n.model : u.model));
  return r;
}

namespace {
std::string Pct(double e) { return std::isfinite(e) ? fmt::format("{:+.1f}%", 100 * e) : "n/a"; }
std::string Verdict(const Case& c, double e) { return In(c, e) ? "pass" : "FAIL"; }
}  // namespace

std::string ToText(const Report& r) {
  std::string s = fmt::format("\nlearning side ({}): {} published ablations, steps of b over steps of a to the same quality\n",
                              r.dir_name, r.cases.size());
  for (const auto& m : r.models) {
    const bool fitted = m.model == signal::LearningModel::kNoiseScale;
    s += fmt::format("  model {}{}: in sample {}/{} within tolerance, out of sample (leave-one-out) {}/{}, median |error| {:.1f}%\n",
                     signal::ToString(m.model), fitted ? fmt::format(" (rho = {:.4g}, fitted)", m.rho) : "",
                     m.in_passed, r.cases.size(), m.oos_passed, r.cases.size(), 100 * m.oos_median_abs_error);
  }
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const Case& c = r.cases[i];
    s += fmt::format("  {:<44} measured {:.4g}", c.file, c.measured);
    for (const auto& m : r.models) {
      const Prediction& p = m.predictions[i];
      s += fmt::format("  {} {:.4g} ({}, oos {} {})", signal::ToString(m.model), p.in_sample, Pct(p.in_sample_error),
                       Pct(p.oos_error), Verdict(c, p.oos_error));
    }
    s += "\n";
  }
  s += fmt::format("  default learning model chosen by this evidence: {}\n", r.chosen);
  return s;
}

std::string ToMarkdown(const Report& r) {
  std::string s = "\n## The learning side: steps to a quality (validation/learning/)\n\n";
  s += fmt::format(
      "{} published ablations, each the steps of run b over those of run a to the same quality, predicted by the two "
      "learning models of docs/model.md sec. 7d. The noise-scale model's rho is fitted to the set (the largest rho "
      "that keeps every case within its tolerance); out of sample, each case is predicted with rho fitted to the "
      "others (leave-one-out).\n\n",
      r.cases.size());
  s += "| model | parameter | in sample | out of sample | median abs. error (out of sample) |\n|---|---|---|---|---|\n";
  for (const auto& m : r.models) {
    const bool fitted = m.model == signal::LearningModel::kNoiseScale;
    s += fmt::format("| {} | {} | {}/{} | {}/{} | {:.1f}% |\n", signal::ToString(m.model),
                     fitted ? fmt::format("rho = {:.4g}", m.rho) : "none", m.in_passed, r.cases.size(), m.oos_passed,
                     r.cases.size(), 100 * m.oos_median_abs_error);
  }
  s += fmt::format("\nDefault learning model chosen by this evidence: **{}**.\n\n", r.chosen);
  s += "| case | a (G x prompts) | b (G x prompts) | measured | useful_samples (oos) | noise_scale (oos) | source |\n"
       "|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.cases.size(); ++i) {
    const Case& c = r.cases[i];
    const Prediction& u = r.models[0].predictions[i];
    const Prediction& n = r.models[1].predictions[i];
    s += fmt::format("| {} | {} x {:g} | {} x {:g} | {:.4g} | {:.4g} ({}, {}) | {:.4g} ({}, {}) | {}, {} |\n", c.file,
                     c.a.group_size, c.a.prompts_per_step, c.b.group_size, c.b.prompts_per_step, c.measured, u.oos,
                     Pct(u.oos_error), Verdict(c, u.oos_error), n.oos, Pct(n.oos_error), Verdict(c, n.oos_error),
                     c.paper, c.where);
  }
  return s;
}

}  // namespace rlcost::learning
