// Bad, absurd or hostile input, as a user meets it through the rlcost binary:
// every case once crashed, hung, or exited 0 with a figure that is not one.
// Each must now end quickly with a clear error naming the field (or the
// option, or file:line), or with a stated result ("n/a" with its reason).
#include <gtest/gtest.h>

#include "support.h"
#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

using rlcost::test::CmdResult;

// Runs the binary under `timeout 60`: a hang shows as exit 124, not a stuck test.
CmdResult Rlcost(const std::string& args) { return rlcost::test::Rlcost(args, 60); }

std::string Shared(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/../shared/" + rel; }
std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/" + rel; }
std::string Default() {
  std::string f = Shared("scenarios/default.yaml");
  return fs::exists(f) ? f : std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml";
}

// A scratch folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int n = 0;
    path = fs::temp_directory_path() / ("rlcost_hard_dir_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every number in the JSON is finite and no value is null (contract values
// that cannot be computed are "n/a", with a reason under not_available).
void ExpectNoNullOrNonFinite(const nlohmann::json& j, const std::string& at = "") {
  if (j.is_null()) {
    ADD_FAILURE() << "null at " << at;
  } else if (j.is_number_float()) {
    EXPECT_TRUE(std::isfinite(j.get<double>())) << at;
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) ExpectNoNullOrNonFinite(it.value(), at + "." + it.key());
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) ExpectNoNullOrNonFinite(j[i], at + "[" + std::to_string(i) + "]");
  }
}

TEST(Hardening, HugeStalenessIsCappedAtTheRunLength) {
  // max_staleness 3e9 overflowed an int and asked for 3e9 batches
  // (length_error); a staleness past the run's length never binds.
  const std::string f = Shared("scenarios/full-stack.yaml");
  if (!fs::exists(f)) GTEST_SKIP() << "../shared not present";
  CmdResult big = Rlcost("simulate " + f + " --json --steps 2 --set pipeline.max_staleness=3000000000");
  ASSERT_EQ(big.code, 0) << big.err;
  CmdResult run_length = Rlcost("simulate " + f + " --json --steps 2 --set pipeline.max_staleness=2");
  ASSERT_EQ(run_length.code, 0) << run_length.err;
  EXPECT_EQ(big.out, run_length.out);
  ExpectNoNullOrNonFinite(nlohmann::json::parse(big.out));
}

// ~2.7e10 sequences per engine (fuzz_overrides: algorithm.group_size=857126187):
// the closed form takes it, with its slice and cohort counts computed in
// floating point and clamped before they become ints (they were converted
// out of int's range: UBSan, fuzz/regressions/overrides/), and says what it
// costs, with finite numbers.
TEST(Hardening, AHugeGroupIsEstimatedInClosedForm) {
  for (const char* set : {"algorithm.group_size=857126187", "algorithm.prompts_per_step=1000000000"}) {
    CmdResult r = Rlcost("estimate " + Default() + " --set " + set + " --json");
    ASSERT_EQ(r.code, 0) << set << ": " << r.err;
    auto j = nlohmann::json::parse(r.out);
    ExpectNoNullOrNonFinite(j);
    EXPECT_GT(j["step"]["time_s"].get<double>(), 0) << set;
  }
}

TEST(Hardening, SimulateRefusesWhatItCannotHoldUpFront) {
  // --steps 1e9 and 1e9 GPUs died in bad_alloc; 1e6 engines took 2.4 GB.
  CmdResult r = Rlcost("simulate " + Default() + " --steps 1000000000");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--steps") && Has(r.err, "simulate fewer steps")) << r.err;
  r = Rlcost("simulate " + Default() + " --steps 2 --set hardware.gpus=1000000000");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--set: hardware.gpus") && Has(r.err, "at most 1000000")) << r.err;
  r = Rlcost("simulate " + Default() + " --steps 2 --set hardware.gpus=1000000");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "hardware.gpus") && Has(r.err, "engines")) << r.err;
}

TEST(Hardening, BadStepAndSeedFlagsAreRefused) {
  // 2^64 does not fit the seed: CLI11 read it as 0 without a word.
  for (const char* flag : {"--steps 0", "--steps -5", "--seed -1", "--seed 18446744073709551616"}) {
    CmdResult r = Rlcost("simulate " + Default() + " " + flag);
    EXPECT_EQ(r.code, 2) << flag << ": " << r.out << r.err;
    EXPECT_TRUE(Has(r.err, std::string(flag).substr(0, 6))) << r.err;
  }
  EXPECT_EQ(Rlcost("validate " + Shared("validation") + " --sim-steps -3").code, 2);
  EXPECT_EQ(Rlcost("waterfall " + Default() + " --tenants 0").code, 2);
  EXPECT_EQ(Rlcost("waterfall " + Default() + " --rank 2000000000").code, 2);
}

TEST(Hardening, QuadratureEndsOnNarrowBetasAndManyCreditedSteps) {
  // The adaptive quadrature split forever on these (rounding noise never met
  // the halved tolerance).
  const std::string f = Shared("scenarios/process-reward.yaml");
  if (!fs::exists(f)) GTEST_SKIP() << "../shared not present";
  for (const char* set : {"environment.pass_rate.concentration=1e6", "environment.reward.credited_steps=300000"}) {
    CmdResult r = Rlcost("estimate " + f + " --json --set " + set);
    ASSERT_EQ(r.code, 0) << set << ": " << r.err;
    ExpectNoNullOrNonFinite(nlohmann::json::parse(r.out));
  }
}

TEST(Hardening, MultiTurnContextThatFitsNoEngineEndsWithAnError) {
  // swe-agent without rollout_tp: 2 holds 24k tokens of KV per engine and
  // draws 27k-token trajectories; the simulation preempted them forever.
  const std::string f = Shared("scenarios/swe-agent.yaml");
  if (!fs::exists(f)) GTEST_SKIP() << "../shared not present";
  TempDir d;
  std::ifstream in(f);
  std::string text, line;
  while (std::getline(in, line))
    if (!Has(line, "rollout_tp: 2")) text += line + "\n";
  // --no-plan: the layout as written (rollout_tp 1); planned, a wider engine
  // holds the trajectories and the run simulates.
  CmdResult r = Rlcost("simulate " + d.Write("swe.yaml", text) + " --json --steps 2 --no-plan");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_TRUE(Has(r.err, "memory") && Has(r.err, "could never be scheduled")) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["error"]["code"], "does_not_fit");
}

TEST(Hardening, OnlyRegularFilesOfBoundedSizeAreRead) {
  CmdResult r = Rlcost("estimate /dev/zero");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "/dev/zero") && Has(r.err, "character device")) << r.err;
  TempDir d;
  const std::string fifo = (d.path / "fifo.yaml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  r = Rlcost("estimate " + fifo);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "pipe (FIFO)")) << r.err;
  r = Rlcost("estimate " + Default() + " --catalog /dev/zero");
  EXPECT_EQ(r.code, 2) << r.err;
  // 5 MiB of comments: over the 4 MiB bound, refused before parsing.
  std::string big(5 << 20, '#');
  for (size_t i = 80; i < big.size(); i += 81) big[i] = '\n';
  r = Rlcost("estimate " + d.Write("big.yaml", big));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "big.yaml") && Has(r.err, "at most 4 MiB")) << r.err;
}

TEST(Hardening, AbsurdNumbersAreRefusedWithTheirFieldAndBound) {
  struct Case {
    const char* set;
    const char* path;
  } cases[] = {
      {"environment.reward.verify_s=1e308", "environment.reward.verify_s"},
      {"hardware.price_per_gpu_hour=1e308", "hardware.price_per_gpu_hour"},
      {"environment.pass_rate.concentration=1e308", "environment.pass_rate.concentration"},
      {"environment.response_tokens=0", "environment.response_tokens"},
      // was blamed on placement.rollout_tp (the memory check saw inf GB)
      {"environment.prompt_tokens=1e308", "environment.prompt_tokens"},
      {"algorithm.steps=1e20", "algorithm.steps"},
  };
  for (const auto& c : cases) {
    CmdResult r = Rlcost("estimate " + Default() + " --json --set " + c.set);
    EXPECT_EQ(r.code, 2) << c.set << ": " << r.out;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["error"]["problems"].size(), 1u) << r.out;
    EXPECT_EQ(j["error"]["problems"][0]["path"], c.path) << r.out;
    EXPECT_EQ(j["error"]["problems"][0]["file"], "--set") << r.out;
  }
  // An integer too large says so (it said "expected a whole number").
  CmdResult r = Rlcost("estimate " + Default() + " --set algorithm.steps=1e20");
  EXPECT_TRUE(Has(r.err, "out of range")) << r.err;
}

TEST(Hardening, NothingToLearnFromIsNotAvailableNotNull) {
  // group_size 1: no group is informative; $/useful sample was 7.8e12, then null.
  CmdResult r = Rlcost("estimate " + Default() + " --json --set algorithm.group_size=1");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cost"]["usd_per_useful_sample"], "n/a");
  EXPECT_TRUE(Has(j["not_available"]["cost.usd_per_useful_sample"].get<std::string>(), "no rollout carries"));
  ExpectNoNullOrNonFinite(j);
  // A pass rate that is always 0: the goal said "reachable in 781 steps".
  r = Rlcost("estimate " + Data("hardening/never_passes.yaml") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["goal"]["reachable"], false);
  EXPECT_TRUE(Has(j["goal"]["reason"].get<std::string>(), "no useful samples")) << j["goal"];
  ExpectNoNullOrNonFinite(j);
}

TEST(Hardening, ASecondYamlDocumentIsAnError) {
  CmdResult r = Rlcost("estimate " + Data("hardening/two_documents.yaml"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(Has(r.err, "two_documents.yaml:4") && Has(r.err, "second YAML document")) << r.err;
}

TEST(Hardening, AFailedWriteExitsNonZero) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  CmdResult r = Rlcost("estimate --json >/dev/full");
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(Has(r.err, "cannot write the output")) << r.err;
  // A file output is written whole or not at all.
  TempDir d;
  r = Rlcost("report " + Default() + " -o /dev/full");
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "--output")) << r.err;
}

TEST(Hardening, ValidateWithNothingExpectedIsNotAPass) {
  TempDir d;
  std::ifstream in(Default());
  std::stringstream ss;
  ss << in.rdbuf();
  d.Write("a.yaml", ss.str());
  CmdResult r = Rlcost("validate " + d.path.string());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(Has(r.err, "nothing to validate")) << r.err;
}

TEST(Hardening, CalibrateRefusesNegativeAndAbsurdTimesWithTheLine) {
  const std::string log = Data("logs/verl_qwen25_7b_8xh100.log");
  const std::string scen = Data("logs/verl_qwen25_7b_8xh100.scenario.yaml");
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  TempDir d;
  for (const char* bad : {"timing_s/gen:-53.738", "timing_s/gen:1e308"}) {
    std::string t = text;
    size_t at = t.find("timing_s/gen:53.738");
    ASSERT_NE(at, std::string::npos);
    t.replace(at, std::string("timing_s/gen:53.738").size(), bad);
    std::string f = d.Write("run.log", t);
    CmdResult r = Rlcost("calibrate " + f + " --scenario " + scen + " -o " + (d.path / "c.yaml").string());
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out << r.err;
    EXPECT_TRUE(Has(r.err, "run.log:7") && Has(r.err, "timing_s/gen")) << r.err;
    EXPECT_FALSE(fs::exists(d.path / "c.yaml"));
  }
}

TEST(Hardening, CvThatWouldBeIgnoredIsAnError) {
  CmdResult r = Rlcost("estimate " + Default() +
                       " --set 'environment.response_tokens={mean: 100, cv: 0.5, dist: fixed}'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Has(r.err, "environment.response_tokens.cv") && Has(r.err, "dist: fixed")) << r.err;
  r = Rlcost("estimate " + Default() + " --set 'environment.response_tokens={mean: 100, cv: 2, dist: exponential}'");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Has(r.err, "cv is 1 by definition")) << r.err;
  // cv with uniform is used: it sets the width.
  EXPECT_EQ(Rlcost("estimate " + Default() + " --set 'environment.response_tokens={mean: 100, cv: 0.5, dist: uniform}'")
                .code,
            0);
}

TEST(Hardening, AbsurdCatalogValuesAreRefused) {
  CmdResult r = Rlcost("estimate " + Default() + " --catalog " + Data("hardening/absurd_catalog.yaml"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(Has(r.err, "absurd_catalog.yaml:5") && Has(r.err, "hbm_tb_per_s")) << r.err;
}

TEST(Hardening, MessagesNameTheRightPlaceAndEscapeControlCharacters) {
  // An unknown key written by --set is the command line's mistake.
  CmdResult r = Rlcost("estimate " + Default() + " --set foo.bar=1");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(Has(r.err, "error: --set: foo")) << r.err;
  // An escape sequence in a value is shown, not sent to the terminal.
  TempDir d;
  r = Rlcost("estimate " + d.Write("ctl.yaml", "model: \"a\\x1b[31mb\"\nhardware: {gpu: h100-sxm}\n"));
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(Has(r.err, "\x1b")) << r.err;
  EXPECT_TRUE(Has(r.err, "a\\x1B[31mb")) << r.err;
}

}  // namespace

namespace more {

// Copies a folder tree (the Harbor task fixtures) into `to`.
void CopyTree(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

TEST(Hardening, EveryReaderRefusesWhatIsNotARegularFile) {
  // #27 item 3: `import hf-model /dev/zero` read 7.6 GB in 12 s.
  CmdResult r = Rlcost("import hf-model /dev/zero");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "/dev/zero") && Has(r.err, "character device")) << r.err;
  TempDir d;
  // A model folder whose config.json links to /dev/zero.
  fs::create_directories(d.path / "model");
  fs::create_symlink("/dev/zero", d.path / "model" / "config.json");
  r = Rlcost("import hf-model " + (d.path / "model").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "config.json") && Has(r.err, "character device")) << r.err;
  // A Harbor task whose instruction.md links to /dev/zero (was bad_alloc),
  // is a FIFO (hung) or a folder ("internal error: basic_filebuf::underflow").
  const fs::path task = d.path / "task";
  CopyTree(fs::path(Data("ingest/harbor/dataset/log-summary")), task);
  const fs::path md = task / "instruction.md";
  struct Case {
    const char* kind;
    std::function<void()> make;
  };
  for (const Case& c : {Case{"character device", [&] { fs::create_symlink("/dev/zero", md); }},
                        Case{"pipe (FIFO)", [&] { ASSERT_EQ(::mkfifo(md.c_str(), 0600), 0); }},
                        Case{"a folder", [&] { fs::create_directories(md); }}}) {
    fs::remove_all(md);
    c.make();
    r = Rlcost("import harbor " + task.string());
    EXPECT_EQ(r.code, 2) << c.kind << ": " << r.err;
    EXPECT_TRUE(Has(r.err, "instruction.md") && Has(r.err, c.kind)) << r.err;
    EXPECT_FALSE(Has(r.err, "internal error")) << r.err;
  }
  // A scenario that is a folder.
  r = Rlcost("estimate " + d.path.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "a folder")) << r.err;
}

TEST(Hardening, AnOutputNeverReplacesADeviceOrAnInputOfTheSameCommand) {
  // #27 item 4: `-o` renamed over whatever was there.
  TempDir d;
  const std::string scenario = d.Write("s.yaml", rlcost::test::RunCommand("cat " + Default()).out);
  const std::string before = rlcost::test::RunCommand("cat " + scenario).out;
  CmdResult r = Rlcost("sweep " + scenario + " --vary algorithm.group_size=4,8 -o " + scenario);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "-o") && Has(r.err, "also an input")) << r.err;
  EXPECT_EQ(rlcost::test::RunCommand("cat " + scenario).out, before) << "the scenario was overwritten";
  // The same file for two outputs.
  r = Rlcost("sweep " + scenario + " --vary algorithm.group_size=4,8 --csv " + (d.path / "x").string() + " --jsonl " +
             (d.path / "x").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "--jsonl")) << r.err;
  // A device node is never renamed over: refused by the sweep's stores,
  // written in place by a single-file output (it stays a device).
  r = Rlcost("sweep " + scenario + " --vary algorithm.group_size=4,8 -o /dev/null");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "character device")) << r.err;
  r = Rlcost("report " + scenario + " -o /dev/null");
  EXPECT_EQ(r.code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is no longer a device";
  r = Rlcost("report " + scenario + " -o " + scenario);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(rlcost::test::RunCommand("cat " + scenario).out, before);
  const std::string cfg = d.Write("grpo.yaml", rlcost::test::RunCommand("cat " + Data("ingest/nemo-rl/grpo_math_1B.yaml")).out);
  r = Rlcost("import nemo-rl " + cfg + " -o " + cfg);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "also an input")) << r.err;
  // Nothing left beside the targets.
  for (const auto& e : fs::directory_iterator(d.path)) {
    EXPECT_FALSE(Has(e.path().filename().string(), ".partial") || Has(e.path().filename().string(), ".tmp"))
        << e.path();
  }
}

TEST(Hardening, SimulateTraceNeverReplacesWhatTheRunReads) {
  // #40 item 5: `simulate s.yaml --trace s.yaml` overwrote its own scenario,
  // and --trace could replace the pass-rate CSV the scenario reads.
  TempDir d;
  const std::string csv = d.Write("rates.csv", "task,successes,samples\nt1,1,4\nt2,2,4\nt3,0,4\n");
  const std::string scenario = d.Write("s.yaml", "model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
                                                 "environment:\n  pass_rate: {file: rates.csv}\n");
  const std::string before = rlcost::test::RunCommand("cat " + scenario).out;
  const std::string csv_before = rlcost::test::RunCommand("cat " + csv).out;
  CmdResult r = Rlcost("simulate " + scenario + " --steps 1 --trace " + scenario);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(Has(r.err, "--trace") && Has(r.err, "also an input")) << r.err;
  EXPECT_EQ(rlcost::test::RunCommand("cat " + scenario).out, before) << "the scenario was overwritten";
  r = Rlcost("simulate " + scenario + " --steps 1 --trace " + csv);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(Has(r.err, "--trace") && Has(r.err, "rates.csv")) << r.err;
  EXPECT_EQ(rlcost::test::RunCommand("cat " + csv).out, csv_before) << "the pass-rate CSV was overwritten";
}

TEST(Hardening, AFifoWithNoReaderIsAnErrorNotAHang) {
  // #40 item 5: writing to a FIFO nobody reads blocked forever (--trace,
  // report -o). Refused at once, naming the pipe.
  TempDir d;
  const std::string fifo = (d.path / "out.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  CmdResult r = rlcost::test::RunCommand("timeout 60 " RLCOST_BINARY " simulate --steps 1 --trace " + fifo);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(Has(r.err, "no program is reading")) << r.err;
  r = rlcost::test::RunCommand("timeout 60 " RLCOST_BINARY " report " + Default() + " -o " + fifo);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(Has(r.err, "no program is reading")) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(50));
}

TEST(Hardening, DeepNestingInALogLineOrAConfigIsAnErrorWithItsLine) {
  // #27 item 5: calibrate segfaulted on a JSONL line nested ~70k deep.
  TempDir d;
  const std::string deep = std::string(70000, '[') + std::string(70000, ']');
  const std::string log = d.Write("deep.jsonl", "{\"step\": 1, \"timing/train/total_step_time\": 78.3}\n"
                                                "{\"step\": 2, \"data\": " + deep + "}\n");
  CmdResult r = Rlcost("calibrate " + log + " --scenario " + Data("logs/nemo_llama8b_16xh100.scenario.yaml") + " -o " +
                       (d.path / "c.yaml").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "deep.jsonl") && Has(r.err, ":2") && Has(r.err, "nested")) << r.err;
  // The same in a Hugging Face config.
  fs::create_directories(d.path / "m");
  d.Write("m/config.json", "{\"hidden_size\": " + deep + "}");
  r = Rlcost("import hf-model " + (d.path / "m").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(Has(r.err, "nested")) << r.err;
}

TEST(Hardening, NodeCountsWhoseProductOverflowsAreAnError) {
  // #27 item 7: 562812548014082 x 32776 wrapped around to "gpus: 16".
  TempDir d;
  const std::string cfg = d.Write("big.yaml", "policy:\n  model_name: Qwen/Qwen3-8B\ncluster:\n"
                                              "  num_nodes: 562812548014082\n  gpus_per_node: 32776\n");
  CmdResult r = Rlcost("import nemo-rl " + cfg + " --gpu h100-sxm");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(Has(r.err, "cluster.num_nodes") && Has(r.err, "562812548014082")) << r.err;
  EXPECT_FALSE(Has(r.out, "gpus: 16")) << r.out;
}

TEST(Hardening, ASweepWithMoreJobsThanTheMachineAllowsRunsOnTheThreadsItGets) {
  // #27 item 7: `sweep --jobs 200` under a thread limit aborted and left
  // .partial files. The address space is capped at 600 MB: room for the
  // program and a few dozen 8 MiB thread stacks, not 200. The sweep runs at
  // most one thread per core, and on those of them that start.
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: it cannot start under ulimit -v";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space: it cannot start under ulimit -v";
#endif
#endif
  TempDir d;
  const std::string out = (d.path / "rows.jsonl").string();
  CmdResult r = rlcost::test::RunCommand("ulimit -v 600000; timeout 120 " RLCOST_BINARY
                                         " sweep --vary algorithm.group_size=1..200 --jobs 200 --jsonl " + out);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(Has(r.out, "200 of 200 points")) << r.out;
  for (const auto& e : fs::directory_iterator(d.path)) {
    EXPECT_FALSE(Has(e.path().filename().string(), ".partial")) << e.path();
  }
}

TEST(Hardening, DashReadsTheScenarioFromStandardInput) {
  // #27 item 8: a scenario could not come from standard input.
  CmdResult piped = rlcost::test::RunCommand("cat " + Default() + " | timeout 60 " RLCOST_BINARY " estimate - --json");
  CmdResult file = Rlcost("estimate " + Default() + " --json");
  ASSERT_EQ(piped.code, 0) << piped.err;
  ASSERT_EQ(file.code, 0) << file.err;
  EXPECT_EQ(nlohmann::json::parse(piped.out)["cost"], nlohmann::json::parse(file.out)["cost"]);
  // Errors name standard input, with the line.
  CmdResult bad = rlcost::test::RunCommand("printf 'model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: -3}\n' | timeout 60 " RLCOST_BINARY
                                           " estimate -");
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_TRUE(Has(bad.err, "<stdin>:2")) << bad.err;
}

TEST(Hardening, EveryErrorStartsTheSameWay) {
  // #27 item 8: "Error:" in some places, "error:" in others. A bad command
  // line (CLI11's message), a bad scenario and a bad option all say "error:".
  for (const std::string args : {"estimate --no-such-option", "estimate /no/such/file.yaml", "simulate --steps -1",
                                 "serve --port 0 --host 0.0.0.0"}) {
    CmdResult r = Rlcost(args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << args << ": " << r.err;
  }
}

}  // namespace more
