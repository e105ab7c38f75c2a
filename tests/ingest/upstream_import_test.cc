// The quickstart configs as their repositories ship them (tests/data/ingest/
// */upstream, each with its source and commit in a header comment) import to
// scenarios `estimate` prices: steps from the dataset's size (or an ASSUMED
// line that says why not), checkpoints and evaluation carried, and assumed
// length means that never exceed the config's max. A config that is itself
// inconsistent is refused naming its file (or the command line) and key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/dataset.h"
#include "ingest/import.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/" + rel; }

std::vector<std::string> Args(const std::string& rel) {
  std::ifstream in(Data(rel));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rlcost_upstream_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

// The line of `yaml` that sets `key:` (first match), "" when none.
std::string LineOf(const std::string& yaml, const std::string& key) {
  std::istringstream in(yaml);
  for (std::string line; std::getline(in, line);) {
    if (line.find(key + ":") != std::string::npos && line.rfind("#", 0) != 0) return line;
  }
  return "";
}

// A Parquet file's footer (the rows are not read): "PAR1", FileMetaData in
// Thrift's compact encoding {1: version i32 = 1, 2: schema list<struct> = one
// element {4: name = "schema"}, 3: num_rows i64 = rows}, its length, "PAR1".
void WriteParquetFooter(const fs::path& p, long long rows) {
  std::string meta = {0x15, 0x02,                                // field 1, i32, zigzag(1)
                      0x19, 0x1c,                                // field 2, list of 1 struct
                      0x48, 0x06, 's', 'c', 'h', 'e', 'm', 'a',  // field 4, binary "schema"
                      0x00,                                      // end of the SchemaElement
                      0x16};                                     // field 3, i64
  for (unsigned long long z = static_cast<unsigned long long>(rows) << 1; ; z >>= 7) {  // zigzag, varint
    if (z < 0x80) {
      meta += char(z);
      break;
    }
    meta += char((z & 0x7f) | 0x80);
  }
  meta += char(0x00);  // end of FileMetaData
  std::ofstream out(p, std::ios::binary);
  const uint32_t n = uint32_t(meta.size());
  out << "PAR1" << meta;
  for (int i = 0; i < 4; ++i) out << char((n >> (8 * i)) & 0xff);
  out << "PAR1";
}

Scenario Loads(const ingest::ImportedScenario& r) {
  auto s = LoadScenarioText(r.yaml, test::Cat(), "imported", ".");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString()) << "\n" << r.yaml;
  return s ? *s : Scenario{};
}

TEST(ImportUpstream, VerlGsm8kQuickstartImportsAndPrices) {
  // veRL docs/start/quickstart.rst's command line on the composed
  // ppo_trainer.yaml: max_response_length 256 is below rlcost's placeholder
  // mean of 1000, which the import used to write and then refuse.
  auto r = ingest::ImportVerl(Data("verl/upstream/ppo_trainer_generated.yaml"), Args("verl/upstream/quickstart_gsm8k.args"),
                              test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  Scenario s = Loads(*r);
  EXPECT_EQ(s.model_id, "qwen2.5-0.5b");
  EXPECT_EQ(s.hardware.gpus, 1);
  EXPECT_EQ(s.environment.response_tokens.max(), 256);
  EXPECT_EQ(s.environment.response_tokens.mean(), 128);  // half the max: the comment says so
  EXPECT_NE(LineOf(r->yaml, "response_tokens").find("half the max 256"), std::string::npos) << r->yaml;
  EXPECT_EQ(s.environment.prompt_tokens.mean(), 200);  // the placeholder: under half of 512
  // total_epochs 15 x floor(7,473 GSM8K train prompts / 256) = 15 x 29; the
  // file is not on this machine, so GSM8K's published size, ASSUMED.
  EXPECT_EQ(s.algorithm.steps, 435);
  const std::string steps = LineOf(r->yaml, "steps");
  EXPECT_NE(steps.find("ASSUMED"), std::string::npos) << steps;
  EXPECT_NE(steps.find("7473"), std::string::npos) << steps;
  ASSERT_TRUE(s.run.checkpoint);
  EXPECT_EQ(s.run.checkpoint->every_steps, 10);
  EXPECT_TRUE(s.run.checkpoint->optimizer_state);
  ASSERT_TRUE(s.run.evaluation);
  EXPECT_EQ(s.run.evaluation->every_steps, 10);
  EXPECT_EQ(s.run.evaluation->prompts, 1319);  // GSM8K's test split, the whole validation set
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_GT(e->run.checkpoints, 0);
  EXPECT_GT(e->run.evaluations, 0);
  EXPECT_GT(e->usd_per_step, 0);
}

TEST(ImportUpstream, VerlCountsALocalParquetDataset) {
  TempDir dir;
  WriteParquetFooter(dir.path / "train.parquet", 1000);
  WriteParquetFooter(dir.path / "test.parquet", 300);
  EXPECT_EQ(ingest::ParquetRows((dir.path / "train.parquet").string()), 1000);
  auto args = Args("verl/upstream/quickstart_gsm8k.args");
  args.push_back("data.train_files=" + (dir.path / "train.parquet").string());
  args.push_back("data.val_files=" + (dir.path / "test.parquet").string());
  args.push_back("trainer.save_freq=-1");
  auto r = ingest::ImportVerl(Data("verl/upstream/ppo_trainer_generated.yaml"), args, test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  Scenario s = Loads(*r);
  EXPECT_EQ(s.algorithm.steps, 15 * (1000 / 256));  // 15 x 3: veRL drops the incomplete batch
  EXPECT_EQ(LineOf(r->yaml, "steps").find("ASSUMED"), std::string::npos) << r->yaml;
  ASSERT_TRUE(s.run.evaluation);
  EXPECT_EQ(s.run.evaluation->prompts, 300);
  EXPECT_FALSE(s.run.checkpoint);  // save_freq -1: no checkpoints, as veRL
  // Not a Parquet file: not counted.
  std::ofstream(dir.path / "bad.parquet") << "not parquet";
  EXPECT_FALSE(ingest::ParquetRows((dir.path / "bad.parquet").string()));
}

TEST(ImportUpstream, VerlUnknownDatasetIsAnAssumedLine) {
  auto args = Args("verl/upstream/quickstart_gsm8k.args");
  args.push_back("data.train_files=/nowhere/mydata/train.parquet");
  auto r = ingest::ImportVerl(Data("verl/upstream/ppo_trainer_generated.yaml"), args, test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  Scenario s = Loads(*r);
  EXPECT_EQ(s.algorithm.steps, 500);
  const std::string steps = LineOf(r->yaml, "steps");
  EXPECT_NE(steps.find("ASSUMED"), std::string::npos) << steps;
  EXPECT_NE(steps.find("/nowhere/mydata/train.parquet is not on this machine"), std::string::npos) << steps;
}

TEST(ImportUpstream, NemoRlGrpoMath1BImportsAndPrices) {
  auto r = ingest::ImportNemoRl(Data("nemo-rl/upstream/grpo_math_1B.yaml"), {}, test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  Scenario s = Loads(*r);
  EXPECT_EQ(s.model_id, "qwen2.5-1.5b");
  // max_total_sequence_length 512 = the prompt's placeholder mean 200 + a
  // response of at most 312, whose assumed mean is half of it.
  EXPECT_EQ(s.environment.response_tokens.max(), 312);
  EXPECT_EQ(s.environment.response_tokens.mean(), 156);
  EXPECT_EQ(s.environment.prompt_tokens.mean() + s.environment.response_tokens.max(), 512);
  // max_num_steps is NeMo RL's no-limit 1,000,000; the run ends after one
  // epoch of OpenMathInstruct-2, which is not a local file: ASSUMED.
  EXPECT_EQ(s.algorithm.steps, 500);
  EXPECT_NE(LineOf(r->yaml, "steps").find("ASSUMED"), std::string::npos) << r->yaml;
  ASSERT_TRUE(s.run.checkpoint);
  EXPECT_EQ(s.run.checkpoint->every_steps, 10);
  EXPECT_TRUE(s.run.checkpoint->optimizer_state);
  ASSERT_TRUE(s.run.evaluation);
  EXPECT_EQ(s.run.evaluation->every_steps, 10);
  EXPECT_EQ(s.run.evaluation->prompts, 256);  // max_val_samples in batches of val_batch_size 256
  EXPECT_EQ(s.run.evaluation->samples_per_prompt, 1);
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_GT(e->run.checkpoints, 0);
  EXPECT_GT(e->usd_per_step, 0);
  // A stated max_num_steps below the no-limit default is the run's length.
  r = ingest::ImportNemoRl(Data("nemo-rl/upstream/grpo_math_1B.yaml"), {"grpo.max_num_steps=300"}, test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(Loads(*r).algorithm.steps, 300);
}

TEST(ImportUpstream, NemoRlLocalJsonlDatasetCountsSteps) {
  TempDir dir;
  {
    std::ofstream out(dir.path / "train.jsonl");
    for (int i = 0; i < 100; ++i) out << "{\"input\": \"q" << i << "\"}\n";
  }
  auto r = ingest::ImportNemoRl(Data("nemo-rl/upstream/grpo_math_1B.yaml"),
                                {"data.train.data_path=" + (dir.path / "train.jsonl").string(), "grpo.max_num_epochs=3"},
                                test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(Loads(*r).algorithm.steps, 3 * (100 / 32));  // 3 epochs x 3 whole batches of 32
}

TEST(ImportUpstream, AnInconsistentConfigNamesItsFileAndKey) {
  // A length below 1 on the command line: the key and "command line".
  auto r = ingest::ImportVerl(Data("verl/upstream/ppo_trainer_generated.yaml"), {"data.max_response_length=0"},
                              test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("command line: data.max_response_length: data.max_response_length is 0"),
            std::string::npos)
      << r.error().ToString();
  // In a file: its path and line.
  TempDir dir;
  const fs::path bad = dir.path / "grpo.yaml";
  std::ofstream(bad) << "policy:\n  model_name: Qwen/Qwen2.5-1.5B\n  max_total_sequence_length: -4\n";
  r = ingest::ImportNemoRl(bad.string(), {}, test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find(bad.string() + ":3: policy.max_total_sequence_length"), std::string::npos)
      << r.error().ToString();
  EXPECT_EQ(r.error().ToString().find("imported scenario"), std::string::npos);
}

TEST(ImportUpstream, ALoaderErrorIsToldInTheConfigsTerms) {
  // rollout TP 0 passes through the importer; the scenario loader refuses it
  // on the scenario's line, which InConfigTerms names by its config key.
  auto r = ingest::ImportVerl(Data("verl/upstream/ppo_trainer_generated.yaml"),
                              {"actor_rollout_ref.model.path=Qwen/Qwen2.5-0.5B-Instruct",
                               "actor_rollout_ref.rollout.tensor_model_parallel_size=0"},
                              test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  auto s = LoadScenarioText(r->yaml, test::Cat(), "the imported scenario", ".");
  ASSERT_FALSE(s);
  const std::string told =
      ingest::InConfigTerms(*r, s.error(), "the imported scenario", "ppo_trainer_generated.yaml").ToString();
  EXPECT_NE(told.find("command line: actor_rollout_ref.rollout.tensor_model_parallel_size:"), std::string::npos)
      << told;
  EXPECT_NE(told.find("placement.rollout_tp"), std::string::npos) << told;
  EXPECT_EQ(told.find("the imported scenario"), std::string::npos) << told;
}

}  // namespace
}  // namespace rlcost
