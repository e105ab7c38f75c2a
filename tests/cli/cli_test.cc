#include <regex>
#include <algorithm>
// The rlcost binary as a user runs it: exit codes, stdout, stderr.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <CLI/CLI.hpp>

#include "cli/cli.h"
#include "support.h"

namespace {

using rlcost::test::CmdResult;
using rlcost::test::Rlcost;

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/" + rel; }
std::string Shared(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/../shared/" + rel; }

const char* kContract[] = {"step.time_s", "step.rollout_s", "step.train_s", "step.other_s", "rollout_fraction",
                           "mfu.rollout", "mfu.train", "throughput.tokens_per_s_per_gpu",
                           "rollout.output_tokens_per_s_per_gpu", "signal.rollouts_per_step",
                           "signal.informative_fraction", "signal.useful_samples_per_step",
                           "signal.reward_bits_per_rollout", "cost.usd_per_step", "cost.usd_per_useful_sample",
                           "cost.gpu_hours", "cost.cpu_hours", "run.wall_time_h", "run.usd"};

const nlohmann::json* At(const nlohmann::json& j, const std::string& dotted) {
  const nlohmann::json* node = &j;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) return node;
    start = dot + 1;
  }
}

// `rlcost NAME ...` builds only NAME's options (start-up); the table it picks
// from must hold every command under the name it registers, and each one
// still answers --help on its own, while `rlcost --help` lists them all.
TEST(Cli, EachCommandIsBuiltAloneWhenAskedForAndAllAreListed) {
  CLI::App app;
  int code = 0;
  for (const auto& c : rlcost::cli::Commands()) c.add(app, code);
  const auto subs = app.get_subcommands([](CLI::App*) { return true; });
  ASSERT_EQ(subs.size(), rlcost::cli::Commands().size());
  for (size_t i = 0; i < subs.size(); ++i) EXPECT_EQ(subs[i]->get_name(), rlcost::cli::Commands()[i].name);
  const CmdResult all = Rlcost("--help");
  EXPECT_EQ(all.code, 0) << all.err;
  for (const auto& c : rlcost::cli::Commands()) {
    EXPECT_NE(all.out.find(std::string(c.name)), std::string::npos) << c.name;
    const CmdResult one = Rlcost(std::string(c.name) + " --help");
    EXPECT_EQ(one.code, 0) << c.name << ": " << one.err;
    EXPECT_NE(one.out.find(std::string(c.name)), std::string::npos) << c.name << ": " << one.out;
  }
  // A mistyped command still gets CLI11's answer with every command built.
  const CmdResult typo = Rlcost("estimat");
  EXPECT_EQ(typo.code, 2);
}

TEST(Cli, EstimateWithoutAFileRunsTheBuiltInDefault) {
  CmdResult r = Rlcost("estimate --full");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("qwen3-8b-math-grpo-8xh100-baseline"), std::string::npos);
  EXPECT_NE(r.out.find("step.time_s"), std::string::npos);
  EXPECT_NE(r.out.find("run.usd"), std::string::npos);
}

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// `estimate` answers briefly (the built-in default printed 145 lines, 17 of
// them zeros): the answer, where the time and money go, the signal, the
// layout, the price and the assumptions, within 25 lines.
TEST(Cli, EstimateIsBriefByDefaultAndFullOnAsk) {
  CmdResult brief = Rlcost("estimate");
  ASSERT_EQ(brief.code, 0) << brief.err;
  EXPECT_LE(Lines(brief.out), 25u) << brief.out;
  for (const char* part : {"run: $", "GPU-h", "per useful sample", "step: $", "dollars by phase: rollout $",
                           "rollout_fraction", "share of GPU time spent generating", "signal: ", "mean pass rate",
                           "plan: ", "GPU price: ", "assumed:", "likely range: ", "--full"}) {
    EXPECT_NE(brief.out.find(part), std::string::npos) << part << "\n" << brief.out;
  }
  CmdResult full = Rlcost("estimate --full");
  ASSERT_EQ(full.code, 0) << full.err;
  EXPECT_GT(Lines(full.out), 60u);
  // The full table leaves out the rows whose 0 means "not in this run"
  // (step.reward_s, cost.cpu_hours, run.breakdown_h.checkpoints, ... of the
  // default); a 0 of a layout or planner row is an answer and stays.
  for (const char* gone : {"step.reward_s", "cost.cpu_hours", "run.breakdown_h.checkpoints", "energy.kwh_by_phase.idle",
                           "cost.usd_sandbox_per_step"}) {
    EXPECT_EQ(full.out.find(std::string(gone) + " "), std::string::npos) << gone;
  }
  EXPECT_NE(full.out.find("layout.dp_attention"), std::string::npos);
  // --json keeps every key, zeros included (the contract).
  CmdResult json = Rlcost("estimate --json");
  ASSERT_EQ(json.code, 0);
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(At(j, "cost.cpu_hours")->get<double>(), 0.0);
}

// Every error the command line prints begins "error:": CLI11's own parse
// errors (unknown flag, missing value, bad value, no command) and ours.
TEST(Cli, EveryErrorBeginsWithError) {
  for (const char* bad : {"estimate --no-such-flag", "simulate --seed -1", "estimat", "sweep", "optimize --minimize",
                          "estimate a.yaml b.yaml", "estimate /nonexistent/run.yaml", "price --models no-such-model",
                          "estimate --set algorithm.grup_size=4"}) {
    CmdResult r = Rlcost(bad, 120);
    EXPECT_NE(r.code, 0) << bad;
    ASSERT_FALSE(r.err.empty()) << bad;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << bad << ": " << r.err;
  }
}

// A factor above 1 that costs more reads "dearer", never "0.6x cheaper": on
// the default the combined levers make a useful sample dearer (the waterfall's
// $ per useful sample factor below 1, e.g. 0.664 = 1.51x dearer). The figure
// in words is 1 / the factor `claims --json` gives as "value".
TEST(Cli, ClaimsSayDearerForWhatCostsMore) {
  CmdResult r = Rlcost("claims", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  CmdResult j = Rlcost("claims --json", 300);
  ASSERT_EQ(j.code, 0) << j.err;
  double factor = 0;
  for (const auto& c : nlohmann::json::parse(j.out)) {
    if (c.value("id", "") == "combined") factor = c.at("value").get<double>();
  }
  ASSERT_GT(factor, 0.0);
  ASSERT_LT(factor, 1.0) << "the test needs the combined levers to cost more on the default";
  EXPECT_NE(r.out.find(fmt::format("{:.3g}x dearer per useful sample", 1.0 / factor)), std::string::npos) << r.out;
  EXPECT_FALSE(std::regex_search(r.out, std::regex(R"(\b0\.\d+x cheaper)"))) << r.out;
}

// compare lists the inputs that differ first (field path: A → B).
TEST(Cli, CompareListsTheInputsThatDiffer) {
  const std::string file = std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml";
  CmdResult r = Rlcost("compare " + file + " --with algorithm.group_size=8", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t diff = r.out.find("  B: algorithm.group_size: 16 → 8\n");
  EXPECT_NE(diff, std::string::npos) << r.out;
  EXPECT_LT(diff, r.out.find("ratios are against the first column")) << r.out;
  EXPECT_EQ(r.out.find("  B: model"), std::string::npos) << r.out;
}

// compare's goal.usd row says, under the table, which columns rest on the
// illustrative learning curve and which on a published one; its JSON says it
// per column (each estimate's goal.curve_is_illustrative and goal.curve).
TEST(Cli, CompareSaysWhatEachGoalFigureRestsOn) {
  const std::string file = std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml";
  CmdResult r = Rlcost("compare " + file + " --with goal.curve=scalerl-8b-math-14k", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("note: goal.usd of A rests on rlcost's ILLUSTRATIVE learning curve"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: goal.usd of B rests on a published learning curve, scalerl-8b-math-14k"), std::string::npos)
      << r.out;
  CmdResult j = Rlcost("compare " + file + " --with goal.curve=scalerl-8b-math-14k --json", 300);
  ASSERT_EQ(j.code, 0) << j.err;
  auto js = nlohmann::json::parse(j.out);
  EXPECT_EQ(js["entries"][0]["estimate"]["goal"]["curve_is_illustrative"], true);
  EXPECT_EQ(js["entries"][1]["estimate"]["goal"]["curve_is_illustrative"], false);
  EXPECT_EQ(js["entries"][1]["estimate"]["goal"]["curve"], "published:scalerl-8b-math-14k");
  // No target, no goal figure: nothing to say.
  CmdResult none = Rlcost("compare " + file + " --set goal.target_pass_rate=null --with algorithm.group_size=8", 300);
  ASSERT_EQ(none.code, 0) << none.err;
  EXPECT_EQ(none.out.find("learning curve"), std::string::npos) << none.out;
}

// The goal says when it is already met, and when it cannot be reached says
// why in one phrase ("NOT reachable — not reachable: ..." before).
TEST(Cli, GoalSaysAlreadyMetOrWhyItCannotBeReached) {
  // The default's mean pass rate is 0.35: a target of 0.3 is met at the start.
  CmdResult met = Rlcost("estimate --set goal.target_pass_rate=0.3");
  ASSERT_EQ(met.code, 0) << met.err;
  EXPECT_NE(met.out.find("goal: target pass rate 0.30 is already met before training"), std::string::npos) << met.out;
  EXPECT_EQ(met.out.find("in about 0 steps"), std::string::npos) << met.out;
  // The default curve's asymptote is A = 0.80: 0.9 cannot be reached.
  CmdResult never = Rlcost("estimate --set goal.target_pass_rate=0.9");
  ASSERT_EQ(never.code, 0) << never.err;
  EXPECT_NE(never.out.find("goal: target pass rate 0.90 cannot be reached: asymptote A = 0.80 is below the target 0.90"),
            std::string::npos)
      << never.out;
  EXPECT_EQ(never.out.find("not reachable"), std::string::npos) << never.out;
}

TEST(Cli, EstimateJsonHasEveryContractKey) {
  std::string file = Shared("scenarios/default.yaml");
  if (!std::filesystem::exists(file)) file = std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml";
  CmdResult r = Rlcost("estimate " + file + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* k : kContract) {
    const nlohmann::json* v = At(j, k);
    ASSERT_NE(v, nullptr) << k;
    EXPECT_TRUE(v->is_number()) << k;
  }
  EXPECT_LT(At(j, "mfu.rollout")->get<double>(), 0.15);
  double mfu_train = At(j, "mfu.train")->get<double>();
  EXPECT_GT(mfu_train, 0.2);
  EXPECT_LT(mfu_train, 0.6);
  double rf = At(j, "rollout_fraction")->get<double>();
  EXPECT_GT(rf, 0.35);
  EXPECT_LT(rf, 0.95);
}

TEST(Cli, ThreeMistakesPrintThreeLinesAndFail) {
  CmdResult r = Rlcost("estimate " + Data("cli/three_mistakes.yaml"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << "nothing may be printed as if it were a result: " << r.out;
  int lines = 0;
  for (char c : r.err) lines += c == '\n';
  EXPECT_EQ(lines, 3) << r.err;
  EXPECT_NE(r.err.find("environment.respons_tokens"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("response_tokens"), std::string::npos) << r.err;  // did you mean
  EXPECT_NE(r.err.find("environment.pass_rate.mean"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("algorithm.group_size"), std::string::npos) << r.err;
}

TEST(Cli, ErrorsAsJsonWithJsonFlag) {
  CmdResult r = Rlcost("estimate " + Data("cli/three_mistakes.yaml") + " --json");
  EXPECT_EQ(r.code, 2);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["error"]["code"], "invalid_input");
  EXPECT_EQ(j["error"]["problems"].size(), 3u);
}

TEST(Cli, TextThatIsNotUtf8IsAnErrorNotACrash) {
  // A Latin-1 name (caf\xe9), with --json: one problem naming the field,
  // exit 2, and the JSON parses (it used to abort in the JSON writer).
  const std::string path = std::filesystem::temp_directory_path() /
                           ("rlcost_latin1_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "name: caf\xe9\nmodel: qwen3-8b\nhardware: {gpu: h100-sxm}\n";
  CmdResult r = Rlcost("estimate " + path + " --json");
  std::filesystem::remove(path);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["error"]["problems"].size(), 1u) << r.out;
  EXPECT_EQ(j["error"]["problems"][0]["path"], "name") << r.out;
  EXPECT_NE(r.out.find("not valid UTF-8 text (byte 0xE9 at offset 3)"), std::string::npos) << r.out;
  // The same byte through --set is blamed on --set.
  r = Rlcost("estimate --set \"name=$(printf 'caf\\351')\"");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--set"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not valid UTF-8"), std::string::npos) << r.err;
}

TEST(Cli, ABadCommandLineExitsTwo) {
  EXPECT_EQ(Rlcost("estimate --no-such-flag").code, 2);
  EXPECT_EQ(Rlcost("no-such-command").code, 2);
  EXPECT_EQ(Rlcost("--help").code, 0);
}

TEST(Cli, ValidateSkipsASymlinkLoop) {
  // A folder holding a link to itself (and a dangling link) is listed without
  // throwing; with no scenario in it the answer is the usual clear error.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("rlcost_loop_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink(dir / "loop.yaml", dir / "loop.yaml");
  fs::create_symlink(dir / "missing.yaml", dir / "dangling.yaml");
  CmdResult r = Rlcost("validate " + dir.string());
  fs::remove_all(dir);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no scenario files"), std::string::npos) << r.err;
}

TEST(Cli, MissingFileIsAClearError) {
  CmdResult r = Rlcost("estimate /nonexistent/run.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/run.yaml"), std::string::npos) << r.err;
}

TEST(Cli, SetOverridesApply) {
  CmdResult a = Rlcost("estimate --json");
  // qwen3-32b's 65.6 GB of weights do not fit one GPU's half that the
  // default's veRL 0.6 gives the engine (gpu_memory_utilization 0.5), so it
  // runs at rollout_tp 2 (32.8 GB per GPU), as a veRL user would set it.
  CmdResult b = Rlcost(
      "estimate --json --set model=qwen3-32b --set placement.rollout_tp=2 --set environment.pass_rate.mean=0.45");
  ASSERT_EQ(a.code, 0);
  ASSERT_EQ(b.code, 0) << b.err;
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_GT(jb["step"]["time_s"].get<double>(), ja["step"]["time_s"].get<double>());
  CmdResult bad = Rlcost("estimate --set algorithm.grup_size=4");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("group_size"), std::string::npos) << bad.err;
}

// A repeatable option takes one value per occurrence, so the scenario file
// may follow it, the order people type (`rlcost estimate --set k=v FILE`).
// Every option of every command that collects values is checked, so a new
// one added without AddRepeatable fails here.
TEST(Cli, ARepeatableOptionTakesOneValueSoAFileMayFollowIt) {
  CLI::App app;
  int code = 0;
  for (const auto& c : rlcost::cli::Commands()) c.add(app, code);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_positional() || opt->get_expected_max() == 0) continue;
      EXPECT_LE(opt->get_expected_max(), 1) << sub->get_name() << " " << opt->get_name();
      EXPECT_LE(opt->get_items_expected_max(), 1) << sub->get_name() << " " << opt->get_name();
    }
  }
  const std::string file = Shared("scenarios/default.yaml");
  const CmdResult a = Rlcost("estimate --set hardware.gpus=16 --set algorithm.group_size=8 " + file + " --json");
  ASSERT_EQ(a.code, 0) << a.err;
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["layout"]["train_gpus"].get<double>(), 16.0) << a.out.substr(0, 400);
  // 64 prompts a step at a group of 8.
  EXPECT_EQ(j["signal"]["rollouts_per_step"].get<double>(), 8.0 * 64) << a.out.substr(0, 400);
  const CmdResult price = Rlcost("price --models qwen3-8b,qwen3-32b --gpus h100-sxm " + file);
  EXPECT_EQ(price.code, 0) << price.err;
  EXPECT_NE(price.out.find("qwen3-32b"), std::string::npos) << price.out;
  const CmdResult range = Rlcost("sensitivity --range environment.response_tokens.mean=500:900 " + file);
  EXPECT_EQ(range.code, 0) << range.err;
  // Two values after one flag: the second is not taken as an override.
  const CmdResult two = Rlcost("estimate --set hardware.gpus=16 algorithm.group_size=8");
  EXPECT_NE(two.code, 0);
}

TEST(Cli, PriceFlagSetsTheCatalogPriceOfAGpu) {
  // The default scenario (8 x h100-sxm, no price of its own): dollars scale
  // with the price, time does not.
  CmdResult a = Rlcost("estimate --json --price h100-sxm=1");
  CmdResult b = Rlcost("estimate --json --price h100-sxm=3");
  ASSERT_EQ(a.code, 0) << a.err;
  ASSERT_EQ(b.code, 0) << b.err;
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_NEAR(jb["run"]["usd"].get<double>(), 3 * ja["run"]["usd"].get<double>(), 1e-6 * jb["run"]["usd"].get<double>());
  EXPECT_DOUBLE_EQ(jb["step"]["time_s"].get<double>(), ja["step"]["time_s"].get<double>());
  // 8 GPUs x 1 $/h: run.usd = GPU-hours x 1.
  EXPECT_NEAR(ja["run"]["usd"].get<double>(), ja["cost"]["gpu_hours"].get<double>(), 1e-6 * ja["run"]["usd"].get<double>());
}

TEST(Cli, BadPriceFlagsAreClearErrors) {
  CmdResult unknown = Rlcost("estimate --price h999=3");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("--price: unknown GPU 'h999'; expected one of:"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("h100-sxm"), std::string::npos) << unknown.err;
  CmdResult negative = Rlcost("estimate --price h100-sxm=-2");
  EXPECT_EQ(negative.code, 2);
  EXPECT_NE(negative.err.find("'-2' for h100-sxm; expected a price in USD per GPU-hour > 0"), std::string::npos) << negative.err;
  CmdResult shape = Rlcost("waterfall --price h100-sxm");
  EXPECT_EQ(shape.code, 2);
  EXPECT_NE(shape.err.find("expected GPU=USD"), std::string::npos) << shape.err;
}

TEST(Cli, WaterfallQualityDiscountOutsideZeroToOneIsAClearError) {
  CmdResult neg = Rlcost("waterfall --fp8-discount=-0.1");
  EXPECT_EQ(neg.code, 2);
  EXPECT_NE(neg.err.find("--fp8-discount"), std::string::npos) << neg.err;
  EXPECT_NE(neg.err.find("[0, 1)"), std::string::npos) << neg.err;
  EXPECT_TRUE(neg.out.empty());
  CmdResult one = Rlcost("waterfall --staleness-discount 1");
  EXPECT_EQ(one.code, 2);
  EXPECT_NE(one.err.find("--staleness-discount"), std::string::npos) << one.err;
}

// The same bad input gets the same clear error from every command that takes
// it, with nothing printed and no half-written report.
TEST(Cli, BadPricesDiscountsAndRangesFailTheSameWayEverywhere) {
  namespace fs = std::filesystem;
  const fs::path html = fs::temp_directory_path() / ("rlcost_bad_" + std::to_string(::getpid()) + ".html");
  const std::string report = "report -o " + html.string();
  for (const std::string& cmd : std::vector<std::string>{"estimate", "waterfall", "price", "claims", "sensitivity", report}) {
    CmdResult r = Rlcost(cmd + " --price h999=3", 120);
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_NE(r.err.find("--price: unknown GPU 'h999'; expected one of:"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << cmd;
  }
  for (const std::string& cmd : std::vector<std::string>{"waterfall", "price", report}) {
    for (const char* flag : {"--staleness-discount", "--fp8-discount", "--fp4-discount"}) {
      CmdResult r = Rlcost(cmd + " " + flag + "=-0.5", 120);
      EXPECT_EQ(r.code, 2) << cmd << " " << flag;
      EXPECT_NE(r.err.find(std::string(flag) + ": -0.5: a quality discount"), std::string::npos) << cmd << ": " << r.err;
      EXPECT_NE(r.err.find("[0, 1)"), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << cmd;
    }
  }
  EXPECT_FALSE(fs::exists(html)) << "a failed report must not leave a file";
  // And a valid one is used: the price card's per-sample columns divide by
  // the worth, (1 - 0.5)^1 for one step of staleness against 1 at 0.
  auto useful = [](const std::string& d) {
    CmdResult r = Rlcost("price --stack async --json --staleness-discount " + d, 120);
    EXPECT_EQ(r.code, 0) << r.err;
    return r.code == 0 ? nlohmann::json::parse(r.out)["rows"][0]["usd_per_useful_sample"].get<double>() : 0.0;
  };
  EXPECT_NEAR(useful("0.5") / useful("0"), 2.0, 1e-9);
  // Sensitivity ranges that leave the valid domain: named, with the value and the domain.
  const std::pair<const char*, const char*> ranges[] = {
      {"hardware.price_per_gpu_hour=-1:3", "-1 is outside the valid values of GPU price per hour; expected > 0"},
      {"algorithm.group_size=1:8", "1 is outside the valid values of rollouts per prompt (group size); expected a whole number >= 2"},
      {"environment.pass_rate.mean=0:0.5", "0 is outside the valid values of base model's mean pass rate; expected a fraction in (0, 1)"}};
  for (const auto& [range, message] : ranges) {
    CmdResult r = Rlcost(std::string("sensitivity --range ") + range, 120);
    EXPECT_EQ(r.code, 2) << range;
    EXPECT_NE(r.err.find(std::string("--range: ") + range + ": " + message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << range;
  }
}

TEST(Cli, DoesNotFitShowsNeededAndAvailable) {
  CmdResult r = Rlcost("estimate --set model=deepseek-v3");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("GB"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, CatalogListsGpusAndModels) {
  CmdResult r = Rlcost("catalog");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* id : {"a100-80g", "h100-sxm", "h200", "h20", "b200", "gb200", "mi300x", "l40s", "qwen2.5-1.5b",
                         "qwen3-30b-a3b", "deepseek-v3", "llama-3.1-70b"}) {
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  }
  CmdResult j = Rlcost("catalog --json");
  ASSERT_EQ(j.code, 0);
  EXPECT_NO_THROW(nlohmann::json::parse(j.out));
}

TEST(Cli, EverySharedScenarioEstimatesAsJson) {
  namespace fs = std::filesystem;
  for (const char* dir : {"scenarios", "validation"}) {
    fs::path p = Shared(dir);
    if (!fs::exists(p)) GTEST_SKIP() << "../shared not present";
    for (const auto& f : fs::directory_iterator(p)) {
      if (f.path().extension() != ".yaml") continue;
      CmdResult r = Rlcost("estimate " + f.path().string() + " --json");
      EXPECT_EQ(r.code, 0) << f.path() << r.err;
      auto j = nlohmann::json::parse(r.out);
      for (const char* k : kContract) EXPECT_NE(At(j, k), nullptr) << f.path() << " " << k;
    }
  }
}

}  // namespace

namespace {

TEST(Cli, SimulateIsDeterministicForASeed) {
  CmdResult a = Rlcost("simulate --json --seed 7 --steps 20");
  CmdResult b = Rlcost("simulate --json --seed 7 --steps 20");
  CmdResult c = Rlcost("simulate --json --seed 8 --steps 20");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);  // byte-identical
  EXPECT_NE(a.out, c.out);
  auto ja = nlohmann::json::parse(a.out), jc = nlohmann::json::parse(c.out);
  double ta = ja["step"]["time_s"].get<double>(), tc = jc["step"]["time_s"].get<double>();
  EXPECT_NEAR(tc / ta, 1.0, 0.05);  // close: the same scenario, another draw
  EXPECT_EQ(ja["method"], "simulated");
  for (const char* k : kContract) EXPECT_NE(At(ja, k), nullptr) << k;
  EXPECT_NE(At(ja, "sim.trajectory_time_s.p99"), nullptr);
}

TEST(Cli, SimulateWritesATrace) {
  std::string trace = std::filesystem::temp_directory_path() / ("rlcost_trace_" + std::to_string(::getpid()) + ".json");
  CmdResult r = Rlcost("simulate --steps 2 --trace " + trace);
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(trace);
  auto j = nlohmann::json::parse(f);
  EXPECT_FALSE(j["traceEvents"].empty());
  std::filesystem::remove(trace);
}

// rollout.clipped_share: P(response = max) = s + (1 - s) P(X >= max), from the
// scenario's response lengths whether `clipped` is set or not.
TEST(Cli, ClippedShareIsReportedInJsonAndTable) {
  // Uniform mean 600, cv 0.2, max 1000, 20% at max: the rest is uniform on
  // 500 +- 173.2, never at 1000, so the share is exactly 0.2.
  const std::string set = " --set 'environment.response_tokens={mean: 600, cv: 0.2, max: 1000, dist: uniform, clipped: 0.2}'";
  CmdResult r = Rlcost("estimate --json" + set);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_NE(At(j, "rollout.clipped_share"), nullptr);
  EXPECT_NEAR(At(j, "rollout.clipped_share")->get<double>(), 0.2, 1e-12);
  CmdResult t = Rlcost("estimate --full" + set);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("responses clipped at the max length: 20.0% (set)"), std::string::npos) << t.out;
  // Without `clipped`: the lognormal's own tail beyond 8192 (mean 2000, cv
  // 0.8): about 1 - Phi(2.356) = 0.0092 before the clip moves the location.
  CmdResult d = Rlcost("estimate --json");
  ASSERT_EQ(d.code, 0);
  auto dj = nlohmann::json::parse(d.out);
  EXPECT_GT(At(dj, "rollout.clipped_share")->get<double>(), 0.009);
  EXPECT_LT(At(dj, "rollout.clipped_share")->get<double>(), 0.0105);
  // A fixed length below max never stops there.
  CmdResult f = Rlcost("estimate --json --set environment.response_tokens=700");
  ASSERT_EQ(f.code, 0) << f.err;
  EXPECT_EQ(At(nlohmann::json::parse(f.out), "rollout.clipped_share")->get<double>(), 0.0);
}

}  // namespace
