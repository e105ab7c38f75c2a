// `rlcost validate`: expectations, ratios, errors, and the markdown report.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/validate_render.h"
#include "fit/validate.h"
#include "rlcost/embedded.h"
#include "rlcost/estimate.h"

namespace rlcost::validate {
namespace {

namespace fs = std::filesystem;

const std::string kSample = std::string(RLCOST_SOURCE_DIR) + "/tests/data/logs/verl_qwen25_7b_8xh100.scenario.yaml";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh folder with a base scenario (the sample run) and `expect` files.
struct Folder {
  fs::path dir;
  explicit Folder(const std::string& name) {
    dir = fs::temp_directory_path() / ("rlcost_validate_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Folder() { fs::remove_all(dir); }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
  }
};

std::string Base() {
  std::string text = Slurp(kSample);
  return text;
}

double PredictedStep(const Catalog& cat, const std::string& file) {
  auto s = LoadScenarioFile(file, cat);
  EXPECT_TRUE(s.has_value());
  auto e = EstimateAnalytic(*s);
  EXPECT_TRUE(e.has_value());
  return e->step.time_s;
}

TEST(Validate, MedianAbs) {
  // |0.1|, |-0.3|, |0.2| sorted: 0.1, 0.2, 0.3 -> 0.2; even count: (0.1 + 0.4) / 2.
  EXPECT_DOUBLE_EQ(MedianAbs({0.1, -0.3, 0.2}), 0.2);
  EXPECT_DOUBLE_EQ(MedianAbs({0.1, -0.4}), 0.25);
  EXPECT_TRUE(std::isnan(MedianAbs({})));
}

TEST(Validate, AbsoluteAndRelativeMetricsPassAndFail) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  Folder f("absrel");
  double t = PredictedStep(*cat, kSample);
  ASSERT_GT(t, 0);
  // base.yaml measured at 1.1x the prediction: error = 1/1.1 - 1 = -9.09%;
  // passes at tolerance 10%, fails at 5%.
  f.Write("base.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.10}}\n", t * 1.1));
  f.Write("strict.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.05}}\n", t * 1.1));
  // The same run against base: predicted ratio exactly 1; published 0.8 ->
  // error 1/0.8 - 1 = +25%, fails at 20%.
  f.Write("ratio.yaml", Base() + "expect:\n  source: test\n  relative_to:\n    scenario: base.yaml\n    metrics:\n      step.time_s: {value: 0.8, tolerance: 0.20}\n");
  Options opt;
  opt.simulated = false;
  auto rep = ValidateDir(f.dir.string(), *cat, opt);
  ASSERT_TRUE(rep.has_value()) << rep.error().ToString();
  ASSERT_EQ(rep->paths.size(), 1u);
  const PathResult& p = rep->paths[0];
  ASSERT_EQ(p.checks.size(), 3u);
  // Sorted by file name: base, ratio, strict.
  EXPECT_EQ(p.checks[0].file, "base.yaml");
  EXPECT_NEAR(p.checks[0].error, 1 / 1.1 - 1, 1e-9);
  EXPECT_EQ(p.checks[0].status, Status::kPass);
  EXPECT_EQ(p.checks[1].relative_to, "base.yaml");
  EXPECT_NEAR(p.checks[1].predicted, 1.0, 1e-12);
  EXPECT_NEAR(p.checks[1].error, 0.25, 1e-9);
  EXPECT_EQ(p.checks[1].status, Status::kFail);
  EXPECT_EQ(p.checks[2].status, Status::kFail);
  EXPECT_EQ(p.passed, 1);
  EXPECT_EQ(p.failed, 2);
  // |errors| 0.0909, 0.25, 0.0909 -> median 0.0909.
  EXPECT_NEAR(p.median_abs_error, 1 - 1 / 1.1, 1e-9);
  // Phase by phase: step.time_s over base and strict (the ratio is no phase
  // of one run): both predicted at 1/1.1 of the measured, one passes.
  ASSERT_EQ(p.by_metric.size(), 1u);
  EXPECT_EQ(p.by_metric[0].key, "step.time_s");
  EXPECT_EQ(p.by_metric[0].cases, 2);
  EXPECT_EQ(p.by_metric[0].passed, 1);
  EXPECT_NEAR(p.by_metric[0].median_ratio, 1 / 1.1, 1e-9);
  EXPECT_NEAR(p.by_metric[0].min_ratio, 1 / 1.1, 1e-9);
  EXPECT_NEAR(p.by_metric[0].max_ratio, 1 / 1.1, 1e-9);
  EXPECT_FALSE(rep->AllPass());
  EXPECT_EQ(rep->dir_name, f.dir.filename().string());
}

TEST(Validate, InSampleCasesAreMarkedAndLeftOutOfTheOutOfSampleMedian) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  Folder f("insample");
  double t = PredictedStep(*cat, kSample);
  // base.yaml: error 1/1.1 - 1 = -9.09%; other.yaml: 1/2 - 1 = -50%;
  // ratio.yaml against base: predicted 1, published 0.8 -> +25%.
  f.Write("base.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.10}}\n", t * 1.1));
  f.Write("other.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.10}}\n", t * 2));
  f.Write("ratio.yaml", Base() + "expect:\n  source: test\n  relative_to:\n    scenario: base.yaml\n    metrics:\n      step.time_s: {value: 0.8, tolerance: 0.20}\n");
  auto list = ParseInSample("in_sample:\n  - {figure: efficiency.h100-sxm.decode_bw, cases: [base.yaml], source: its blog}\n", "t.yaml");
  ASSERT_TRUE(list.has_value()) << list.error().ToString();
  Options opt;
  opt.simulated = false;
  opt.in_sample = &*list;
  auto rep = ValidateDir(f.dir.string(), *cat, opt);
  ASSERT_TRUE(rep.has_value()) << rep.error().ToString();
  const PathResult& p = rep->paths[0];
  ASSERT_EQ(p.checks.size(), 3u);  // base, other, ratio (by file name)
  EXPECT_TRUE(p.checks[0].in_sample);   // base.yaml itself
  EXPECT_FALSE(p.checks[1].in_sample);  // other.yaml
  EXPECT_TRUE(p.checks[2].in_sample);   // ratio to base.yaml
  // All three: |errors| 0.0909, 0.5, 0.25 -> 0.25; out-of-sample: other.yaml alone -> 0.5.
  EXPECT_NEAR(p.median_abs_error, 0.25, 1e-9);
  EXPECT_EQ(p.oos_metrics, 1);
  EXPECT_EQ(p.oos_failed, 1);
  EXPECT_NEAR(p.oos_median_abs_error, 0.5, 1e-9);
  ASSERT_EQ(rep->cases.size(), 3u);
  ASSERT_EQ(rep->cases[0].in_sample.size(), 1u);
  EXPECT_EQ(rep->cases[0].in_sample[0]->figure, "efficiency.h100-sxm.decode_bw");
  std::string text = api::ValidationToText(*rep);
  EXPECT_NE(text.find("base.yaml: efficiency.h100-sxm.decode_bw (its blog)"), std::string::npos) << text;
  EXPECT_NE(text.find("out-of-sample (no catalog default read off or fitted to these runs): median |error| 50.0% over 1"),
            std::string::npos) << text;
  auto j = api::ValidationToJson(*rep);
  EXPECT_EQ(j["paths"][0]["out_of_sample"]["metrics"], 1);
  EXPECT_EQ(j["paths"][0]["checks"][2]["in_sample"], true);
}

TEST(Validate, InSampleListsNeedAFigureCasesAndASource) {
  auto bad = ParseInSample("in_sample:\n  - {figure: efficiency.h20.decode_bw, cases: []}\n  - {figur: x}\n", "in.yaml");
  ASSERT_FALSE(bad.has_value());
  std::string msg = bad.error().ToString();
  EXPECT_NE(msg.find("in_sample[0].source"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in_sample[0].cases"), std::string::npos) << msg;
  EXPECT_NE(msg.find("figur"), std::string::npos) << msg;
  // The built-in list parses (a problem there would silently drop it).
  auto text = EmbeddedFile("in-sample.yaml");
  ASSERT_TRUE(text.has_value());
  auto builtin = ParseInSample(*text, "catalog/in-sample.yaml");
  EXPECT_TRUE(builtin.has_value()) << builtin.error().ToString();
}

TEST(Validate, UnknownMetricKeyNamesFileAndKey) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  Folder f("unknown");
  f.Write("typo.yaml", Base() + "expect:\n  source: test\n  metrics:\n    step.tme_s: {value: 10, tolerance: 0.1}\n");
  auto rep = ValidateDir(f.dir.string(), *cat, Options{});
  ASSERT_FALSE(rep.has_value());
  std::string msg = rep.error().ToString();
  EXPECT_NE(msg.find("typo.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expect.metrics.step.tme_s"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean step.time_s?"), std::string::npos) << msg;
}

TEST(Validate, FactsApplyPerCaseAndAreListedWithTheirSource) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  Folder f("facts");
  double t = PredictedStep(*cat, kSample);
  f.Write("base.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.5}}\n", t));
  f.Write("other.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.5}}\n", t));
  // A fact that makes the update cheaper (no reference pass) on one case only.
  f.Write("facts.yaml",
          "facts:\n  base.yaml:\n    - {set: algorithm.reference_model, value: false, source: the run's config}\n");
  auto facts = LoadFacts((f.dir / "facts.yaml").string());
  ASSERT_TRUE(facts.has_value()) << facts.error().ToString();
  ASSERT_EQ(facts->by_case.at("base.yaml").size(), 1u);
  Options opt;
  opt.simulated = false;
  opt.facts = &*facts;
  auto rep = ValidateFiles({(f.dir / "base.yaml").string(), (f.dir / "other.yaml").string()}, *cat, opt);
  ASSERT_TRUE(rep.has_value()) << rep.error().ToString();
  ASSERT_EQ(rep->cases.size(), 2u);
  ASSERT_EQ(rep->cases[0].facts.size(), 1u);
  EXPECT_EQ(rep->cases[0].facts[0].path, "algorithm.reference_model");
  EXPECT_EQ(rep->cases[0].facts[0].source, "the run's config");
  EXPECT_TRUE(rep->cases[1].facts.empty());
  const auto& checks = rep->paths[0].checks;
  EXPECT_LT(checks[0].predicted, t);          // the fact changed base.yaml's run
  EXPECT_DOUBLE_EQ(checks[1].predicted, t);   // and nothing else
  EXPECT_NE(api::ValidationToText(*rep).find("base.yaml: algorithm.reference_model = false (the run's config)"),
            std::string::npos);
}

TEST(Validate, BadFactsNameTheFileAndTheEntry) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  Folder f("badfacts");
  f.Write("base.yaml", Base() + "expect:\n  source: test\n  metrics:\n    step.time_s: {value: 100, tolerance: 0.5}\n");
  // No source: refused (a fact without its source is an assumption).
  f.Write("nosource.yaml", "facts:\n  base.yaml:\n    - {set: placement.engine, value: sglang}\n");
  auto bad = LoadFacts((f.dir / "nosource.yaml").string());
  ASSERT_FALSE(bad.has_value());
  std::string msg = bad.error().ToString();
  EXPECT_NE(msg.find("nosource.yaml:3: facts.base.yaml[0].source: missing"), std::string::npos) << msg;
  // A misspelt key: the entry's path and the nearest key.
  f.Write("misspelt.yaml", "facts:\n  base.yaml:\n    - {set: placement.engine, value: sglang, sorce: s}\n");
  bad = LoadFacts((f.dir / "misspelt.yaml").string());
  ASSERT_FALSE(bad.has_value());
  msg = bad.error().ToString();
  EXPECT_NE(msg.find("facts.base.yaml[0].sorce: unknown key; did you mean 'source'?"), std::string::npos) << msg;
  // A case that is not in the folder: named, with the nearest file.
  f.Write("typo.yaml.facts", "facts:\n  bse.yaml:\n    - {set: placement.engine, value: sglang, source: s}\n");
  auto typo = LoadFacts((f.dir / "typo.yaml.facts").string());
  ASSERT_TRUE(typo.has_value()) << typo.error().ToString();
  Options opt;
  opt.simulated = false;
  opt.facts = &*typo;
  auto rep = ValidateFiles({(f.dir / "base.yaml").string()}, *cat, opt);
  ASSERT_FALSE(rep.has_value());
  msg = rep.error().ToString();
  EXPECT_NE(msg.find("facts.bse.yaml: no scenario file of that name"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean base.yaml?"), std::string::npos) << msg;
  // A fact with a bad value fails like a bad --set: the field path and the choices.
  f.Write("badvalue.yaml", "facts:\n  base.yaml:\n    - {set: placement.engine, value: tgi, source: s}\n");
  auto bv = LoadFacts((f.dir / "badvalue.yaml").string());
  ASSERT_TRUE(bv.has_value());
  opt.facts = &*bv;
  rep = ValidateFiles({(f.dir / "base.yaml").string()}, *cat, opt);
  ASSERT_FALSE(rep.has_value());
  msg = rep.error().ToString();
  EXPECT_NE(msg.find("placement.engine"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vllm | vllm-async | sglang | trtllm"), std::string::npos) << msg;
  // Not there at all.
  EXPECT_FALSE(LoadFacts((f.dir / "absent.yaml").string()).has_value());
}

int RunCli(const std::string& args, std::string* out = nullptr) {
  std::string cmd = std::string(RLCOST_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  int rc = pclose(p);
  if (out) *out = text;
  return WEXITSTATUS(rc);
}

TEST(ValidateCli, ExitCodesAndDeterministicMarkdown) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  Folder f("cli");
  double t = PredictedStep(*cat, kSample);
  f.Write("off.yaml", Base() + fmt::format("expect:\n  source: test\n  metrics:\n    step.time_s: {{value: {}, tolerance: 0.05}}\n", t * 2));
  std::string out;
  EXPECT_EQ(RunCli("validate " + f.dir.string() + " --path analytic", &out), 1) << out;
  EXPECT_NE(out.find("FAIL"), std::string::npos);
  EXPECT_EQ(RunCli("validate " + f.dir.string() + " --path analytic --report-only"), 0);
  // The same folder named two ways gives byte-identical markdown.
  std::string md1 = (f.dir / "a.md").string(), md2 = (f.dir / "b.md").string();
  ASSERT_EQ(RunCli("validate " + f.dir.string() + " --path analytic --report-only --markdown " + md1), 0);
  ASSERT_EQ(RunCli("validate " + f.dir.string() + "/./ --path analytic --report-only --markdown " + md2), 0);
  EXPECT_EQ(Slurp(md1), Slurp(md2));
  EXPECT_NE(Slurp(md1).find("| `off.yaml` | `step.time_s` |"), std::string::npos) << Slurp(md1);
  EXPECT_EQ(Slurp(md1).find(f.dir.string()), std::string::npos);  // no absolute paths
  std::string json;
  RunCli("validate " + f.dir.string() + " --path analytic --report-only --json", &json);
  EXPECT_NE(json.find("\"median_abs_error\""), std::string::npos) << json;
}

// docs/validation.md is generated by `make docs`; it must match what the code
// prints now (regenerate with `make docs` after a model change).
TEST(ValidateCli, CommittedValidationMarkdownMatchesTheCode) {
  std::string docs = std::string(RLCOST_SOURCE_DIR) + "/docs/validation.md";
  std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation";
  if (!fs::exists(docs) || !fs::exists(dir)) GTEST_SKIP() << "docs/validation.md or ../shared/validation absent";
  std::string tmp = (fs::temp_directory_path() / ("rlcost_validation_" + std::to_string(::getpid()) + ".md")).string();
  ASSERT_EQ(RunCli("validate " + dir + " --learning " + std::string(RLCOST_SOURCE_DIR) +
                   "/validation/learning --report-only --markdown " + tmp),
            0);
  EXPECT_EQ(Slurp(tmp), Slurp(docs)) << "docs/validation.md is stale: run `make docs`";
  fs::remove(tmp);
}

// docs/validation-source-facts.md: the same with the shared facts file
// (../shared/validation/facts/source-facts.yaml, checked against its sources).
TEST(ValidateCli, CommittedSourceFactsMarkdownMatchesTheCode) {
  std::string docs = std::string(RLCOST_SOURCE_DIR) + "/docs/validation-source-facts.md";
  std::string facts = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/facts/source-facts.yaml";
  std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation";
  if (!fs::exists(docs) || !fs::exists(dir)) GTEST_SKIP() << "docs/validation-source-facts.md or ../shared/validation absent";
  std::string tmp = (fs::temp_directory_path() / ("rlcost_validation_facts_" + std::to_string(::getpid()) + ".md")).string();
  ASSERT_EQ(RunCli("validate " + dir + " --report-only --facts " + facts + " --markdown " + tmp), 0);
  EXPECT_EQ(Slurp(tmp), Slurp(docs)) << "docs/validation-source-facts.md is stale: run `make docs`";
  fs::remove(tmp);
}

// docs/validation-logs.md: the real runs with per-phase timings
// (../shared/validation/logs), phase by phase.
TEST(ValidateCli, CommittedLogsMarkdownMatchesTheCode) {
  std::string docs = std::string(RLCOST_SOURCE_DIR) + "/docs/validation-logs.md";
  std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/logs";
  if (!fs::exists(docs) || !fs::exists(dir)) GTEST_SKIP() << "docs/validation-logs.md or ../shared/validation/logs absent";
  std::string tmp = (fs::temp_directory_path() / ("rlcost_validation_logs_" + std::to_string(::getpid()) + ".md")).string();
  ASSERT_EQ(RunCli("validate " + dir + " --report-only --markdown " + tmp), 0);
  EXPECT_EQ(Slurp(tmp), Slurp(docs)) << "docs/validation-logs.md is stale: run `make docs`";
  fs::remove(tmp);
}

// `rlcost validate DIR --fits`: the named fits and their leave-one-out error,
// instead of the report (exit 0); a folder that measures neither fit's metric
// is refused, naming the metric (docs/model.md, "Named fits").
TEST(ValidateCli, FitsPrintsTheNamedFitsAndTheirLeaveOneOutError) {
  std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/logs";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared/validation/logs absent";
  std::string out;
  ASSERT_EQ(RunCli("validate " + dir + " --fits", &out), 0) << out;
  EXPECT_NE(out.find("typical_update_share: 0.84 share of train_mfu (the catalog holds 0.84)"), std::string::npos) << out;
  EXPECT_NE(out.find("pageable_copy_s_per_gb: 2.5 GB/s (the catalog holds 2.5)"), std::string::npos) << out;
  EXPECT_NE(out.find("leave one run out, analytic path: "), std::string::npos) << out;
  EXPECT_NE(out.find("leave one run out, simulated path: "), std::string::npos) << out;
  EXPECT_EQ(out.find("median |error| 12.5% over 30 metrics"), std::string::npos) << "--fits replaces the report";
  EXPECT_NE(RunCli("validate " + std::string(RLCOST_SOURCE_DIR) + "/validation/levers --fits", &out), 0);
  EXPECT_NE(out.find("no run here measures step.train_s"), std::string::npos) << out;
}

// validation/levers: every file is a case with its source, named in the
// folder's README, and every metric is computed on both paths. The figures are
// those `rlcost validate validation/levers` printed (release build,
// 2026-12-04); a change of the model that moves them by more than one point
// shows here, and the README's figures must follow.
TEST(Validate, LeverCasesLoadWithTheirSourcesAndHoldTheirPrintedFigures) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  const fs::path dir = fs::path(RLCOST_SOURCE_DIR) / "validation" / "levers";
  const std::string readme = Slurp((dir / "README.md").string());
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    ++files;
    EXPECT_NE(readme.find(e.path().filename().string()), std::string::npos)
        << e.path().filename() << " is not named in validation/levers/README.md";
  }
  Options opt;  // both paths
  auto rep = ValidateDir(dir.string(), *cat, opt);
  ASSERT_TRUE(rep.has_value()) << rep.error().ToString();
  EXPECT_EQ(rep->scenarios, files);
  EXPECT_EQ(static_cast<int>(rep->cases.size()), files) << "a file without an expect block";
  for (const auto& c : rep->cases) EXPECT_FALSE(c.source.empty()) << c.file;
  ASSERT_EQ(rep->paths.size(), 2u);
  // NeMo RL PR #2779 (DeepSeek-V3, 256 H100s, MTP with one draft token):
  // published 100.5 s with, 121.2 s without, ratio 100.5 / 121.2 = 0.829.
  // RollPacker Table 2 (Qwen2.5-7B/8k, 16 H800): tail batching alone 1.30x
  // against veRL, a step ratio of 0.769. rlcost's closed form gives 0.462
  // (2.2x): a KNOWN GAP, written up in validation/levers/README.md; the event
  // simulator, running tail batching response by response, gives 0.455.
  struct Want {
    const char* file;
    const char* relative_to;
    double analytic, simulated;  // predicted / measured - 1, as printed; NaN: not available
    bool passes;
  };
  // Printed by `rlcost validate validation/levers` (release build, 2026-12-07,
  // branch namedfit at fa8299b: run.tuning typical, the catalog's
  // typical_update_share 0.84 and pageable_copy_s_per_gb 0.4). The two named
  // fits moved them apart (each measured alone with the other at its old
  // value, --set run.tuning=tuned or --catalog pageable_copy_s_per_gb
  // 3.76 / 4.94): the refit offload's way out at 2.5 GB/s instead of
  // 1.31 GB/s shortens the DeepSeek-V3 steps (the 256-GPU state does not
  // fit beside the engine; its 26.2 GB of optimizer state a GPU goes out in
  // 10.5 s, was 20.0 s): analytic -0.095 with MTP, -0.078 without, ratio
  // -0.015; the slower update lengthens them a little, +0.006, +0.005. The
  // RollPacker ratio moves with the update alone, +0.007: each step gains
  // its slower update (43.89 -> 45.11 s with tail batching, 96.23 -> 97.71 s
  // for veRL), which moves a ratio of 0.46 toward 1.
  const Want want[] = {
      // The named fits: was -0.022, -0.005 (Megatron's refit offload at 10 B/param
      // (precision-aware optimizer): was -0.062, -0.045; refit export calls +
      // trainer weights: was -0.101, -0.083)
      {"nemo-v06-dsv3-256xh100-mtp-pr2779.yaml", "", -0.108, -0.091, true},
      {"nemo-v06-dsv3-256xh100-mtp-pr2779.yaml", "nemo-v06-dsv3-256xh100-nomtp-pr2779.yaml", +0.028, +0.030,
       true},  // was +0.041, +0.043 (and +0.029, +0.031)
      {"nemo-v06-dsv3-256xh100-nomtp-pr2779.yaml", "", -0.131, -0.117, true},  // was -0.060, -0.046 (and -0.094, -0.079)
      {"rollpacker-qwen25-7b-8k-16xh800-tail-batching.yaml", "rollpacker-qwen25-7b-8k-16xh800-verl.yaml", -0.400,
       -0.409, false},  // was -0.411, -0.422
  };
  for (const PathResult& p : rep->paths) {
    EXPECT_TRUE(p.available) << p.reason;
    EXPECT_EQ(p.unavailable, 0);
    for (const Check& c : p.checks) {
      EXPECT_TRUE(c.status == Status::kPass || c.status == Status::kFail ||
                  (p.path == Path::kSimulated && c.message.find("not yet") != std::string::npos))
          << c.file << " " << c.key << ": " << c.message;
    }
    for (const Want& w : want) {
      const Check* found = nullptr;
      for (const Check& c : p.checks)
        if (c.file == w.file && c.relative_to == w.relative_to && c.key == "step.time_s") found = &c;
      ASSERT_NE(found, nullptr) << w.file << " / " << w.relative_to;
      const double expected = p.path == Path::kAnalytic ? w.analytic : w.simulated;
      EXPECT_FALSE(found->in_sample) << "no catalog default was read off these runs";
      if (std::isnan(expected)) {
        EXPECT_NE(found->status, Status::kPass) << ToString(p.path) << " " << w.file;
        continue;
      }
      EXPECT_TRUE(std::isfinite(found->predicted)) << w.file;
      EXPECT_NEAR(found->error, expected, 0.01) << ToString(p.path) << " " << w.file << " / " << w.relative_to;
      EXPECT_EQ(found->status, w.passes ? Status::kPass : Status::kFail) << ToString(p.path) << " " << w.file;
    }
  }
}

}  // namespace
}  // namespace rlcost::validate
