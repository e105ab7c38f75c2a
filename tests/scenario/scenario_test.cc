#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "rlcost/scenario.h"
#include "scenario/overrides.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;
const std::string kShared = RLCOST_SOURCE_DIR "/../shared";
const std::string kData = RLCOST_SOURCE_DIR "/tests/data/spec";

const Catalog& Cat() {
  static const Catalog cat = [] {
    auto c = Catalog::Builtin();
    EXPECT_TRUE(c.has_value()) << (c ? "" : c.error().ToString());
    return c ? *c : Catalog();
  }();
  return cat;
}

std::string ReadAll(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A minimal valid scenario; bad-input cases append or replace sections.
const std::string kBase = R"(name: t
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
)";

Result<Scenario> Load(const std::string& text, std::vector<Override> ov = {}) {
  return LoadScenarioText(text, Cat(), "bad.yaml", kData, ov);
}

// The error a scenario text must fail with ("" and a test failure when it loads).
std::string ErrorOf(const std::string& text) {
  auto s = Load(text);
  EXPECT_FALSE(s) << text;
  return s ? std::string() : s.error().ToString();
}

TEST(Scenario, SharedFilesLoadUnchanged) {
  int n = 0;
  for (const char* dir : {"/scenarios", "/validation"}) {
    if (!fs::exists(kShared + dir)) GTEST_SKIP() << "no " << kShared << dir;
    for (const auto& e : fs::directory_iterator(kShared + dir)) {
      if (e.path().extension() != ".yaml") continue;
      auto s = LoadScenarioFile(e.path().string(), Cat());
      EXPECT_TRUE(s.has_value()) << e.path() << "\n" << (s ? "" : s.error().ToString());
      ++n;
    }
  }
  EXPECT_GE(n, 10);
}

// The built-in default is the shared default plus the framework it names
// (docs/model.md, "The built-in default"): parsed, the two documents differ
// only by the top-level `framework` key. Emitting both (the same yaml-cpp
// emitter, key order kept) compares every key and value, comments aside.
TEST(Scenario, BuiltinDefaultIsTheSharedDefaultPlusItsFramework) {
  const std::string shared = kShared + "/scenarios/default.yaml";
  if (!fs::exists(shared)) GTEST_SKIP();
  YAML::Node ours = YAML::Load(ReadAll(RLCOST_SOURCE_DIR "/scenarios/default.yaml"));
  YAML::Node theirs = YAML::Load(ReadAll(shared));
  ASSERT_TRUE(ours.IsMap() && theirs.IsMap());
  ASSERT_TRUE(ours["framework"].IsScalar());
  EXPECT_EQ(ours["framework"].Scalar(), "verl@0.6");
  EXPECT_FALSE(theirs["framework"].IsDefined());  // the shared file names none, and loads as written
  EXPECT_EQ(ours.size(), theirs.size() + 1);
  ASSERT_TRUE(ours.remove("framework"));
  YAML::Emitter a, b;
  a << ours;
  b << theirs;
  EXPECT_EQ(std::string(a.c_str()), std::string(b.c_str()));
  // What the compiled-in copy loads to: the framework resolved, its defaults
  // supplied (the shared file, loaded as written, has none).
  auto builtin = DefaultScenario(Cat());
  auto plain = LoadScenarioFile(shared, Cat());
  ASSERT_TRUE(builtin && plain);
  EXPECT_EQ(builtin->framework, "verl@0.6");
  EXPECT_FALSE(builtin->framework_defaults.empty());
  EXPECT_TRUE(plain->framework.empty());
  EXPECT_TRUE(plain->framework_defaults.empty());
}

TEST(Scenario, DefaultScenarioHasItsValuesAndDefaults) {
  auto s = DefaultScenario(Cat());
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->name, "qwen3-8b-math-grpo-8xh100-baseline");
  EXPECT_EQ(s->model_id, "qwen3-8b");
  EXPECT_EQ(s->model.layers, 36);
  EXPECT_EQ(s->hardware.gpu.id, "h100-sxm");
  EXPECT_EQ(s->hardware.price_per_gpu_hour, s->hardware.gpu.price_per_hour);  // catalog default
  EXPECT_EQ(s->placement.rollout_gpus, 8);  // colocated: all GPUs both ways
  EXPECT_EQ(s->placement.train_gpus, 8);
  EXPECT_EQ(s->environment.response_tokens.max(), 8192);
  EXPECT_NEAR(s->environment.response_tokens.mean(), 2000, 1e-9);
  EXPECT_EQ(s->environment.response_tokens.kind(), DistKind::kLognormal);
  EXPECT_TRUE(s->environment.turns.is_fixed());
  EXPECT_NEAR(s->environment.pass_rate.a, 0.7, 1e-12);  // 0.35 * 2
  EXPECT_NEAR(s->environment.pass_rate.b, 1.3, 1e-12);
  EXPECT_EQ(s->algorithm.prompts_per_step, 64);
  EXPECT_TRUE(s->algorithm.reference_model);  // default
  EXPECT_FALSE(s->algorithm.critic);           // grpo: no value model
  EXPECT_FALSE(s->algorithm.lora.has_value());
  EXPECT_EQ(s->goal.target_pass_rate, 0.6);
  EXPECT_FALSE(s->goal.curve.has_value());
  EXPECT_FALSE(s->expect.has_value());
  // What verl@0.6 supplies (catalog/frameworks/verl.yaml, tag v0.6.0): CUDA
  // graphs, sleep level 2, nothing offloaded, half of each GPU for the engine,
  // gradient checkpointing, one load per tensor, 1024 running sequences.
  EXPECT_EQ(s->framework, "verl@0.6");
  EXPECT_FALSE(s->engine.enforce_eager);
  EXPECT_EQ(s->placement.engine_sleep_level, 2);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kNone);
  EXPECT_FALSE(s->placement.offload.params);
  EXPECT_FALSE(s->placement.offload.optimizer);
  ASSERT_TRUE(s->placement.gpu_memory_utilization.has_value());
  EXPECT_EQ(*s->placement.gpu_memory_utilization, 0.5);
  EXPECT_TRUE(s->placement.gradient_checkpointing);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kPerTensor);
  EXPECT_EQ(s->engine.max_num_seqs, 1024);
  EXPECT_EQ(s->placement.train_pp_split, PipelineSplit::kEven);  // Megatron's even split (no first/last-stage counts)
  EXPECT_EQ(s->framework_defaults.size(), 10u);
}

TEST(Scenario, JsonLoadsLikeYaml) {
  const std::string yaml = R"(
name: pr
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 16}
placement: {mode: disaggregated, rollout_gpus: 12, rollout_tp: 2}
environment:
  turns: 8
  response_tokens: {mean: 300, cv: 0.6, max: 2048}
  reward: {type: process, credited_steps: 8, verify_s: 1.0}
  pass_rate: {histogram: {0.0: 2, 0.5: 1, 1.0: 1}}
algorithm: {name: rloo, group_size: 4, lora: {rank: 16, tenants: 2}}
pipeline: {mode: async, max_staleness: 0.5}
)";
  const std::string json = R"({
  "name": "pr", "model": "qwen3-8b",
  "hardware": {"gpu": "h100-sxm", "gpus": 16},
  "placement": {"mode": "disaggregated", "rollout_gpus": 12, "rollout_tp": 2},
  "environment": {"turns": 8,
    "response_tokens": {"mean": 300, "cv": 0.6, "max": 2048},
    "reward": {"type": "process", "credited_steps": 8, "verify_s": 1.0},
    "pass_rate": {"histogram": {"0.0": 2, "0.5": 1, "1.0": 1}}},
  "algorithm": {"name": "rloo", "group_size": 4, "lora": {"rank": 16, "tenants": 2}},
  "pipeline": {"mode": "async", "max_staleness": 0.5}
})";
  auto y = Load(yaml), j = Load(json);
  ASSERT_TRUE(y) << y.error().ToString();
  ASSERT_TRUE(j) << j.error().ToString();
  for (const Scenario* s : {&*y, &*j}) {
    EXPECT_EQ(s->placement.rollout_gpus, 12);
    EXPECT_EQ(s->placement.train_gpus, 4);  // the rest of the 16
    EXPECT_EQ(s->environment.turns.mean(), 8);
    EXPECT_EQ(s->environment.reward.type, RewardType::kProcess);
    EXPECT_EQ(s->algorithm.name, Algorithm::kRloo);
    EXPECT_EQ(s->algorithm.lora->tenants, 2);
    EXPECT_EQ(s->pipeline.max_staleness, 0.5);
  }
  EXPECT_EQ(y->environment.response_tokens.Quantile(0.9), j->environment.response_tokens.Quantile(0.9));
  // Histogram weights 2:1:1 normalise to 0.5, 0.25, 0.25; mean 0.25*0.5 + 0.25 = 0.375.
  ASSERT_EQ(j->environment.pass_rate.histogram.size(), 3u);
  EXPECT_EQ(j->environment.pass_rate.histogram[0], (std::pair<double, double>{0.0, 0.5}));
  EXPECT_DOUBLE_EQ(y->environment.pass_rate.mean(), 0.375);
  EXPECT_DOUBLE_EQ(j->environment.pass_rate.mean(), 0.375);
}

TEST(Scenario, CudaGraphMaxBatchDefaultsByEngine) {
  // docs/model.md, "CUDA-graph coverage": vLLM (and its async engine) graphs
  // decode batches up to 512; SGLang's and TensorRT-LLM's caps are not
  // modelled (0: every batch graphed); a stated value wins.
  auto vllm = Load(kBase);
  ASSERT_TRUE(vllm) << vllm.error().ToString();
  EXPECT_EQ(vllm->engine.cuda_graph_max_batch, -1);
  EXPECT_EQ(CudaGraphMaxBatch(*vllm), 512);
  auto sglang = Load(kBase + "placement: {engine: sglang}\n");
  ASSERT_TRUE(sglang) << sglang.error().ToString();
  EXPECT_EQ(CudaGraphMaxBatch(*sglang), 0);
  auto set = Load(kBase + "engine: {cuda_graph_max_batch: 256}\n");
  ASSERT_TRUE(set) << set.error().ToString();
  EXPECT_EQ(CudaGraphMaxBatch(*set), 256);
  auto none = Load(kBase + "placement: {engine: sglang}\nengine: {cuda_graph_max_batch: 0}\n");
  ASSERT_TRUE(none) << none.error().ToString();
  EXPECT_EQ(CudaGraphMaxBatch(*none), 0);
  auto bad = Load(kBase + "engine: {cuda_graph_max_batch: -3}\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("engine.cuda_graph_max_batch"), std::string::npos) << bad.error().ToString();
  EXPECT_NE(bad.error().ToString().find("-3"), std::string::npos) << bad.error().ToString();
}

TEST(Scenario, Overrides) {
  auto o1 = ParseOverride("model=qwen3-32b");
  auto o2 = ParseOverride("algorithm.group_size = 4");
  auto o3 = ParseOverride("environment.response_tokens={mean: 500, cv: 1}");
  auto o4 = ParseOverride("goal.curve.exponent=2");  // creates intermediate maps
  ASSERT_TRUE(o1 && o2 && o3 && o4);
  EXPECT_EQ(o2->path, "algorithm.group_size");
  EXPECT_EQ(o2->value, "4");
  auto s = DefaultScenario(Cat(), {*o1, *o2, *o3, *o4});
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->model_id, "qwen3-32b");
  EXPECT_EQ(s->algorithm.group_size, 4);
  EXPECT_DOUBLE_EQ(s->environment.response_tokens.mean(), 500);
  EXPECT_TRUE(std::isinf(s->environment.response_tokens.max()));  // whole mapping replaced: no max
  EXPECT_EQ(s->goal.curve->exponent, 2);
  EXPECT_EQ(s->goal.curve->asymptote, LearningCurveSpec{}.asymptote);

  EXPECT_FALSE(ParseOverride("no-equals-sign"));
  EXPECT_FALSE(ParseOverride("a..b=1"));
  EXPECT_FALSE(ParseOverride("a=[1, 2"));
  auto many = scenario_internal::ParseOverrides({"x", "=1", "a.b=2"});
  ASSERT_FALSE(many);
  EXPECT_EQ(many.error().problems.size(), 2u);
  // A bad value set on the command line is attributed to `set` (the CLI prints --set).
  auto bad = DefaultScenario(Cat(), {*ParseOverride("algorithm.grup_size=4")});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().ToString(), "set: algorithm.grup_size: unknown key; did you mean 'group_size'?");
}

struct BadCase {
  std::string text;  // appended to kBase unless it starts with '!' (then replaces it)
  std::string path;  // must appear in the message
  std::string words;  // and so must this
};

TEST(Scenario, BadInputsNameTheField) {
  const std::vector<BadCase> cases = {
      {"environment: {respons_tokens: 100}", "environment.respons_tokens", "did you mean 'response_tokens'?"},
      {"algorithm: {group_size: abc}", "algorithm.group_size", "expected a whole number, got 'abc'"},
      {"environment: {response_tokens: {mean: 2000, max: 1000}}", "environment.response_tokens.max", "below the mean"},
      {"environment: {response_tokens: {mean: 200, min: 300}}", "environment.response_tokens.min", "above the mean"},
      {"environment: {response_tokens: {mean: 200, cv: -1}}", "environment.response_tokens.cv", "-1 is out of range"},
      {"environment: {prompt_tokens: -5}", "environment.prompt_tokens", "-5 is out of range"},
      {"environment: {tool_latency_s: {mean: -2}}", "environment.tool_latency_s.mean", "out of range"},
      {"environment: {pass_rate: {mean: 1.2}}", "environment.pass_rate.mean", "1.2 is out of range"},
      {"environment: {pass_rate: {mean: 0.3, concentration: 0}}", "environment.pass_rate.concentration", "> 0"},
      {"environment: {pass_rate: {histogram: {0.5: 1, 1.5: 1}}}", "environment.pass_rate.histogram.1.5", "[0, 1]"},
      {"environment: {pass_rate: {file: missing.csv}}", "environment.pass_rate.file", "not found"},
      {"environment: {reward: {type: partial}}", "environment.reward.type", "expected outcome | process"},
      {"environment: {reward: {type: process, credited_steps: 0}}", "environment.reward.credited_steps", ">= 1"},
      {"placement: {mode: disaggregated, rollout_gpus: 6, train_gpus: 4}", "placement.rollout_gpus",
       "expected hardware.gpus = 8"},
      {"placement: {rollout_tp: 3}", "placement.rollout_tp", "does not divide the 8 rollout GPUs"},
      {"placement: {rollout_tp: 16}", "placement.rollout_tp", "rollout_tp 16 is more than the 8 rollout GPUs"},
      {"placement: {rollout_tp: 3}", "placement.rollout_tp", "does not divide the 32 attention heads of qwen3-8b"},
      {"!model: qwen2.5-7b\nhardware: {gpu: h100-sxm, gpus: 16}\nplacement: {rollout_tp: 8}", "placement.rollout_tp",
       "rollout_tp 8 does not divide the 28 attention heads of qwen2.5-7b"},
      {"!model: {params_b: 1, layers: 2, hidden: 1536, heads: 12, kv_heads: 6}\nhardware: {gpu: h100-sxm, gpus: 8}\n"
       "placement: {rollout_tp: 4}",
       "placement.rollout_tp", "rollout_tp 4 does not divide the 6 KV heads"},
      {"!model: {params_b: 1, layers: 2, hidden: 1536, heads: 12, kv_heads: 4}\nhardware: {gpu: h100-sxm, gpus: 12}\n"
       "placement: {rollout_tp: 6}",
       "placement.rollout_tp", "rollout_tp 6 is not a multiple of the 4 KV heads"},
      {"placement: {dp_attention: true}", "placement.dp_attention", "vLLM runs attention data-parallel only for MoE"},
      {"placement: {dp_attention: yes please}", "placement.dp_attention", "expected true or false"},
      {"placement: {dp_attension: true}", "placement.dp_attension", "did you mean 'dp_attention'?"},
      {"placement: {mode: split}", "placement.mode", "expected colocated | disaggregated"},
      {"algorithm: {group_size: 0}", "algorithm.group_size", ">= 1"},
      {"algorithm: {prompts_per_step: 0}", "algorithm.prompts_per_step", ">= 1"},
      {"algorithm: {steps: -1}", "algorithm.steps", ">= 1"},
      {"algorithm: {lora: {rank: 0, tenants: 1}}", "algorithm.lora.rank", ">= 1"},
      {"algorithm: {lora: {tenants: 0}}", "algorithm.lora.tenants", ">= 1"},
      {"algorithm: {name: ppo2}", "algorithm.name", "expected grpo | dapo | rloo | ppo"},
      {"algorithm: {name: grpo, critic: true}", "algorithm.critic", "true needs algorithm.name: ppo"},
      {"algorithm: {dynamic_sampling: maybe}", "algorithm.dynamic_sampling", "expected true or false"},
      {"pipeline: {max_staleness: -1}", "pipeline.max_staleness", ">= 0"},
      {"pipeline: {dispatch: eager}", "pipeline.dispatch", "expected async | lockstep"},
      {"goal: {target_pass_rate: 1.0}", "goal.target_pass_rate", "(0, 1)"},
      {"precision: {rollout: fp4}", "precision.rollout", "fp4 is not supported by h100-sxm"},
      {"precision: {kv_cache: fp4}", "precision.kv_cache", "expected bf16 | fp8"},
      {"!model: qwen9-8b\nhardware: {gpu: h100-sxm}", "model", "unknown model 'qwen9-8b'; did you mean"},
      {"!model: qwen3-8b\nhardware: {gpu: h300}", "hardware.gpu", "unknown GPU 'h300'"},  // h100 is an alias of h100-sxm
      {"!hardware: {gpu: h100-sxm}", "model", "missing required field"},
      {"!model: qwen3-8b\nhardware: {gpus: 8}", "hardware.gpu", "missing required field"},
      {"!model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 0}", "hardware.gpus", ">= 1"},
      {"expect: {relative_to: {scenario: nowhere.yaml}}", "expect.relative_to.scenario", "not found"},
      {"expect: {metrics: {step.time_s: {value: 0}}}", "expect.metrics.step.time_s.value", "non-zero"},
      {"environment: {turns: 0}", "environment.turns", "expected a number >= 1"},
      {"placement: {train_pp: 3}", "placement.train_pp", "= 3 does not divide the 8 training GPUs"},
      {"placement: {train_tp: 0}", "placement.train_tp", ">= 1"},
      {"placement: {train_ep: 2}", "placement.train_ep", "qwen3-8b is dense"},
      {"placement: {train_micro_batch_tokens: -1}", "placement.train_micro_batch_tokens", ">= 1"},
      {"!model: deepseek-v3\nhardware: {gpu: h100-sxm, gpus: 48}\nplacement: {train_ep: 3}", "placement.train_ep",
       "3 does not divide the 256 routed experts of deepseek-v3"},
      {"!model: deepseek-v3\nhardware: {gpu: h100-sxm, gpus: 64}\nplacement: {train_pp: 8, train_ep: 16}",
       "placement.train_ep", "16 does not divide the 8 GPUs of one pipeline stage"},
  };
  for (const auto& c : cases) {
    std::string text = c.text[0] == '!' ? c.text.substr(1) : kBase + c.text + "\n";
    auto s = Load(text);
    ASSERT_FALSE(s) << text;
    const std::string msg = s.error().ToString();
    EXPECT_NE(msg.find(c.path + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.words), std::string::npos) << msg;
    EXPECT_EQ(s.error().code, ErrorCode::kInvalidInput);
  }
}

TEST(Scenario, FrameworkFillsOnlyTheFieldsTheFileLeavesOut) {
  // verl@0.4 (catalog/frameworks/verl.yaml, tag v0.4.1): eager vLLM, sleep
  // level 1, optimizer states kept on the GPU, gpu_memory_utilization 0.5,
  // gradient checkpointing on, one all-gather and load per tensor, 256
  // running sequences. The file sets refit_offload itself: that value stands and is not listed.
  auto s = Load(kBase + "framework: verl@0.4\nplacement: {refit_offload: pinned}\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "verl@0.4");
  EXPECT_TRUE(s->engine.enforce_eager);
  EXPECT_EQ(s->placement.engine_sleep_level, 1);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kPinned);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kPerTensor);
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.5);
  std::vector<std::string> paths;
  for (const auto& d : s->framework_defaults) {
    paths.push_back(d.path);
    EXPECT_NE(d.source.find("v0.4.1"), std::string::npos) << d.path << ": " << d.source;
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"placement.engine", "engine.enforce_eager", "placement.engine_sleep_level",
                                             "placement.offload", "placement.gpu_memory_utilization",
                                             "placement.gradient_checkpointing", "placement.train_pp_split",
                                             "placement.weight_sync", "engine.max_num_seqs"}));
  EXPECT_TRUE(s->placement.gradient_checkpointing);  // ppo_trainer.yaml:116 @ v0.4.1
  EXPECT_EQ(s->engine.max_num_seqs, 256);  // vllm_rollout_spmd.py never passes it; vllm<=0.8.5's default
  // --set wins over the framework as the file does.
  auto set = Load(kBase + "framework: verl@0.4\n", {{"engine.enforce_eager", "false"}});
  ASSERT_TRUE(set) << set.error().ToString();
  EXPECT_FALSE(set->engine.enforce_eager);
  // No version: the newest listed (v0.7.0): CUDA graphs, sleep level 2.
  auto newest = Load(kBase + "framework: verl\n");
  ASSERT_TRUE(newest) << newest.error().ToString();
  EXPECT_EQ(newest->framework, "verl@0.7");
  EXPECT_FALSE(newest->engine.enforce_eager);
  EXPECT_EQ(newest->placement.engine_sleep_level, 2);
  EXPECT_EQ(newest->placement.refit_offload, RefitOffload::kNone);
  // Without `framework`, nothing is supplied: rlcost's own defaults.
  auto none = Load(kBase);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->framework.empty());
  EXPECT_TRUE(none->framework_defaults.empty());
  EXPECT_FALSE(none->engine.enforce_eager);
  EXPECT_EQ(none->placement.refit_offload, RefitOffload::kPageable);
}

TEST(Scenario, UnknownFrameworkOrVersionIsAnErrorAtTheField) {
  auto msg = [](const std::string& extra) { return ErrorOf(kBase + extra); };
  std::string m = msg("framework: verl@0.1\n");
  EXPECT_NE(m.find("framework"), std::string::npos) << m;
  EXPECT_NE(m.find("0.4, 0.5, 0.6, 0.7"), std::string::npos) << m;
  m = msg("framework: megatron-rl\n");
  EXPECT_NE(m.find("verl, nemo-rl, areal"), std::string::npos) << m;
  m = msg("engine: {enforce_eager: maybe}\n");
  EXPECT_NE(m.find("engine.enforce_eager"), std::string::npos) << m;
  m = msg("engine: {cuda_graphs: false}\n");
  EXPECT_NE(m.find("engine"), std::string::npos) << m;
}

TEST(Scenario, DpAttentionLoadsWhereTheEngineHasIt) {
  // SGLang runs DP attention for any model; vLLM for MoE models (docs.vllm.ai
  // serving/data_parallel_deployment). DP attention splits no heads, so a tp
  // that does not divide them is fine (qwen2.5-7b: 28 heads, tp 8).
  auto sg = Load("name: t\nmodel: qwen2.5-7b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
                 "placement: {rollout_tp: 8, engine: sglang, dp_attention: true}\n");
  ASSERT_TRUE(sg) << sg.error().ToString();
  EXPECT_TRUE(sg->placement.dp_attention);
  auto moe = Load("name: t\nmodel: qwen3-30b-a3b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
                  "placement: {rollout_tp: 4, dp_attention: true}\n");
  ASSERT_TRUE(moe) << moe.error().ToString();
  auto plain = Load(kBase);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->placement.dp_attention);  // default
}

TEST(Scenario, GpuMemoryUtilizationSetsTheEnginesShare) {
  auto plain = Load(kBase);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->placement.gpu_memory_utilization.has_value());  // not set
  auto six = Load("name: t\nmodel: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
                  "placement: {gpu_memory_utilization: 0.6}\n");
  ASSERT_TRUE(six) << six.error().ToString();
  EXPECT_DOUBLE_EQ(six->placement.gpu_memory_utilization.value_or(0), 0.6);
  for (const char* bad : {"0", "1.5", "-0.1", "lots"}) {
    auto s = Load(std::string("name: t\nmodel: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
                              "placement: {gpu_memory_utilization: ") + bad + "}\n");
    ASSERT_FALSE(s) << bad;
    EXPECT_NE(s.error().ToString().find("placement.gpu_memory_utilization"), std::string::npos)
        << s.error().ToString();
  }
}

TEST(Scenario, ThreeMistakesGiveThreeProblems) {
  const std::string text = R"(model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
environment:
  respons_tokens: 100
  pass_rate: {mean: 1.5}
algorithm:
  group_size: abc
)";
  auto s = Load(text);
  ASSERT_FALSE(s);
  ASSERT_EQ(s.error().problems.size(), 3u) << s.error().ToString();
  EXPECT_EQ(s.error().problems[0].ToString(),
            "bad.yaml:4: environment.respons_tokens: unknown key; did you mean 'response_tokens'?");
  EXPECT_EQ(s.error().problems[1].path, "environment.pass_rate.mean");
  EXPECT_EQ(s.error().problems[1].line, 5);
  EXPECT_EQ(s.error().problems[2].ToString(),
            "bad.yaml:7: algorithm.group_size: expected a whole number, got 'abc'");
}

TEST(Scenario, MalformedYamlAndMissingFiles) {
  auto s = Load("model: qwen3-8b\nhardware: {gpu: h100-sxm\nalgorithm: x\n");
  ASSERT_FALSE(s);
  ASSERT_EQ(s.error().problems.size(), 1u);
  EXPECT_NE(s.error().problems[0].message.find("malformed YAML"), std::string::npos);
  EXPECT_GT(s.error().problems[0].line, 0);
  auto f = LoadScenarioFile(kData + "/does-not-exist.yaml", Cat());
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(Load(""));
  EXPECT_FALSE(Load("- a list"));
}

TEST(Scenario, PassRateAndEmpiricalFiles) {
  // successes / samples: 0/8, 4/8, 8/8, 2/8 -> rates 0, 0.5, 1, 0.25; n = 8; mean 0.4375.
  auto s = Load(kBase + "environment:\n  pass_rate: {file: pass_counts.csv}\n"
                        "  response_tokens: {file: lengths.csv}\n  prompt_tokens: {samples: [10, 30]}\n");
  ASSERT_TRUE(s) << s.error().ToString();
  const auto& pr = s->environment.pass_rate;
  EXPECT_EQ(pr.kind, PassRateSpec::Kind::kTasks);
  EXPECT_EQ(pr.task_pass_rates, (std::vector<double>{0, 0.5, 1, 0.25}));
  EXPECT_EQ(pr.samples_per_task, 8);
  EXPECT_DOUBLE_EQ(pr.mean(), 0.4375);
  EXPECT_DOUBLE_EQ(s->environment.response_tokens.mean(), 250);  // (100+300+200+400)/4
  EXPECT_EQ(s->environment.response_tokens.kind(), DistKind::kEmpirical);
  EXPECT_DOUBLE_EQ(s->environment.prompt_tokens.mean(), 20);
  // {a, b} and a per-row CSV error with the CSV's own line.
  auto ab = Load(kBase + "environment: {pass_rate: {a: 1, b: 3}}\n");
  ASSERT_TRUE(ab);
  EXPECT_DOUBLE_EQ(ab->environment.pass_rate.mean(), 0.25);
  auto bad = Load(kBase + "environment: {pass_rate: {file: bad_rates.csv}}\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().problems[0].line, 3);
  EXPECT_NE(bad.error().ToString().find("pass_rate '1.5' is not a number in [0, 1]"), std::string::npos);
  // The shared pilot file: 400 tasks, pass_rate column, n unknown (0).
  if (fs::exists(kShared + "/scenarios/pilot-eval.yaml")) {
    auto p = LoadScenarioFile(kShared + "/scenarios/pilot-eval.yaml", Cat());
    ASSERT_TRUE(p) << p.error().ToString();
    EXPECT_EQ(p->environment.pass_rate.task_pass_rates.size(), 400u);
    EXPECT_EQ(p->environment.pass_rate.samples_per_task, 0);
    EXPECT_EQ(p->source_path, kShared + "/scenarios/pilot-eval.yaml");
  }
}

TEST(Scenario, InlineModelAndExpect) {
  auto s = Load(R"(model: {name: my-moe, params_b: 30.5, active_params_b: 3.3, layers: 48, hidden: 2048,
        heads: 32, kv_heads: 4, head_dim: 128, experts: 128, experts_per_token: 8}
hardware: {gpu: b200}
expect:
  source: test
  metrics: {step.time_s: {value: 92.8, tolerance: 0.3}}
  relative_to: {scenario: lengths.csv, metrics: {step.time_s: {value: 0.7}}}
)");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->model_id, "my-moe");
  EXPECT_EQ(s->model.experts, 128);
  EXPECT_EQ(s->hardware.gpus, 8);  // default
  ASSERT_TRUE(s->expect);
  EXPECT_EQ(s->expect->metrics.at("step.time_s").value, 92.8);
  EXPECT_EQ(s->expect->relative_metrics.at("step.time_s").tolerance, 0.25);  // default
  EXPECT_EQ(s->expect->relative_scenario, fs::path(kData + "/lengths.csv").lexically_normal().string());
  auto bad = Load("model: {name: x, layers: 4}\nhardware: {gpu: h100-sxm}\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("model.params_b"), std::string::npos);
}

// `clipped` on a distribution: each mistake names the field, the value and
// what was expected (docs/model.md, "Responses clipped at the maximum length").
TEST(Scenario, ClippedShareErrorsNameTheField) {
  auto err = [](const std::string& rt) { return ErrorOf(kBase + "environment:\n  response_tokens: " + rt + "\n"); };
  std::string e = err("{mean: 2000, cv: 0.8, max: 8192, clipped: 1}");
  EXPECT_NE(e.find("environment.response_tokens.clipped"), std::string::npos) << e;
  EXPECT_NE(e.find("1 is out of range; expected the share of draws at max, in [0, 1)"), std::string::npos) << e;
  e = err("{mean: 2000, cv: 0.8, max: 8192, clipped: -0.2}");
  EXPECT_NE(e.find("-0.2 is out of range"), std::string::npos) << e;
  e = err("{mean: 2000, cv: 0.8, clipped: 0.05}");
  EXPECT_NE(e.find("environment.response_tokens.clipped"), std::string::npos) << e;
  EXPECT_NE(e.find("needs 'max'"), std::string::npos) << e;
  // 30% at 8192 is 2457.6 > 2000: the rest would need (2000 - 2457.6) / 0.7 = -653.714.
  e = err("{mean: 2000, cv: 0.8, max: 8192, clipped: 0.3}");
  EXPECT_NE(e.find("environment.response_tokens.clipped"), std::string::npos) << e;
  EXPECT_NE(e.find("mean 2000 cannot be reached with a share 0.3 at max 8192"), std::string::npos) << e;
  e = err("{samples: [100, 200, 8192], clipped: 0.1}");
  EXPECT_NE(e.find("environment.response_tokens.clipped"), std::string::npos) << e;
  EXPECT_NE(e.find("not used with 'samples' or 'file'"), std::string::npos) << e;
  e = err("{mean: 2000, max: 8192, clipped: many}");
  EXPECT_NE(e.find("environment.response_tokens.clipped"), std::string::npos) << e;
  // A schedule's step means must each be reachable with the share at max:
  // 1500 - 0.3 * 8192 < 0.
  auto sched = Load(kBase +
                    "algorithm: {steps: 10}\nenvironment:\n  response_tokens: {mean: 3000, cv: 0.8, max: 8192, clipped: 0.3}\n"
                    "  response_tokens_schedule: {start_mean: 1500, end_mean: 3000}\n");
  ASSERT_FALSE(sched.has_value());
  e = sched.error().ToString();
  EXPECT_NE(e.find("environment.response_tokens_schedule.start_mean"), std::string::npos) << e;
  EXPECT_NE(e.find("cannot be reached with a share 0.3"), std::string::npos) << e;
  // A valid one loads with the share kept.
  auto ok = Load(kBase + "environment:\n  response_tokens: {mean: 2000, cv: 0.8, max: 8192, clipped: 0.03}\n");
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_DOUBLE_EQ(ok->environment.response_tokens.clipped(), 0.03);
  EXPECT_DOUBLE_EQ(ok->environment.response_tokens.mean(), 2000);
}

}  // namespace
}  // namespace rlcost
