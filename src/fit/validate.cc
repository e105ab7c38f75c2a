#include "fit/validate.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/file.h"
#include "core/yaml.h"
#include "rlcost/embedded.h"
#include "scenario/reader.h"
#include "core/cancel.h"

namespace rlcost::validate {
namespace {

namespace fs = std::filesystem;

std::string Key(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::path(path), ec);
  return ec ? path : p.string();
}

std::string FileName(const std::string& path) { return fs::path(path).filename().string(); }

// Problem naming the scenario file and the expect key.
Problem ExpectProblem(const std::string& file, const std::string& path, std::string message) {
  Problem p{path, std::move(message)};
  p.file = file;
  return p;
}

const std::vector<Fact>& FactsOf(const Options& opt, const std::string& path) {
  static const std::vector<Fact> kNone;
  if (!opt.facts) return kNone;
  auto it = opt.facts->by_case.find(FileName(path));
  return it == opt.facts->by_case.end() ? kNone : it->second;
}

std::vector<const InSample*> InSampleOf(const std::vector<InSample>& list, const std::string& path) {
  std::vector<const InSample*> out;
  const std::string name = FileName(path);
  for (const auto& e : list) {
    if (std::find(e.cases.begin(), e.cases.end(), name) != e.cases.end()) out.push_back(&e);
  }
  return out;
}

class Runner {
 public:
  Runner(const Catalog& cat, const Options& opt) : cat_(cat), opt_(opt) {}

  Result<const Scenario*> Load(const std::string& path) {
    std::string k = Key(path);
    if (auto it = scenarios_.find(k); it != scenarios_.end()) return it->second.get();
    std::vector<Override> ovs = opt_.overrides;
    for (const Fact& f : FactsOf(opt_, path)) ovs.push_back({f.path, f.value});
    auto s = LoadScenarioFile(path, cat_, ovs);
    if (!s) return Fail(s.error());
    if (opt_.calibration) ApplyCalibration(*opt_.calibration, *s);
    auto owned = std::make_unique<Scenario>(std::move(*s));
    const Scenario* raw = owned.get();
    scenarios_[k] = std::move(owned);
    return raw;
  }

  const Result<rlcost::Estimate>& Get(const std::string& path, const Scenario& s, Path p) {
    std::string k = Key(path) + (p == Path::kAnalytic ? "#a" : "#s");
    auto it = estimates_.find(k);
    if (it == estimates_.end()) {
      it = estimates_.emplace(k, p == Path::kAnalytic ? EstimateAnalytic(s) : EstimateSimulated(s, opt_.sim)).first;
    }
    return it->second;
  }

  // The estimates of `p` for these scenarios computed ahead of Get, in
  // parallel over cases: each is one independent, deterministic computation
  // (its own simulator and random streams, the catalog read-only), so the
  // results are the same bits as computed one after another in Get's order.
  // The most work first (steps x rollouts per step), so that a long case does
  // not start last.
  void Precompute(const std::vector<std::pair<std::string, const Scenario*>>& todo, Path p) {
    std::vector<std::pair<std::string, const Scenario*>> work;
    for (const auto& [path, s] : todo) {
      std::string k = Key(path) + (p == Path::kAnalytic ? "#a" : "#s");
      if (estimates_.count(k)) continue;
      if (std::any_of(work.begin(), work.end(), [&](const auto& w) { return w.first == k; })) continue;
      work.emplace_back(k, s);
    }
    auto weight = [&](const Scenario& s) {
      const double steps = opt_.sim.steps > 0 ? opt_.sim.steps : std::max(1, s.algorithm.steps);
      return steps * double(std::max(1, s.algorithm.prompts_per_step)) * std::max(1, s.algorithm.group_size) *
             std::max(1.0, s.environment.turns.mean());
    };
    std::stable_sort(work.begin(), work.end(),
                     [&](const auto& a, const auto& b) { return weight(*a.second) > weight(*b.second); });
    std::vector<std::optional<Result<rlcost::Estimate>>> out(work.size());
    std::atomic<size_t> next{0};
    const std::atomic<bool>* cancel = CancelFlag();
    auto run = [&] {
      ScopedCancel scope(cancel);  // the caller's cancellation reaches every case
      for (size_t i; (i = next.fetch_add(1)) < work.size();) {
        const Scenario& s = *work[i].second;
        out[i].emplace(p == Path::kAnalytic ? EstimateAnalytic(s) : EstimateSimulated(s, opt_.sim));
      }
    };
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const size_t threads = std::min(cores, work.size());
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(run);
      } catch (const std::system_error&) {
        break;  // under a thread limit: the cases run on the threads that started
      }
    }
    run();
    for (auto& th : pool) th.join();
    for (size_t i = 0; i < work.size(); ++i) estimates_.emplace(work[i].first, std::move(*out[i]));
  }

 private:
  const Catalog& cat_;
  const Options& opt_;
  std::map<std::string, std::unique_ptr<Scenario>> scenarios_;
  std::map<std::string, Result<rlcost::Estimate>> estimates_;
};

// The metric of an estimate, or why not.
struct Value {
  double v = 0;
  Status status = Status::kPass;  // kPass = have a value
  std::string message;
};

Value MetricOf(const Result<Estimate>& e, const MetricDef& m, const std::string& file) {
  if (!e) {
    const Error& err = e.error();
    std::string msg = err.problems.empty() ? std::string(ToString(err.code)) : err.problems.front().ToString();
    return {0, err.code == ErrorCode::kNotImplemented ? Status::kUnavailable : Status::kError,
            file + ": " + msg};
  }
  auto v = m.get(*e);
  if (!v || !std::isfinite(*v)) return {0, Status::kError, file + ": " + std::string(m.key) + " is not applicable"};
  return {*v, Status::kPass, ""};
}

void Judge(Check& c) {
  c.error = c.predicted / c.measured - 1;
  c.status = std::abs(c.error) <= c.tolerance + 1e-12 ? Status::kPass : Status::kFail;
}

}  // namespace

std::string_view ToString(Path p) { return p == Path::kAnalytic ? "analytic" : "simulated"; }

std::string_view ToString(Status s) {
  switch (s) {
    case Status::kPass: return "pass";
    case Status::kFail: return "FAIL";
    case Status::kUnavailable: return "not available";
    case Status::kError: return "ERROR";
  }
  return "ERROR";
}

bool Report::AllPass() const {
  for (const auto& p : paths) {
    if (p.failed > 0) return false;
  }
  return true;
}

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Absolute metrics grouped by key (ratios between two cases left out: they
// are no phase of one run).
std::vector<MetricSummary> SummarizeByMetric(const std::vector<Check>& checks) {
  std::map<std::string, std::vector<const Check*>> by_key;
  for (const auto& c : checks) {
    if (c.relative_to.empty() && (c.status == Status::kPass || c.status == Status::kFail)) by_key[c.key].push_back(&c);
  }
  std::vector<MetricSummary> out;
  for (const auto& [key, list] : by_key) {
    MetricSummary m;
    m.key = key;
    std::vector<double> ratios;
    for (const Check* c : list) {
      ++m.cases;
      if (c->status == Status::kPass) ++m.passed;
      ratios.push_back(1.0 + c->error);
    }
    m.median_ratio = Median(ratios);
    m.min_ratio = *std::min_element(ratios.begin(), ratios.end());
    m.max_ratio = *std::max_element(ratios.begin(), ratios.end());
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

double MedianAbs(std::vector<double> v) {
  for (double& x : v) x = std::abs(x);
  return Median(std::move(v));
}

Result<Report> ValidateFiles(const std::vector<std::string>& files_in, const Catalog& cat, const Options& opt) {
  std::vector<std::string> files = files_in;
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return FileName(a) < FileName(b);
  });
  Runner run(cat, opt);
  const std::vector<InSample>& in_sample = opt.in_sample ? *opt.in_sample : BuiltinInSample();
  Report rep;
  Error bad;
  struct Loaded {
    std::string path;
    const Scenario* s;
    std::string other_path;
    const Scenario* other = nullptr;
  };
  std::vector<Loaded> with_expect;
  for (const auto& f : files) {
    auto s = run.Load(f);
    if (!s) {
      for (auto p : s.error().problems) {
        if (p.file.empty()) p.file = f;
        bad.problems.push_back(p);
      }
      continue;
    }
    ++rep.scenarios;
    const Scenario& sc = **s;
    if (!sc.expect) continue;
    // Unknown metric keys are the user's mistake: name the file and the key.
    std::vector<std::string> known;
    for (const auto& m : Metrics()) known.emplace_back(m.key);
    auto check_keys = [&](const std::map<std::string, ExpectedMetric>& ms, const std::string& where) {
      for (const auto& [key, em] : ms) {
        if (!FindMetric(key)) {
          std::string near = ClosestMatch(key, known);
          bad.problems.push_back(ExpectProblem(f, where + "." + key,
              "unknown metric '" + key + "'" + (near.empty() ? "" : "; did you mean " + near + "?")));
        }
        if (!(em.value > 0) && !(em.value < 0)) {
          bad.problems.push_back(ExpectProblem(f, where + "." + key, "value 0: an error relative to 0 is undefined"));
        }
      }
    };
    check_keys(sc.expect->metrics, "expect.metrics");
    check_keys(sc.expect->relative_metrics, "expect.relative_to.metrics");
    Loaded l{f, &sc, sc.expect->relative_scenario};
    if (!l.other_path.empty()) {
      auto o = run.Load(l.other_path);
      if (!o) {
        for (auto p : o.error().problems) {
          if (p.file.empty()) p.file = l.other_path;
          bad.problems.push_back(p);
        }
        continue;
      }
      l.other = *o;
    } else if (!sc.expect->relative_metrics.empty()) {
      bad.problems.push_back(ExpectProblem(f, "expect.relative_to.scenario", "missing: relative metrics need a scenario"));
    }
    with_expect.push_back(l);
    rep.cases.push_back({FileName(f), sc.name, sc.expect->source, FactsOf(opt, f), InSampleOf(in_sample, f)});
  }
  if (opt.facts) {
    // A fact for a file that is not here is a typo or a stale facts file: say so.
    rep.facts_file = opt.facts->file;
    std::vector<std::string> names;
    for (const auto& f : files) names.push_back(FileName(f));
    for (const auto& [name, facts] : opt.facts->by_case) {
      if (std::find(names.begin(), names.end(), name) != names.end()) continue;
      std::string near = ClosestMatch(name, names);
      bad.problems.push_back(ExpectProblem(opt.facts->file, "facts." + name,
          "no scenario file of that name among the " + std::to_string(names.size()) + " validated" +
          (near.empty() ? "" : "; did you mean " + near + "?")));
    }
  }
  if (!bad.problems.empty()) return Fail(bad);
  // Passing over nothing is not a pass: say that no file holds a figure.
  size_t expected = 0;
  for (const auto& l : with_expect) expected += l.s->expect->metrics.size() + l.s->expect->relative_metrics.size();
  if (expected == 0) {
    return Fail(ErrorCode::kInvalidInput, "expect",
                fmt::format("none of the {} scenario files has an 'expect' block with metrics, so there is nothing "
                            "to validate; expected at least one file with expect: {{metrics: {{...}}}}",
                            files.size()));
  }

  if (opt.simulated) {
    // Every simulation the checks below read, run ahead of them in parallel.
    std::vector<std::pair<std::string, const Scenario*>> todo;
    for (const auto& l : with_expect) {
      todo.emplace_back(l.path, l.s);
      if (!l.s->expect->relative_metrics.empty()) todo.emplace_back(l.other_path, l.other);
    }
    run.Precompute(todo, Path::kSimulated);
  }
  std::vector<Path> paths;
  if (opt.analytic) paths.push_back(Path::kAnalytic);
  if (opt.simulated) paths.push_back(Path::kSimulated);
  for (Path p : paths) {
    PathResult pr;
    pr.path = p;
    for (const auto& l : with_expect) {
      const Scenario& sc = *l.s;
      const auto& est = run.Get(l.path, sc, p);
      for (const auto& [key, em] : sc.expect->metrics) {
        Check c{FileName(l.path), sc.name, key, "", em.value, em.tolerance};
        c.in_sample = !InSampleOf(in_sample, l.path).empty();
        Value v = MetricOf(est, *FindMetric(key), FileName(l.path));
        if (v.status != Status::kPass) {
          c.status = v.status;
          c.message = v.message;
        } else {
          c.predicted = v.v;
          Judge(c);
        }
        pr.checks.push_back(c);
      }
      for (const auto& [key, em] : sc.expect->relative_metrics) {
        Check c{FileName(l.path), sc.name, key, FileName(l.other_path), em.value, em.tolerance};
        c.in_sample = !InSampleOf(in_sample, l.path).empty() || !InSampleOf(in_sample, l.other_path).empty();
        const auto& oest = run.Get(l.other_path, *l.other, p);
        Value a = MetricOf(est, *FindMetric(key), FileName(l.path));
        Value b = MetricOf(oest, *FindMetric(key), FileName(l.other_path));
        if (a.status != Status::kPass || b.status != Status::kPass) {
          const Value& w = a.status != Status::kPass ? a : b;
          c.status = w.status;
          c.message = w.message;
        } else if (!(b.v > 0) && !(b.v < 0)) {
          c.status = Status::kError;
          c.message = FileName(l.other_path) + ": " + key + " is 0; the ratio is undefined";
        } else {
          c.predicted = a.v / b.v;
          Judge(c);
        }
        pr.checks.push_back(c);
      }
    }
    std::vector<double> errs, oos_errs;
    for (const auto& c : pr.checks) {
      switch (c.status) {
        case Status::kPass: ++pr.passed; errs.push_back(c.error); break;
        case Status::kFail: ++pr.failed; errs.push_back(c.error); break;
        case Status::kError: ++pr.failed; break;
        case Status::kUnavailable: ++pr.unavailable; break;
      }
      if (c.in_sample || c.status == Status::kUnavailable) continue;
      ++pr.oos_metrics;
      if (c.status == Status::kPass) ++pr.oos_passed;
      else ++pr.oos_failed;
      if (c.status != Status::kError) oos_errs.push_back(c.error);
    }
    pr.median_abs_error = MedianAbs(errs);
    pr.oos_median_abs_error = MedianAbs(oos_errs);
    pr.by_metric = SummarizeByMetric(pr.checks);
    if (!errs.empty()) {
      pr.max_abs_error = 0;
      for (double e : errs) pr.max_abs_error = std::max(pr.max_abs_error, std::abs(e));
    }
    if (!pr.checks.empty() && pr.unavailable == static_cast<int>(pr.checks.size())) {
      pr.available = false;
      pr.reason = pr.checks.front().message;
    }
    rep.paths.push_back(std::move(pr));
  }
  return rep;
}

Result<Facts> LoadFacts(const std::string& path) {
  static constexpr const char* kNoSource = "; a fact without its source is an assumption";
  auto text = ReadBoundedFile(path, kMaxScenarioBytes, "facts file");
  if (!text) return Fail(text.error());
  auto doc = LoadOneYamlDocument(*text, path, "a facts file");
  if (!doc) return Fail(doc.error());
  YAML::Node root = *doc;
  scenario_internal::Reader r(path);
  Facts out;
  out.file = path;
  YAML::Node facts = root.IsMap() ? scenario_internal::Reader::Child(root, "facts") : YAML::Node();
  if (!facts.IsMap()) {
    r.Add(root, "facts", "missing; expected a mapping of case file name -> list of {set, value, source}");
  } else {
    for (const auto& kv : facts) {
      const std::string name = kv.first.as<std::string>();
      const std::string where = "facts." + name;
      if (!kv.second.IsSequence()) {
        r.Add(kv.second, where, "expected a list of {set, value, source}");
        continue;
      }
      std::vector<Fact>& list = out.by_case[name];
      for (size_t i = 0; i < kv.second.size(); ++i) {
        const YAML::Node f = kv.second[i];
        const std::string at = where + "[" + std::to_string(i) + "]";
        if (!f.IsMap()) {
          r.Add(f, at, "expected a mapping {set, value, source}");
          continue;
        }
        r.CheckKeys(f, at, {"set", "value", "source"});
        Fact fact;
        bool ok = true;
        for (auto [key, dst] : {std::pair{"set", &fact.path}, std::pair{"value", &fact.value},
                                std::pair{"source", &fact.source}}) {
          const YAML::Node v = scenario_internal::Reader::Child(f, key);
          if (!v.IsDefined()) {
            r.Add(f, scenario_internal::Join(at, key),
                  std::string("missing") + (std::string_view(key) == "source" ? kNoSource : ""));
            ok = false;
          } else if (v.IsScalar()) {
            *dst = v.Scalar();
          } else {  // a flow value, as `--set` takes it
            YAML::Emitter e;
            e << YAML::Flow << v;
            *dst = e.c_str();
          }
        }
        if (ok && fact.source.empty()) {
          r.Add(f, scenario_internal::Join(at, "source"), std::string("empty") + kNoSource);
          ok = false;
        }
        if (ok) list.push_back(std::move(fact));
      }
    }
  }
  if (!r.problems().empty()) {
    Error err;
    err.problems = r.TakeProblems();
    return Fail(err);
  }
  return out;
}

Result<std::vector<InSample>> ParseInSample(std::string_view text, const std::string& origin) {
  if (std::string why = YamlAliasProblem(text); !why.empty()) {
    Error err;
    err.problems.push_back(Problem{"", why, 0, origin});
    return Fail(err);
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    Error err;
    err.problems.push_back(Problem{"", "not valid YAML: " + e.msg, e.mark.line + 1, origin});
    return Fail(err);
  }
  scenario_internal::Reader r(origin);
  std::vector<InSample> out;
  YAML::Node list = root.IsMap() ? scenario_internal::Reader::Child(root, "in_sample") : YAML::Node();
  if (root.IsMap()) r.CheckKeys(root, "", {"in_sample"});
  if (!list.IsSequence()) {
    r.Add(root, "in_sample", "missing; expected a list of {figure, cases, source}");
  } else {
    for (size_t i = 0; i < list.size(); ++i) {
      const YAML::Node e = list[i];
      const std::string at = "in_sample[" + std::to_string(i) + "]";
      if (!e.IsMap()) {
        r.Add(e, at, "expected a mapping {figure, cases, source}");
        continue;
      }
      r.CheckKeys(e, at, {"figure", "cases", "source"});
      InSample entry;
      const YAML::Node fig = scenario_internal::Reader::Child(e, "figure");
      const YAML::Node cases = scenario_internal::Reader::Child(e, "cases");
      const YAML::Node src = scenario_internal::Reader::Child(e, "source");
      if (!fig.IsScalar() || fig.Scalar().empty()) r.Add(e, scenario_internal::Join(at, "figure"), "missing; expected the catalog figure");
      else entry.figure = fig.Scalar();
      if (!src.IsScalar() || src.Scalar().empty()) r.Add(e, scenario_internal::Join(at, "source"), "missing; expected where the figure was read off");
      else entry.source = src.Scalar();
      if (!cases.IsSequence() || cases.size() == 0) {
        r.Add(e, scenario_internal::Join(at, "cases"), "expected a non-empty list of case file names");
      } else {
        for (const auto& c : cases) {
          if (c.IsScalar()) entry.cases.push_back(c.Scalar());
          else r.Add(c, scenario_internal::Join(at, "cases"), "expected a case file name");
        }
      }
      out.push_back(std::move(entry));
    }
  }
  if (!r.problems().empty()) {
    Error err;
    err.problems = r.TakeProblems();
    return Fail(err);
  }
  return out;
}

const std::vector<InSample>& BuiltinInSample() {
  static const std::vector<InSample> list = [] {
    auto text = EmbeddedFile("in-sample.yaml");
    auto parsed = text ? ParseInSample(*text, "catalog/in-sample.yaml") : Result<std::vector<InSample>>{};
    // The built-in data is ours: a problem in it is a bug, caught by the tests.
    return parsed ? *parsed : std::vector<InSample>{};
  }();
  return list;
}

Result<std::vector<std::string>> ScenarioFilesIn(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Fail(ErrorCode::kNotFound, dir, "not a directory");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code entry_ec;  // a dangling link or a symlink loop: skip it, never throw
    if (!entry.is_regular_file(entry_ec) || entry_ec) continue;
    std::string ext = entry.path().extension().string();
    if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(entry.path().string());
  }
  if (ec) return Fail(ErrorCode::kNotFound, dir, "cannot list: " + ec.message());
  if (files.empty()) return Fail(ErrorCode::kNotFound, dir, "no scenario files (*.yaml, *.yml, *.json)");
  return files;
}

std::string DirName(const std::string& dir) {
  fs::path p = fs::path(dir).lexically_normal();
  std::string name = p.filename().string();
  if (name.empty()) name = p.parent_path().filename().string();
  return name;
}

Result<Report> ValidateDir(const std::string& dir, const Catalog& cat, const Options& opt) {
  auto files = ScenarioFilesIn(dir);
  if (!files) return Fail(files.error());
  auto rep = ValidateFiles(*files, cat, opt);
  if (!rep) return rep;
  rep->dir_name = DirName(dir);
  return rep;
}

}  // namespace rlcost::validate
