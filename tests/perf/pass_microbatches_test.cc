// Micro-batches of each pass: the update's (placement.train_micro_batch_tokens
// or train_micro_batch_seqs) and the forward-only passes' own
// (logprob_micro_batch_tokens / logprob_micro_batch_seqs), as veRL's
// ppo_micro_batch_size_per_gpu and log_prob_micro_batch_size_per_gpu state
// them. docs/model.md, "Micro-batches of each pass".
#include <gtest/gtest.h>

#include "perf/fsdp_overlap.h"
#include "perf/megatron_comm.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(const std::string& placement) {
  return "name: mb\nmodel: qwen2.5-7b\nhardware: {gpu: a100-80g, gpus: 8, gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 2, gpu_memory_utilization: 0.6" +
         placement +
         "}\n"
         "environment:\n  prompt_tokens: {mean: 100, cv: 0.3, max: 1024}\n"
         "  response_tokens: {mean: 150, cv: 0.7, max: 1024}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 5, prompts_per_step: 1024, steps: 10, minibatches: 4}\n";
}

// veRL's GPG Megatron recipe: TP 2 x PP 2 on 8 GPUs (dp 2), 5,120 sequences
// of 250 tokens, micro-batches of 4 sequences in the update and the
// old-log-prob pass.
TEST(PassMicrobatches, SequencesPerMicroBatchCountPerDataParallelRank) {
  Scenario s = test::Load(Text(", train_tp: 2, train_pp: 2, train_micro_batch_seqs: 4"));
  const double tokens = 5120.0 * 250.0;
  // A rank holds 2,560 sequences (640,000 tokens); 4 of 250 tokens = 1,000
  // tokens a micro-batch: 640 micro-batches, in the update and (nothing of
  // its own stated) in the forward passes.
  EXPECT_DOUBLE_EQ(perf::MicrobatchTokens(s, 250, /*forward_only=*/false), 1000.0);
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(s, 8, tokens, 250, false), 640.0);
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(s, 8, tokens, 250, /*forward_only=*/true), 640.0);
  // The forward passes' own size: 16 sequences -> 2,560 / 16 = 160.
  Scenario lp = test::Load(Text(", train_tp: 2, train_pp: 2, train_micro_batch_seqs: 4, logprob_micro_batch_seqs: 16"));
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(lp, 8, tokens, 250, true), 160.0);
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(lp, 8, tokens, 250, false), 640.0);
  // In tokens (dynamic batch size): ceil(640,000 / 3,000) = ceil(213.3) = 214.
  Scenario tk = test::Load(Text(", train_tp: 2, train_pp: 2, train_micro_batch_seqs: 4, logprob_micro_batch_tokens: 3000"));
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(tk, 8, tokens, 250, true), 214.0);
  // A stated token size wins over the sequences of the same pass.
  Scenario both = test::Load(Text(", train_tp: 2, train_pp: 2, train_micro_batch_seqs: 4, train_micro_batch_tokens: 8000"));
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(both, 8, tokens, 250, false), 80.0);
  // None stated: the fallback of one mean-length sequence (2,560).
  Scenario none = test::Load(Text(", train_tp: 2, train_pp: 2"));
  EXPECT_DOUBLE_EQ(perf::MicrobatchTokens(none, 250, false), 0.0);
  EXPECT_DOUBLE_EQ(perf::PassMicrobatches(none, 8, tokens, 250, true), 2560.0);
  // The forward pass's pipeline bubble follows its own count: with 160
  // micro-batches it is 1/161 of the pass, with 640 1/641.
  const double t160 = perf::ForwardPass(lp, tokens, 250, 8).time_s;
  const double t640 = perf::ForwardPass(s, tokens, 250, 8).time_s;
  EXPECT_NEAR(t160 / t640, (1.0 - 1.0 / 641.0) / (1.0 - 1.0 / 161.0), 1e-12);
}

// veRL's GPG FSDP recipe: 8 GPUs, one sharding group of 8, micro-batches of
// 16 sequences. Stated in sequences the FSDP traffic is priced from them;
// the same micro-batch stated as a budget of 16 x 250 = 4,000 tokens packs
// the sequences and deals the packs (FsdpPassMicrobatches: E[ceil(b / dp)],
// tests/perf/fsdp_traffic_test.cc), at least as many: the packer leaves
// room in its packs and the ranks run the most packs any rank was dealt.
TEST(PassMicrobatches, FsdpTrafficIsPricedFromSequencesPerMicroBatch) {
  Scenario seqs = test::Load(Text(", train_backend: fsdp, train_micro_batch_seqs: 16, logprob_micro_batch_seqs: 16"));
  Scenario toks = test::Load(Text(", train_backend: fsdp, train_micro_batch_tokens: 4000"));
  const double tokens = 5120.0 * 250.0;
  for (bool fwd : {false, true}) {
    const double per_mb = perf::FsdpTrafficTime(seqs, tokens, 250, 8, fwd) / 40.0;  // 40 micro-batches either way (below)
    const double packs = perf::FsdpPassMicrobatches(toks, tokens, 250, 8, fwd);
    EXPECT_GE(packs, 40.0);
    EXPECT_NEAR(perf::FsdpTrafficTime(toks, tokens, 250, 8, fwd), packs * per_mb, 1e-9);
  }
  // By hand, forward only: 640 sequences a GPU / 16 = 40 micro-batches, each
  // gathering 2 B x 7.61e9 x 7/8 = 13.3175e9 bytes over NVLink at
  // 300 GB/s x 0.82 = 246 GB/s: 40 x 13.3175e9 / 246e9 = 2.16545 s.
  ASSERT_DOUBLE_EQ(seqs.hardware.gpu.intra_node_gb_per_s, 300.0);
  EXPECT_NEAR(perf::FsdpTrafficTime(seqs, tokens, 250, 8, true), 40 * 13.3175e9 / 246e9, 1e-9);
  // The update: 4 mini-batches of 160 sequences a GPU, 10 micro-batches each,
  // (2 + 2 + 4) x 7.61e9 x 7/8 = 53.27e9 bytes: 40 x 53.27e9 / 246e9 = 8.6618 s.
  EXPECT_NEAR(perf::FsdpTrafficTime(seqs, tokens, 250, 8, false), 40 * 53.27e9 / 246e9, 1e-9);
  // Only the update stated: the forward passes take its micro-batch.
  Scenario upd = test::Load(Text(", train_backend: fsdp, train_micro_batch_seqs: 16"));
  EXPECT_DOUBLE_EQ(perf::FsdpTrafficTime(upd, tokens, 250, 8, true), perf::FsdpTrafficTime(seqs, tokens, 250, 8, true));
}

// Megatron-Core's even split: num_layers / pp layers a stage, the output
// layer on the last stage besides. Qwen2.5-7B: 7.61e9 active parameters,
// vocab 152,064, hidden 3,584: O = 2 x 152,064 x 3,584 = 1.08999e9 FLOPs a
// token, W_l = 15.22e9 - 2 O = 13.04002e9. PP 2: 2 (W_l / 2 + O) / (W_l + O)
// = 1.07714; PP 4: 4 (W_l / 4 + O) / (W_l + O) = 1.23142.
TEST(PassMicrobatches, PipelineStagesSplitEvenlyRunAtTheLastStagesPace) {
  Scenario even = test::Load(Text(", train_tp: 2, train_pp: 2, train_pp_split: even"));
  ASSERT_EQ(even.model.vocab, 152064);
  ASSERT_EQ(even.model.hidden, 3584);
  const double o = 2.0 * 152064 * 3584;
  const double wl = 2 * 7.61e9 - 2 * o;
  EXPECT_NEAR(perf::PipelineStageFactor(even), 2 * (wl / 2 + o) / (wl + o), 1e-12);
  EXPECT_NEAR(perf::PipelineStageFactor(even), 1.07714, 1e-5);
  Scenario four = test::Load(Text(", train_tp: 2, train_pp: 4, train_pp_split: even"));
  EXPECT_NEAR(perf::PipelineStageFactor(four), 1.23142, 1e-5);
  // Balanced (the default) and one stage: 1.
  Scenario bal = test::Load(Text(", train_tp: 2, train_pp: 2"));
  EXPECT_EQ(bal.placement.train_pp_split, PipelineSplit::kBalanced);
  EXPECT_EQ(perf::PipelineStageFactor(bal), 1.0);
  Scenario one = test::Load(Text(", train_tp: 2, train_pp_split: even"));
  EXPECT_EQ(perf::PipelineStageFactor(one), 1.0);
  // Every pass takes the factor: update and forward (its pipeline sends and
  // the optimizer steps' own costs apart: docs/model.md, "Megatron
  // communication left exposed").
  const double tokens = 5120.0 * 250.0;
  const double steps = 3 * (perf::OptimizerStepTime(bal) + perf::MegatronGradSyncExposedTime(bal, 250, 8));
  const double sends = perf::MegatronPipelineSendTime(bal, tokens, 250, 8, false);
  const double fwd_sends = perf::MegatronPipelineSendTime(bal, tokens, 250, 8, true);
  EXPECT_NEAR(perf::TrainStep(even, tokens, 250, 8).time_s - steps - sends,
              (perf::TrainStep(bal, tokens, 250, 8).time_s - steps - sends) * perf::PipelineStageFactor(even), 1e-9);
  EXPECT_NEAR((perf::ForwardPass(even, tokens, 250, 8).time_s - fwd_sends) /
                  (perf::ForwardPass(bal, tokens, 250, 8).time_s - fwd_sends),
              perf::PipelineStageFactor(even), 1e-12);
  auto bad = LoadScenarioText(Text(", train_pp_split: uneven"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("placement.train_pp_split"), std::string::npos) << bad.error().ToString();
}

TEST(PassMicrobatches, BadSizeNamesTheField) {
  auto r = LoadScenarioText(Text(", logprob_micro_batch_seqs: 0"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("placement.logprob_micro_batch_seqs"), std::string::npos) << r.error().ToString();
}

}  // namespace
}  // namespace rlcost
