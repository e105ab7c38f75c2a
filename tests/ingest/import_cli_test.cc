// `rlcost import ...` as a user runs it: -o written only on success, exit codes.
#include <gtest/gtest.h>

#include "support.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

using CmdRun = rlcost::test::CmdResult;
using rlcost::test::Rlcost;

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/" + rel; }

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rlcost_import_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(ImportCli, VerlWritesOnlyOnSuccess) {
  TempDir dir;
  const std::string out = (dir.path / "run.yaml").string();
  CmdRun bad = Rlcost("import verl " + Data("verl/one_step_off_4_12.yaml") +
                   " actor_rollout_ref.model.path=/m/NoSuch-3B --gpu h20 -o " + out);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("actor_rollout_ref.model.path: unknown model"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(dir.path));  // no temporary left behind either

  CmdRun ok = Rlcost("import verl " + Data("verl/one_step_off_4_12.yaml") + " --gpu h20 -o " + out);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(ok.out.empty());
  EXPECT_NE(ok.err.find("keys of the config have no counterpart"), std::string::npos);
  ASSERT_TRUE(fs::exists(out));
  CmdRun est = Rlcost("estimate " + out + " --json");
  EXPECT_EQ(est.code, 0) << est.err;
  EXPECT_NE(est.out.find("\"step\""), std::string::npos);
}

TEST(ImportCli, NemoRlToStdout) {
  CmdRun r = Rlcost("import nemo-rl " + Data("nemo-rl/recipes/llm/performance/grpo-llama3.1-8b-instruct-2n8g.yaml") +
                 " cluster.num_nodes=4");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gpus: 32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu: h100-sxm"), std::string::npos);
  EXPECT_NE(r.out.find("# ASSUMED: the config does not name the GPU"), std::string::npos);
}

// hf-model -> a catalog file that --catalog reads back, and a scenario uses.
TEST(ImportCli, HfModelRoundTripsThroughTheCatalog) {
  TempDir dir;
  const std::string cat = (dir.path / "models.yaml").string();
  CmdRun r = Rlcost("import hf-model " + Data("hf/Qwen3-30B-A3B") + " --id my-moe -o " + cat);
  ASSERT_EQ(r.code, 0) << r.err;
  // 61.1 GB of bf16 weights: at rollout_tp 2 (30.6 GB per GPU) they fit the
  // half of each GPU the default's veRL 0.6 gives its engine.
  CmdRun est = Rlcost("estimate --catalog " + cat + " --set model=my-moe --set placement.rollout_tp=2 --json");
  EXPECT_EQ(est.code, 0) << est.err;
  // A missing config.json: the file named, nothing written.
  const std::string out2 = (dir.path / "none.yaml").string();
  CmdRun bad = Rlcost("import hf-model " + dir.path.string() + " -o " + out2);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("config.json: Hugging Face config not found"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out2));
}

}  // namespace

namespace {

// A calibration fitted on one GPU, applied to a scenario on another, warns.
TEST(CalibrateCli, CalibrationFromAnotherGpuWarns) {
  TempDir dir;
  const std::string logs = std::string(RLCOST_SOURCE_DIR) + "/tests/data/logs/";
  const std::string cal = (dir.path / "cal.yaml").string();
  CmdRun fit = Rlcost("calibrate " + Data("logs/wandb_history.csv") + " --scenario " + logs +
                      "verl_qwen25_7b_8xh100.scenario.yaml -o " + cal);
  ASSERT_EQ(fit.code, 0) << fit.err << fit.out;
  CmdRun same = Rlcost("estimate " + logs + "verl_qwen25_7b_8xh100.scenario.yaml --calibration " + cal);
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.err.find("was fitted on"), std::string::npos) << same.err;
  CmdRun other = Rlcost("estimate " + logs + "verl_qwen25_7b_8xh100.scenario.yaml --set hardware.gpu=b200 --calibration " + cal);
  EXPECT_EQ(other.code, 0) << other.err;
  EXPECT_NE(other.err.find("was fitted on h100-sxm; this scenario runs on b200"), std::string::npos) << other.err;
}

}  // namespace
