// The discrete-event simulation of the RL loop (docs/model-parts/sim.md).
//
// Engines batch continuously under a KV budget counted in 16-token blocks;
// between two events an engine's batch is fixed, so n decode iterations are
// one closed-form perf::DecodeIterations call (no per-token loop). Trajectories
// leave the batch for tool calls on a FIFO sandbox pool and come back to
// prefill the tool output. The trainer, weight sync and the sync / async
// pipelines are a handful of events per step.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "sim/event_queue.h"
#include "sim/judge.h"
#include "sim/kv_cache.h"
#include "sim/trace.h"

namespace rlcost::sim {
namespace {

// Prefill tokens per engine iteration under chunked prefill: vLLM's
// max_num_batched_tokens = 8192 (a model assumption; the V1 default for large
// GPUs is in this range).
constexpr int64_t kChunkTokens = 8192;
// Trace only the first steps in detail (bounded file).
constexpr int kTraceSteps = 3;
// Above this many rollouts per step the simulation would take minutes.
constexpr double kMaxRolloutsPerStep = 2.0e6;
// Trajectories over the whole simulated run (steps x rollouts per step); see
// Setup() for the time and memory this stands for.
constexpr double kMaxSimulatedTrajectories = 5.0e7;
// Engines: 1e6 GPUs at tp 1 took 30 s and 2.4 GB before a single step ran.
constexpr int kMaxEngines = 100'000;

constexpr int32_t kNone = -1;

int64_t Blocks(int64_t tokens) { return tokens <= 0 ? 0 : (tokens + kBlockTokens - 1) / kBlockTokens; }
int Mod16(int64_t x) { return static_cast<int>(((x % kBlockTokens) + kBlockTokens) % kBlockTokens); }

uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

enum class TrajState : uint8_t { kWaiting, kPrefill, kRunning, kTool, kSandboxQueue, kBarrier, kVerify, kJudge, kDone };
enum class IdleCause : uint8_t { kNone, kTail, kTrainer, kTools, kSync, kJudge };

struct Turn {
  int32_t response = 0;
  int32_t tool_out = 0;
  double tool_latency_s = 0;
};

struct Traj {
  int batch = 0;
  int engine = 0;
  int turns = 1;
  int turn = 0;            // current turn, 0-based
  int turn_off = 0;        // first Turn in its batch's pool
  int64_t prompt = 0;
  double verify_s = 0;
  int64_t ctx = 0;         // context tokens committed (valid while not running)
  int64_t gen = 0;         // tokens decoded so far
  int64_t tool_tokens = 0;
  int64_t pf_left = 0;     // prefill tokens still to process
  int64_t pf_ctx = 0;      // context before the remaining prefill
  int64_t resp_left = 0;   // tokens still to decode in this turn
  int64_t key = 0;         // running: context = key + engine iteration counter
  int64_t finish_iter = 0; // running: iteration at which the turn is decoded
  int64_t blocks = 0;      // blocks held outside the running set (prefill, parked cache)
  int32_t judge_left = 0;  // judge calls not yet answered (sim/judge.h)
  uint32_t epoch = 0;      // bumps when it leaves the running set or its cache changes
  int32_t prev = kNone, next = kNone;  // running list, admission order
  double t_start = 0, t_end = 0, t_request = 0;
  bool startup_paid = false;
  bool parked = false;     // its KV stays cached (evictable) while it is out on a tool call
  TrajState state = TrajState::kWaiting;
};

struct Batch {
  int index = 0;
  int created = 0;      // trajectories started
  int gen_done = 0;     // trajectories done decoding
  int finished = 0;     // trajectories rewarded
  std::vector<Traj> trajs;
  std::vector<Turn> turns;
  std::vector<int> barrier_need;     // lockstep: trajectories that make tool call k
  std::vector<int> barrier_arrived;
  std::vector<std::vector<int32_t>> barrier_held;
  double t_first_start = 0, t_last_gen_end = 0, t_last_end = 0;
  bool materialized = false;
};

struct FinishEntry {
  int64_t iter;
  int32_t traj;
  uint32_t epoch;
  bool operator>(const FinishEntry& o) const {
    return iter > o.iter || (iter == o.iter && traj > o.traj);
  }
};

enum class SegKind : uint8_t { kNone, kDecode, kMixed };

struct Engine {
  int id = 0;
  // Running set: context of sequence i is key_i + iter.
  int64_t iter = 0;
  int64_t n_running = 0;
  int64_t sum_key = 0;
  int64_t phase_cnt[kBlockTokens] = {};
  int32_t head = kNone, tail = kNone;   // admission order: tail = most recent
  std::vector<FinishEntry> finish_heap;
  std::deque<int32_t> waiting;
  std::deque<int32_t> prefill_q;
  std::vector<int32_t> prefill_done;    // completed by the iteration in flight
  std::deque<std::pair<int32_t, uint32_t>> parked_lru;
  int64_t static_blocks = 0;            // prefill + parked
  // Current segment.
  SegKind seg = SegKind::kNone;
  double seg_t0 = 0, seg_t1 = 0;
  int64_t seg_n = 0, seg_b = 0, seg_ctx = 0;
  double seg_flops = 0;                 // per GPU
  uint32_t seg_version = 0;
  bool in_handler = false;
  bool paused = false;
  bool recompute_on_resume = false;
  bool resume_pending = false;  // its timer is a pause ending, not a segment
  // Trajectories assigned and not done decoding; of those, out on a tool.
  int inflight = 0;
  int out = 0;
  int64_t peak_batch = 0;
  // Idle interval.
  bool idle = false;
  double idle_since = 0;
  IdleCause idle_cause = IdleCause::kNone;
  double pause_since = 0;
  // Totals.
  double busy_s = 0, batch_s = 0, blocks_s = 0, pause_s = 0;
};

struct Percentile {
  static Percentiles Of(std::vector<double>& v) {
    Percentiles p;
    if (v.empty()) return p;
    // Nearest-rank percentiles are order statistics: select them with
    // nth_element on successively smaller tails (O(n), no full sort).
    auto rank = [&](double q) {
      size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
      return std::min(v.size() - 1, i == 0 ? 0 : i - 1);
    };
    // Each selection reorders the tail it works on, so read a value before
    // the next one: [i, end) holds exactly the order statistics i, i+1, ...
    size_t i50 = rank(0.50), i90 = rank(0.90), i99 = rank(0.99);
    std::nth_element(v.begin(), v.begin() + i50, v.end());
    p.p50 = v[i50];
    std::nth_element(v.begin() + i50, v.begin() + i90, v.end());
    p.p90 = v[i90];
    std::nth_element(v.begin() + i90, v.begin() + i99, v.end());
    p.p99 = v[i99];
    p.max = *std::max_element(v.begin() + i99, v.end());
    return p;
  }
};

class Simulator {
 public:
  Simulator(const Scenario& s, const signal::Summary& sig, const Options& opt) : s_(s), sig_(sig), opt_(opt) {}
  Result<SimResult> Run();

 private:
  // Setup and the two drivers.
  Result<void> Setup();
  Result<void> RunSyncColocated();
  Result<void> RunPipelined();
  Result<void> Dispatch(const Event& ev);
  bool NextEvent();  // processes the earliest event; false when none is left
  Result<void> Finish();

  // Trajectories.
  // id = batch * g_ + index. The division by the run-constant g_ is a
  // multiply-high (Lemire, Kaser & Kurz, "Faster Remainder by Direct
  // Computation", 2019: with M = ceil(2^64 / d), n / d = (M n) >> 64 exactly
  // for every 32-bit n and d >= 2), not an integer divide on every lookup.
  int32_t BatchOf(int32_t id) const {
    if (g_ == 1) return id;
    return static_cast<int32_t>((static_cast<unsigned __int128>(g_magic_) * uint32_t(id)) >> 64);
  }
  Traj& T(int32_t id) {
    int32_t b = BatchOf(id);
    return batches_[b].trajs[id - b * g_];
  }
  // False once the trajectory's batch is finished and its storage recycled
  // (stale finish-heap and LRU entries may still name it).
  bool Alive(int32_t id) const { return !batches_[BatchOf(id)].trajs.empty(); }
  Batch& MaterializeBatch(int b);
  void StartTrajectory(int32_t id, int engine);
  void ToolOrReward(int32_t id);
  void RequestSandbox(int32_t id, double dur_s, EventType done);
  void ReleaseSandbox();
  void SandboxInUse(int delta);
  void DrawRounds();
  void ReturnFromTool(int32_t id);
  void TrajDone(int32_t id);
  // Its reward is asked for: judged by the model verifiers (sim/judge.h), or done.
  void Rewarded(int32_t id);
  void StartJudgePhase();
  void EndJudgePhase();
  void JudgeEvent(const Event& ev);
  void FreeBatchIfDone(int b);

  // Engines.
  void Kick(int e);
  void Plan(int e);
  void EndSegment(int e);
  void TruncateSegment(int e);
  void Admit(Engine& en);
  bool MakeRoom(Engine& en, int64_t need);
  bool EvictOneParked(Engine& en);
  void JoinRunning(Engine& en, int32_t id);
  void LeaveRunning(Engine& en, int32_t id);
  void Preempt(Engine& en, int32_t id);
  int64_t RunningBlocks(const Engine& en, int64_t iter) const;
  bool RunningFits(const Engine& en, int64_t iter, int64_t room) const;
  void OpenIdle(int e);
  void CloseIdle(int e);
  IdleCause Classify(const Engine& en) const;
  void Reclassify(int e);
  void ReclassifyAll();
  void PauseEngines();
  void ResumeEngine(int e);

  // Pipelined trainer.
  bool CanStart() const;
  void TryStart();
  void TrainerTry();
  void StartSync();
  void StepDone();
  // The trainer's passes over `tokens`, this step's `trajs` trained
  // trajectories: their times, added with their FLOPs to the run's sums
  // (both pipelines).
  struct Phases {
    double lp = 0, ref = 0, tr = 0;
  };
  Phases TrainOn(double tokens, double trajs);

  bool Tracing() const { return trace_.on() && trace_step_ < kTraceSteps; }
  // The decode roofline arms at a batch size, computed once per size: they do
  // not depend on the context (perf::DecodeArmsFor), and batch sizes repeat.
  const perf::DecodeArms& Arms(int64_t batch) {
    if (batch >= int64_t(arms_.size())) {
      arms_.resize(size_t(batch) + 1);
      arms_ok_.resize(size_t(batch) + 1, 0);
    }
    if (!arms_ok_[batch]) {
      arms_[batch] = perf::DecodeArmsFor(ec_, double(batch));
      arms_ok_[batch] = 1;
    }
    return arms_[batch];
  }
  perf::Work Decode(int64_t batch, double ctx, double n) {
    if (n <= 0 || batch <= 0) return perf::Work{};
    return perf::DecodeIterations(Arms(batch), double(batch), ctx, n);
  }

  const Scenario& s_;
  const signal::Summary& sig_;
  const Options& opt_;

  // Configuration.
  perf::EngineConfig ec_;
  int steps_ = 0;
  int g_ = 0;                // trajectories generated per step
  uint64_t g_magic_ = 0;     // ceil(2^64 / g_) for BatchOf
  double trained_ratio_ = 1; // trained / generated
  int n_engines_ = 0;
  int tp_ = 1;
  int rollout_gpus_ = 0, train_gpus_ = 0, gpus_ = 0;
  bool pipelined_ = false;   // disaggregated: rollout and trainer sides apart
  bool async_ = false;
  double staleness_ = 0;
  bool partial_ = false;
  bool lockstep_ = false;
  bool has_sandbox_ = false;
  // Multi-turn: a trajectory holds its sandbox from start-up to verification
  // (the container lives for the whole episode); single-turn: only for its reward.
  bool hold_sandbox_ = false;
  SandboxSpec sandbox_;
  // Dynamic sampling in rounds (sync colocated, veRL's DAPO loop): a batch is
  // one generation round of g_ rollouts; step k runs rounds_[k] of them.
  bool rounds_mode_ = false;
  std::vector<int> rounds_;
  int64_t total_rounds_ = 0;
  double trained_per_step_ = 0;
  int64_t total_blocks_ = 0, watermark_blocks_ = 0;
  double kv_tokens_ = 0;
  double sync_s_ = 0;
  double overhead_s_ = 0;
  double offload_s_ = 0;  // offloaded training state to host and back, per step
  double refit_offload_s_ = 0;  // of which the optimizer states around the refit (colocated)
  perf::WeightSyncParts sync_parts_;  // one sync, by part (sync_s_ is its total)
  uint64_t seed_ = 1;
  std::vector<std::string> notes_;
  std::vector<perf::DecodeArms> arms_;  // by batch size
  std::vector<uint8_t> arms_ok_;

  // State.
  double now_ = 0;
  EventQueue q_;
  EngineTimers timers_;
  std::vector<Engine> engines_;
  std::vector<Batch> batches_;
  std::vector<std::vector<Traj>> traj_pool_;
  std::vector<std::vector<Turn>> turn_pool_;
  std::mt19937_64 rng_;
  std::vector<int32_t> scratch_;
  int sandbox_free_ = 0;
  std::deque<std::tuple<int32_t, double, EventType>> sandbox_q_;
  long long events_ = 0;
  int trace_step_ = 0;
  TraceWriter trace_;

  // Pipelined state.
  int64_t started_ = 0, max_start_ = 0;
  int64_t inflight_total_ = 0;
  int64_t finished_total_ = 0;
  int version_ = 0;
  bool update_pending_ = false;
  int next_engine_rr_ = 0;
  int trainer_step_ = 0;
  enum class TrainerPhase { kWaitBatch, kBusy, kWaitSync, kSync, kOverhead, kDone } trainer_ = TrainerPhase::kWaitBatch;
  double trainer_since_ = 0;
  std::vector<double> finished_tokens_cum_;   // trained tokens after each multiple of g_ finished
  double cum_tokens_ = 0;
  bool sync_done_flag_ = false;  // sync colocated: the step's batch is rewarded

  // Totals over the run.
  double sum_rollout_s_ = 0, sum_train_s_ = 0, sum_lp_s_ = 0, sum_ref_s_ = 0, sum_sync_s_ = 0, sum_reward_s_ = 0,
         sum_overhead_s_ = 0, sum_sync_wait_s_ = 0, sum_offload_s_ = 0;
  double sum_rollout_busy_s_ = 0;
  double rollout_flops_ = 0, train_flops_ = 0, other_flops_ = 0;
  double gen_tokens_ = 0, prefill_tokens_ = 0, trained_tokens_ = 0;
  double sandbox_busy_s_ = 0, sandbox_wait_s_ = 0;
  int sandbox_in_use_ = 0, sandbox_peak_ = 0;
  double sandbox_mark_t_ = 0;  // last change of sandbox_in_use_ (sandbox_busy_s_ integrates it)
  double idle_tail_ = 0, idle_trainer_ = 0, idle_tools_ = 0, idle_sync_ = 0, idle_wait_rollout_ = 0;
  // Under-filled decode in the length tail: busy GPU-seconds, not idle.
  double underfill_ = 0;
  // Colocated sync: engine idle GPU-seconds inside the rollout phase and
  // inside the reward phase after it (every engine waits for the verifier).
  double idle_in_rollout_ = 0, idle_in_reward_ = 0;
  double IdleSum() const { return idle_tail_ + idle_trainer_ + idle_tools_ + idle_sync_ + idle_judge_; }
  // Model verifiers as engine work (sim/judge.h). Sync: from the end of a
  // round's generation every policy engine waits for the judges (idle_judge_;
  // a shared judge's own work on those GPUs is moved out of it to other).
  Judges judges_;
  bool judge_wait_ = false;
  double judge_phase_t0_ = 0;
  double judge_idle0_ = 0;
  double judge_carry_ = 0;         // environment.failures: share of trajectories judged, carried
  double idle_judge_ = 0;          // policy GPU-seconds waiting for the judges
  double judge_shared_gpu_s_ = 0;  // shared judges' busy GPU-seconds (other, not idle)
  double judge_phase_s_ = 0;       // wall time shared judges hold the policy's GPUs
  std::vector<double> gen_done_t_;  // pipelined: when each multiple of g_ trajectories finished generating
  int64_t gen_done_total_ = 0;
  std::vector<int32_t> judge_done_;
  double gpu_s_rollout_ = 0, gpu_s_train_ = 0, gpu_s_other_ = 0;
  double preemptions_ = 0;
  std::optional<Error> too_long_;  // set by MaterializeBatch: a context no engine can hold
  std::vector<double> traj_time_, traj_tokens_;
  double end_time_ = 0;
};

// ---------------------------------------------------------------------------
// Setup

Result<void> Simulator::Setup() {
  steps_ = opt_.steps > 0 ? opt_.steps : s_.algorithm.steps;
  if (steps_ <= 0) return Fail(ErrorCode::kInvalidInput, "algorithm.steps", "need at least one step to simulate");
  double gen = sig_.rollouts_per_step > 0 ? sig_.rollouts_per_step
                                          : double(s_.algorithm.prompts_per_step) * s_.algorithm.group_size;
  if (!(gen >= 1) || gen > kMaxRolloutsPerStep) {
    return Fail(ErrorCode::kInvalidInput, "signal.rollouts_per_step",
                fmt::format("{:.4g} rollouts per step cannot be simulated (1 to {:.0f})", gen, kMaxRolloutsPerStep));
  }
  g_ = static_cast<int>(std::llround(gen));
  // The simulator keeps a record per trajectory (its time and tokens, for
  // the percentiles) and takes about 1 us of CPU per single-turn trajectory
  // (default.yaml: 3.1e6 trajectories in 2.7 s, 55 MB). Bounded up front
  // instead of running for hours or exhausting memory.
  if (double(steps_) * gen > kMaxSimulatedTrajectories) {
    const bool from_cli = opt_.steps > 0;
    return Fail(ErrorCode::kInvalidInput, from_cli ? "--steps" : "algorithm.steps",
                fmt::format("{} steps x {:.0f} rollouts = {:.3g} trajectories; the simulator handles at most {:.0e} "
                            "(about a minute and 1 GB); simulate fewer steps{}",
                            steps_, gen, double(steps_) * gen, kMaxSimulatedTrajectories,
                            from_cli ? "" : " with --steps (the per-step figures do not need the whole run)"));
  }
  g_magic_ = g_ > 1 ? UINT64_MAX / uint64_t(g_) + 1 : 0;
  double trained = sig_.rollouts_trained_per_step > 0 ? sig_.rollouts_trained_per_step : gen;
  trained_ratio_ = std::min(1.0, trained / gen);

  const auto& pl = s_.placement;
  gpus_ = s_.hardware.gpus;
  pipelined_ = pl.mode == PlacementMode::kDisaggregated;
  rollout_gpus_ = pipelined_ ? pl.rollout_gpus : gpus_;
  train_gpus_ = pipelined_ ? pl.train_gpus : gpus_;
  tp_ = std::max(1, pl.rollout_tp);
  n_engines_ = rollout_gpus_ / tp_;
  if (n_engines_ > kMaxEngines) {
    return Fail(ErrorCode::kInvalidInput, "hardware.gpus",
                fmt::format("{} inference engines; the simulator models each one (about 2.4 kB and its own events) "
                            "and handles at most {}; use `rlcost estimate` for larger clusters",
                            n_engines_, kMaxEngines));
  }
  if (n_engines_ < 1) {
    return Fail(ErrorCode::kDoesNotFit, "placement.rollout_tp",
                fmt::format("{} rollout GPUs cannot hold one engine of tensor-parallel size {}", rollout_gpus_, tp_));
  }
  if (train_gpus_ < 1) return Fail(ErrorCode::kDoesNotFit, "placement.train_gpus", "no GPUs to train on");
  if (rollout_gpus_ % tp_ != 0) {
    notes_.push_back(fmt::format("{} rollout GPUs are not a multiple of rollout_tp {}: {} GPUs stay idle",
                                 rollout_gpus_, tp_, rollout_gpus_ % tp_));
  }
  const auto& pp = s_.pipeline;
  if (pp.mode == PipelineMode::kAsync && !pipelined_) {
    notes_.push_back("an async pipeline needs disaggregated placement: simulated as sync colocated");
  }
  async_ = pipelined_ && pp.mode == PipelineMode::kAsync;
  // Sync on disaggregated GPUs is the pipelined loop with staleness 0.
  staleness_ = async_ ? std::clamp(pp.max_staleness, 0.0, double(steps_)) : 0.0;
  partial_ = async_ && pp.partial_rollouts;
  lockstep_ = pp.dispatch == Dispatch::kLockstep;
  has_sandbox_ = s_.environment.sandbox.has_value();
  if (has_sandbox_) {
    sandbox_ = *s_.environment.sandbox;
    if (sandbox_.max_concurrent < 1) {
      return Fail(ErrorCode::kInvalidInput, "environment.sandbox.max_concurrent", "need at least one sandbox slot");
    }
    sandbox_free_ = sandbox_.max_concurrent;
  }

  auto mem = perf::PlanMemory(s_);
  if (!mem) return tl::unexpected(mem.error());
  kv_tokens_ = mem->kv_tokens_per_engine;
  total_blocks_ = static_cast<int64_t>(std::floor(kv_tokens_ / double(kBlockTokens)));
  if (total_blocks_ < 1) {
    return Fail(ErrorCode::kDoesNotFit, "memory",
                fmt::format("the KV budget holds {:.0f} tokens per engine: not one 16-token block", kv_tokens_));
  }
  watermark_blocks_ = static_cast<int64_t>(std::floor(kWatermarkFraction * double(total_blocks_)));

  ec_.model = &s_.model;
  ec_.gpu = &s_.hardware.gpu;
  ec_.eff = s_.hardware.gpu.efficiency;
  ec_.tp = tp_;
  ec_.weights = s_.precision.rollout;
  ec_.kv = s_.precision.kv_cache;
  ec_.dp_attention = s_.placement.dp_attention;
  if (s_.algorithm.lora) {
    ec_.lora_rank = s_.algorithm.lora->rank;
    ec_.lora_tenants = s_.algorithm.lora->tenants;
  }
  sync_parts_ = perf::WeightSync(s_);
  sync_s_ = sync_parts_.total_s;
  notes_.push_back(perf::DescribeWeightSync(s_, sync_parts_));
  overhead_s_ = s_.hardware.gpu.efficiency.step_overhead_s;
  offload_s_ = perf::OffloadTime(s_, *mem);
  refit_offload_s_ = perf::RefitOffloadTime(s_, *mem);
  seed_ = opt_.seed;
  hold_sandbox_ = has_sandbox_ && s_.environment.turns.mean() > 1.0 + 1e-9;
  rounds_mode_ = s_.algorithm.dynamic_sampling && !pipelined_ && sig_.rollouts_per_round >= 1;
  if (rounds_mode_) {
    g_ = static_cast<int>(std::llround(sig_.rollouts_per_round));
    g_magic_ = g_ > 1 ? UINT64_MAX / uint64_t(g_) + 1 : 0;
    trained_per_step_ = trained;
    DrawRounds();
    if (double(total_rounds_) * g_ > double(std::numeric_limits<int32_t>::max())) {
      return Fail(ErrorCode::kInvalidInput, "algorithm.steps",
                  fmt::format("{} steps x {:.2f} generation rounds x {} rollouts are too many to simulate; "
                              "simulate fewer steps",
                              steps_, double(total_rounds_) / steps_, g_));
    }
  } else if (s_.algorithm.dynamic_sampling && pipelined_) {
    notes_.push_back(fmt::format("dynamic sampling on disaggregated GPUs: the step's {:.0f} rollouts ({:.2f} rounds' "
                                 "worth) are simulated as one stream, not round by round",
                                 gen, sig_.gen_rounds_per_step));
  }

  engines_.resize(n_engines_);
  timers_.Reset(n_engines_);
  for (int e = 0; e < n_engines_; ++e) engines_[e].id = e;
  // A staleness past the run's length never binds: cap it there before it
  // sizes the batch list (1e9 would ask for 1e9 batches).
  int extra = async_ ? static_cast<int>(std::ceil(std::min(staleness_, double(steps_)))) + 1 : 0;
  batches_.resize(rounds_mode_ ? size_t(total_rounds_) : size_t(steps_ + extra));
  for (int b = 0; b < static_cast<int>(batches_.size()); ++b) batches_[b].index = b;
  max_start_ = int64_t(batches_.size()) * g_;
  traj_time_.reserve(size_t(std::min<int64_t>(max_start_, 4000000)));
  traj_tokens_.reserve(traj_time_.capacity());
  q_.Reserve(1024);
  // Model verifiers as engine work (sim/judge.h); failed trajectories are not judged.
  if (auto ok = judges_.Setup(s_, gen * (1.0 - s_.environment.failures.rate), pipelined_); !ok) return ok;
  if (!judges_.not_simulated().empty()) notes_.push_back(judges_.not_simulated());

  if (!opt_.trace_path.empty()) {
    if (auto ok = trace_.Open(opt_.trace_path); !ok) return ok;
    for (int e = 0; e < n_engines_; ++e) trace_.ThreadName(e + 1, fmt::format("engine {} (tp {})", e, tp_));
    trace_.ThreadName(n_engines_ + 1, "trainer");
    trace_.ThreadName(n_engines_ + 2, "sandbox pool");
  }
  return {};
}

// Dynamic sampling, as veRL's DAPO trainer loops (recipe/dapo/dapo_ray_trainer.py):
// a round generates g_ / G groups, each informative with probability q
// (signal::Summary); rounds go on until prompts_per_step informative groups are
// kept, or max_gen_batches rounds. The rounds of every step are drawn up front
// from their own stream, so they do not depend on the order of events.
void Simulator::DrawRounds() {
  const auto& alg = s_.algorithm;
  const int need = alg.prompts_per_step;
  const int per_round = std::max(1, static_cast<int>(std::llround(double(g_) / std::max(1, alg.group_size))));
  const double q = sig_.informative_group_probability;
  rounds_.assign(steps_, 1);
  if ((sig_.full_batch_impractical && alg.max_gen_batches <= 0) || !(q > 0)) {
    // The costing cap of signal (kMaxOversampling): a fixed number of rounds.
    const int r = std::max(1, static_cast<int>(std::llround(sig_.gen_rounds_per_step)));
    std::fill(rounds_.begin(), rounds_.end(), r);
  } else {
    std::mt19937_64 rng(SplitMix64(seed_ ^ 0xD1A9500000000000ULL));
    std::binomial_distribution<int> informative(per_round, std::min(1.0, q));
    for (int& r : rounds_) {
      int found = 0;
      r = 0;
      do {
        found += informative(rng);
        ++r;
      } while (found < need && (alg.max_gen_batches <= 0 || r < alg.max_gen_batches));
    }
  }
  total_rounds_ = 0;
  for (int r : rounds_) total_rounds_ += r;
}

// ---------------------------------------------------------------------------
// Trajectories

Batch& Simulator::MaterializeBatch(int b) {
  Batch& bt = batches_[b];
  if (bt.materialized) return bt;
  bt.materialized = true;
  if (!traj_pool_.empty()) {
    bt.trajs = std::move(traj_pool_.back());
    traj_pool_.pop_back();
    bt.turns = std::move(turn_pool_.back());
    turn_pool_.pop_back();
  }
  bt.trajs.assign(g_, Traj{});
  bt.turns.clear();
  // One random stream per batch, drawn in trajectory order when the batch is
  // created: what a trajectory draws does not depend on the order of events.
  rng_.seed(SplitMix64(seed_ ^ SplitMix64(0x5EED0000ULL + uint64_t(b))));
  const auto& env = s_.environment;
  int max_turns = 0;
  for (int i = 0; i < g_; ++i) {
    Traj& t = bt.trajs[i];
    t.batch = b;
    t.prompt = std::max<int64_t>(1, std::llround(env.prompt_tokens.Sample(rng_)));
    t.turns = static_cast<int>(std::max<long long>(1, std::llround(env.turns.Sample(rng_))));
    t.turn_off = static_cast<int>(bt.turns.size());
    int64_t ctx = t.prompt;  // the trajectory's whole context, summed as its turns are drawn
    for (int k = 0; k < t.turns; ++k) {
      Turn tu;
      tu.response = static_cast<int32_t>(std::max<long long>(1, std::llround(env.response_tokens.Sample(rng_))));
      // The tool call follows every turn but the last (turns - 1 calls).
      if (k + 1 < t.turns) {
        tu.tool_out = static_cast<int32_t>(std::max<long long>(0, std::llround(env.tool_output_tokens.Sample(rng_))));
        tu.tool_latency_s = std::max(0.0, env.tool_latency_s.Sample(rng_));
      }
      ctx += tu.response + tu.tool_out;
      bt.turns.push_back(tu);
    }
    t.verify_s = std::max(0.0, env.reward.verify_s.Sample(rng_));
    max_turns = std::max(max_turns, t.turns);
    // A context longer than one engine's whole KV cache can never be
    // scheduled (vLLM rejects a request past max_model_len): the run would
    // preempt and recompute it forever. Stop with the numbers instead.
    if (ctx > total_blocks_ * kBlockTokens && !too_long_) {
      too_long_ = Error(ErrorCode::kDoesNotFit, "memory",
                        fmt::format("a trajectory of rollout batch {} reaches {} tokens of context ({} turns), more "
                                    "than one engine's KV cache holds ({} tokens): it could never be scheduled; "
                                    "use a larger placement.rollout_tp or lower environment.*.max",
                                    b + 1, ctx, t.turns, total_blocks_ * kBlockTokens));
    }
  }
  bt.barrier_need.assign(max_turns, 0);
  bt.barrier_arrived.assign(max_turns, 0);
  if (lockstep_) {
    bt.barrier_held.resize(max_turns);
    for (auto& h : bt.barrier_held) h.clear();
    for (const Traj& t : bt.trajs)
      for (int k = 0; k + 1 < t.turns; ++k) ++bt.barrier_need[k];
  }
  return bt;
}

void Simulator::FreeBatchIfDone(int b) {
  Batch& bt = batches_[b];
  if (!bt.materialized || bt.finished < g_) return;
  traj_pool_.push_back(std::move(bt.trajs));
  turn_pool_.push_back(std::move(bt.turns));
  bt.trajs = {};
  bt.turns = {};
}

void Simulator::StartTrajectory(int32_t id, int e) {
  Traj& t = T(id);
  Batch& bt = batches_[t.batch];
  if (bt.created == 0) bt.t_first_start = now_;
  ++bt.created;
  t.engine = e;
  t.t_start = now_;
  t.ctx = 0;
  t.pf_ctx = 0;
  t.pf_left = t.prompt;
  t.resp_left = bt.turns[t.turn_off].response;
  t.state = TrajState::kWaiting;
  Engine& en = engines_[e];
  ++en.inflight;
  ++inflight_total_;
  if (hold_sandbox_) {
    // Its container starts first (or it queues for a free one); it decodes once it is up.
    ++en.out;
    t.startup_paid = true;
    RequestSandbox(id, sandbox_.startup_s, EventType::kSandboxReady);
    return;
  }
  en.waiting.push_back(id);
}

// After a turn is decoded: a tool call (all turns but the last) or the reward.
void Simulator::ToolOrReward(int32_t id) {
  Traj& t = T(id);
  Batch& bt = batches_[t.batch];
  Engine& en = engines_[t.engine];
  if (t.turn + 1 < t.turns) {
    const Turn& tu = bt.turns[t.turn_off + t.turn];
    ++en.out;
    if (has_sandbox_ && !hold_sandbox_) {
      RequestSandbox(id, tu.tool_latency_s, EventType::kToolDone);
    } else if (tu.tool_latency_s > 0) {
      t.state = TrajState::kTool;
      q_.Push(now_ + tu.tool_latency_s, EventType::kToolDone, id);
    } else {
      t.state = TrajState::kTool;
      ReturnFromTool(id);
    }
    return;
  }
  // Last turn decoded: the trajectory leaves generation.
  --en.inflight;
  --inflight_total_;
  ++bt.gen_done;
  bt.t_last_gen_end = std::max(bt.t_last_gen_end, now_);
  gen_tokens_ += double(t.gen);
  if (judges_.active()) {
    if (pipelined_) {
      if (++gen_done_total_ % g_ == 0) gen_done_t_.push_back(now_);
    } else if (bt.gen_done == g_) {
      StartJudgePhase();
    }
  }
  if (hold_sandbox_) {
    // Verified in the sandbox it holds, then released.
    if (t.verify_s > 0) {
      ++en.out;
      t.state = TrajState::kVerify;
      q_.Push(now_ + t.verify_s, EventType::kVerifyDone, id);
    } else {
      ReleaseSandbox();
      Rewarded(id);
    }
  } else if (has_sandbox_ && (t.verify_s > 0 || !t.startup_paid)) {
    ++en.out;
    RequestSandbox(id, t.verify_s, EventType::kVerifyDone);
  } else if (t.verify_s > 0) {
    ++en.out;
    t.state = TrajState::kVerify;
    q_.Push(now_ + t.verify_s, EventType::kVerifyDone, id);
  } else {
    Rewarded(id);
  }
  if (pipelined_ && update_pending_ && !partial_ && inflight_total_ == 0 && trainer_ == TrainerPhase::kWaitSync) {
    StartSync();
  }
}

void Simulator::RequestSandbox(int32_t id, double dur_s, EventType done) {
  Traj& t = T(id);
  // Sandbox start-up is paid once per trajectory, at its first use of a slot
  // (its first tool call, or its reward for a single-turn trajectory).
  if (!t.startup_paid) {
    dur_s += sandbox_.startup_s;
    t.startup_paid = true;
  }
  t.t_request = now_;
  if (sandbox_free_ > 0) {
    --sandbox_free_;
    SandboxInUse(+1);
    t.state = done == EventType::kVerifyDone ? TrajState::kVerify : TrajState::kTool;
    q_.Push(now_ + dur_s, done, id);
    if (Tracing()) trace_.Counter("sandbox slots busy", now_, sandbox_.max_concurrent - sandbox_free_);
  } else {
    t.state = TrajState::kSandboxQueue;
    sandbox_q_.emplace_back(id, dur_s, done);
    if (Tracing()) trace_.Counter("sandbox queue", now_, double(sandbox_q_.size()));
  }
}

// Sandboxes in use change only here: sandbox_busy_s_ integrates their number
// over time (sandbox-seconds held), and the peak is kept.
void Simulator::SandboxInUse(int delta) {
  sandbox_busy_s_ += double(sandbox_in_use_) * (now_ - sandbox_mark_t_);
  sandbox_mark_t_ = now_;
  sandbox_in_use_ += delta;
  sandbox_peak_ = std::max(sandbox_peak_, sandbox_in_use_);
}

void Simulator::ReleaseSandbox() {
  if (sandbox_q_.empty()) {
    ++sandbox_free_;
    SandboxInUse(-1);
    if (Tracing()) trace_.Counter("sandbox slots busy", now_, sandbox_.max_concurrent - sandbox_free_);
    return;
  }
  auto [id, dur_s, done] = sandbox_q_.front();
  sandbox_q_.pop_front();
  Traj& t = T(id);
  sandbox_wait_s_ += now_ - t.t_request;
  t.state = done == EventType::kVerifyDone ? TrajState::kVerify : TrajState::kTool;
  q_.Push(now_ + dur_s, done, id);
  if (Tracing()) trace_.Counter("sandbox queue", now_, double(sandbox_q_.size()));
}

void Simulator::ReturnFromTool(int32_t id) {
  Traj& t = T(id);
  Batch& bt = batches_[t.batch];
  if (lockstep_) {
    // Every turn waits for the slowest tool call of its batch.
    int k = t.turn;
    t.state = TrajState::kBarrier;
    bt.barrier_held[k].push_back(id);
    if (++bt.barrier_arrived[k] < bt.barrier_need[k]) return;
    scratch_.swap(bt.barrier_held[k]);
  } else {
    scratch_.assign(1, id);
  }
  std::vector<int32_t> released;
  released.swap(scratch_);
  for (int32_t rid : released) {
    Traj& r = T(rid);
    const Turn& tu = bt.turns[r.turn_off + r.turn];
    r.tool_tokens += tu.tool_out;
    ++r.turn;
    r.resp_left = bt.turns[r.turn_off + r.turn].response;
    r.pf_ctx = r.ctx;
    r.pf_left = tu.tool_out;
    r.state = TrajState::kWaiting;
    Engine& en = engines_[r.engine];
    --en.out;
    en.waiting.push_back(rid);
    Kick(r.engine);
  }
  released.clear();
  scratch_.swap(released);
}

void Simulator::TrajDone(int32_t id) {
  Traj& t = T(id);
  Batch& bt = batches_[t.batch];
  t.state = TrajState::kDone;
  t.t_end = now_;
  bt.t_last_end = std::max(bt.t_last_end, now_);
  traj_time_.push_back(t.t_end - t.t_start);
  traj_tokens_.push_back(double(t.gen));
  double trained = double(t.prompt + t.gen + t.tool_tokens);
  ++bt.finished;
  if (pipelined_) {
    // The trainer takes trajectories in the order they finish.
    cum_tokens_ += trained;
    ++finished_total_;
    if (finished_total_ % g_ == 0) {
      finished_tokens_cum_.push_back(cum_tokens_);
    }
    FreeBatchIfDone(t.batch);
    if (trainer_ == TrainerPhase::kWaitBatch) TrainerTry();
  } else {
    cum_tokens_ += trained;
    if (bt.finished == g_) sync_done_flag_ = true;
  }
}

// ---------------------------------------------------------------------------
// Judges (sim/judge.h; docs/model.md, "Judges in the simulator")

void Simulator::Rewarded(int32_t id) {
  if (judges_.active()) {
    // environment.failures: the failed share is not judged (as the closed form).
    judge_carry_ += 1.0 - s_.environment.failures.rate;
    if (judge_carry_ >= 1.0 - 1e-9) {
      judge_carry_ -= 1.0;
      Traj& t = T(id);
      const int calls = judges_.Submit(now_, id, double(t.prompt + t.gen + t.tool_tokens), q_);
      if (calls > 0) {
        t.judge_left = calls;
        t.state = TrajState::kJudge;
        return;
      }
    }
  }
  TrajDone(id);
}

void Simulator::JudgeEvent(const Event& ev) {
  judge_done_.clear();
  judges_.OnEvent(now_, ev, q_, judge_done_);
  for (int32_t id : judge_done_) {
    Traj& t = T(id);
    if (--t.judge_left == 0) TrajDone(id);
  }
}

// Sync: the round's generation is over. Every engine waits for the judges
// from here; judges on the policy's GPUs start (veRL's RayPPOTrainer.fit
// scores the whole generated batch between generation and the log-prob pass).
void Simulator::StartJudgePhase() {
  judge_wait_ = true;
  judge_phase_t0_ = now_;
  ReclassifyAll();
  judge_idle0_ = idle_judge_;
  judges_.OpenShared(now_, q_);
}

// Sync: the round's rewards are in (after every engine's idle is booked).
void Simulator::EndJudgePhase() {
  if (!judge_wait_) return;
  judge_wait_ = false;
  if (!judges_.any_shared()) return;
  judges_.CloseShared();
  // A shared judge worked on the GPUs whose engines were idle meanwhile: its
  // busy GPU-seconds are work (other), the rest of the phase idle.
  const double moved = std::min(judges_.TakeSharedGpuS(), idle_judge_ - judge_idle0_);
  idle_judge_ -= moved;
  judge_shared_gpu_s_ += moved;
  judge_phase_s_ += now_ - judge_phase_t0_;
}

// ---------------------------------------------------------------------------
// Engines: KV accounting

// Blocks held by the running set after `iter` iterations:
//   sum_i ceil((key_i + iter) / 16) = [sum_i (key_i + iter + 15) - sum_i ((key_i + iter + 15) mod 16)] / 16,
// the remainders taken from a histogram of key_i mod 16 (O(16), not O(batch)).
int64_t Simulator::RunningBlocks(const Engine& en, int64_t iter) const {
  if (en.n_running == 0) return 0;
  int64_t total = en.sum_key + en.n_running * (iter + kBlockTokens - 1);
  int64_t rem = 0;
  int shift = Mod16(iter + kBlockTokens - 1);
  for (int p = 0; p < kBlockTokens; ++p) rem += en.phase_cnt[p] * ((p + shift) & (kBlockTokens - 1));
  return (total - rem) / kBlockTokens;
}

// sum_i ceil(x_i / 16) is at least sum_i x_i / 16 and less than that + n: most
// checks are decided by these bounds without the exact sum.
bool Simulator::RunningFits(const Engine& en, int64_t iter, int64_t room) const {
  int64_t lower = (en.sum_key + en.n_running * iter) / kBlockTokens;
  if (lower + en.n_running <= room) return true;
  if (lower > room) return false;
  return RunningBlocks(en, iter) <= room;
}


bool Simulator::EvictOneParked(Engine& en) {
  while (!en.parked_lru.empty()) {
    auto [id, epoch] = en.parked_lru.front();
    en.parked_lru.pop_front();
    if (!Alive(id)) continue;
    Traj& t = T(id);
    if (!t.parked || t.epoch != epoch) continue;
    // Evicted from the prefix cache: on its return it prefills its whole context.
    t.parked = false;
    en.static_blocks -= t.blocks;
    t.blocks = 0;
    ++t.epoch;
    return true;
  }
  return false;
}

bool Simulator::MakeRoom(Engine& en, int64_t need) {
  while (!RunningFits(en, en.iter, total_blocks_ - en.static_blocks - need)) {
    if (!EvictOneParked(en)) return false;
  }
  return true;
}

void Simulator::JoinRunning(Engine& en, int32_t id) {
  Traj& t = T(id);
  t.state = TrajState::kRunning;
  // Its prefill blocks now count in the running set.
  en.static_blocks -= t.blocks;
  t.blocks = 0;
  t.key = t.ctx - en.iter;
  t.finish_iter = en.iter + t.resp_left;
  ++en.n_running;
  en.sum_key += t.key;
  ++en.phase_cnt[Mod16(t.key)];
  t.prev = en.tail;
  t.next = kNone;
  if (en.tail != kNone) T(en.tail).next = id; else en.head = id;
  en.tail = id;
  en.finish_heap.push_back(FinishEntry{t.finish_iter, id, t.epoch});
  std::push_heap(en.finish_heap.begin(), en.finish_heap.end(), std::greater<>());
  en.peak_batch = std::max(en.peak_batch, en.n_running);
}

void Simulator::LeaveRunning(Engine& en, int32_t id) {
  Traj& t = T(id);
  int64_t ctx = t.key + en.iter;
  int64_t decoded = ctx - t.ctx;
  t.gen += decoded;
  t.resp_left -= decoded;
  t.ctx = ctx;
  --en.n_running;
  en.sum_key -= t.key;
  --en.phase_cnt[Mod16(t.key)];
  if (t.prev != kNone) T(t.prev).next = t.next; else en.head = t.next;
  if (t.next != kNone) T(t.next).prev = t.prev; else en.tail = t.prev;
  t.prev = t.next = kNone;
  ++t.epoch;  // its finish-heap entry is now stale
}

// Recompute preemption (vLLM's default): the sequence loses its KV and goes to
// the front of the queue; on resume its whole context is prefilled again.
void Simulator::Preempt(Engine& en, int32_t id) {
  LeaveRunning(en, id);
  Traj& t = T(id);
  t.pf_ctx = 0;
  t.pf_left = t.ctx;
  t.state = TrajState::kWaiting;
  en.waiting.push_front(id);
  preemptions_ += 1;
}

void Simulator::Admit(Engine& en) {
  while (!en.waiting.empty()) {
    int32_t id = en.waiting.front();
    Traj& t = T(id);
    int64_t target = t.pf_ctx + t.pf_left;
    int64_t cached = 0;
    if (t.parked) cached = t.blocks;  // its context is still in the prefix cache
    int64_t need = Blocks(target) - cached;
    bool alone = en.n_running == 0 && en.prefill_q.empty();
    if (t.parked) {
      // Pin its cache so eviction below cannot take it.
      t.parked = false;
      ++t.epoch;
    }
    if (!MakeRoom(en, need + watermark_blocks_) && !(alone && MakeRoom(en, need))) {
      if (cached > 0) {
        t.parked = true;  // unpin; stays at the back of the LRU order
        en.parked_lru.emplace_back(id, t.epoch);
      }
      if (!alone) break;
      // A context larger than the whole budget: admit it anyway (overcommit)
      // rather than deadlock; PlanMemory normally rules this out.
    }
    if (cached == 0 && t.pf_ctx > 0 && t.blocks == 0) {
      // Its cache was evicted while it was away: recompute the whole context.
      t.pf_left += t.pf_ctx;
      t.pf_ctx = 0;
    }
    en.waiting.pop_front();
    t.blocks = Blocks(target);
    en.static_blocks += t.blocks - cached;
    t.state = TrajState::kPrefill;
    en.prefill_q.push_back(id);
  }
}

// ---------------------------------------------------------------------------
// Engines: scheduling

void Simulator::Kick(int e) {
  Engine& en = engines_[e];
  if (en.in_handler || en.paused) return;
  if (en.seg == SegKind::kNone) {
    Plan(e);
  } else {
    TruncateSegment(e);
  }
}

// New work arrived while a multi-iteration decode segment runs: end it at the
// boundary of the iteration in progress so the scheduler can admit the work.
void Simulator::TruncateSegment(int e) {
  Engine& en = engines_[e];
  if (en.seg != SegKind::kDecode || en.seg_n <= 1) return;
  double elapsed = now_ - en.seg_t0;
  const perf::DecodeArms& arms = Arms(en.seg_b);
  const double b = double(en.seg_b), c0 = double(en.seg_ctx);
  auto time_of = [&](int64_t n) {
    return n <= 0 ? 0.0 : perf::DecodeIterations(arms, b, c0, double(n)).time_s;
  };
  // Iterations only get longer as the context grows, so elapsed / first and
  // elapsed / last bracket the count; a short search finishes it.
  double first = time_of(1);
  double last = perf::DecodeIterations(arms, b, double(en.seg_ctx + en.seg_b * (en.seg_n - 1)), 1.0).time_s;
  int64_t hi = en.seg_n - 1, lo = 0;
  if (first > 0) hi = std::min(hi, static_cast<int64_t>(elapsed / first));
  if (last > 0) lo = std::min(hi, static_cast<int64_t>(elapsed / last));
  if (lo > 0 && time_of(lo) > elapsed) lo = 0;
  // The answer is where time_of(n) <= elapsed turns false (time_of grows by
  // one iteration, milliseconds, per step: monotone far above rounding), so
  // any probe sequence finds the same n as plain bisection. Probe first where
  // the iteration times, linear from `first` to `last` (one roofline arm),
  // sum to `elapsed`: n A + D n (n - 1) / 2 = elapsed. It is usually exact,
  // and two probes settle it.
  if (lo < hi && first > 0) {
    double d = en.seg_n > 1 ? (last - first) / double(en.seg_n - 1) : 0.0;
    double est;
    if (d > 0) {
      double p = first - 0.5 * d;
      est = (std::sqrt(p * p + 2.0 * d * elapsed) - p) / d;
    } else {
      est = elapsed / first;
    }
    int64_t g = std::clamp(static_cast<int64_t>(est), lo, hi);
    if (time_of(g) <= elapsed) {
      lo = g;
      if (g < hi && time_of(g + 1) > elapsed) hi = g;
    } else {
      hi = g - 1;
    }
  }
  while (lo < hi) {  // largest n in [lo, hi] with time_of(n) <= elapsed
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (time_of(mid) <= elapsed) lo = mid; else hi = mid - 1;
  }
  int64_t n = lo + 1;
  if (n >= en.seg_n) return;
  perf::Work w = perf::DecodeIterations(arms, b, c0, double(n));
  en.seg_n = n;
  en.seg_t1 = en.seg_t0 + w.time_s;
  en.seg_flops = w.flops;
  timers_.Set(e, en.seg_t1);
}

void Simulator::Plan(int e) {
  Engine& en = engines_[e];
  bool preempted = false;
  // Room for one more decode iteration of the running set: evict cached
  // contexts first, then preempt the most recently admitted sequence.
  while (en.n_running > 0 && !RunningFits(en, en.iter + 1, total_blocks_ - en.static_blocks)) {
    if (EvictOneParked(en)) continue;
    if (en.n_running == 1 && en.prefill_q.empty()) break;  // overcommit one sequence rather than stall
    Preempt(en, en.tail);
    preempted = true;
  }
  // vLLM does not admit new prompts in an iteration that preempted.
  if (!preempted) Admit(en);

  double ctx = double(en.sum_key + en.n_running * en.iter);
  if (!en.prefill_q.empty()) {
    // One mixed iteration: a prefill chunk of up to kChunkTokens, plus one
    // decode step for the running set.
    double t = 0, flops = 0;
    int64_t budget = kChunkTokens;
    en.prefill_done.clear();
    while (budget > 0 && !en.prefill_q.empty()) {
      int32_t id = en.prefill_q.front();
      Traj& tr = T(id);
      int64_t piece = std::min(budget, tr.pf_left);
      if (piece > 0) {
        perf::Work w = perf::Prefill(ec_, double(piece), double(tr.pf_ctx));
        t += w.time_s;
        flops += w.flops;
        prefill_tokens_ += double(piece);
      }
      tr.pf_ctx += piece;
      tr.pf_left -= piece;
      budget -= piece;
      if (tr.pf_left == 0) {
        tr.ctx = tr.pf_ctx;
        en.prefill_q.pop_front();
        en.prefill_done.push_back(id);
      }
    }
    if (en.n_running > 0) {
      perf::Work w = Decode(en.n_running, ctx, 1.0);
      t += w.time_s;
      flops += w.flops;
    }
    en.seg = SegKind::kMixed;
    en.seg_n = en.n_running > 0 ? 1 : 0;
    en.seg_t0 = now_;
    en.seg_t1 = now_ + t;
    en.seg_b = en.n_running;
    en.seg_ctx = static_cast<int64_t>(ctx);
    en.seg_flops = flops;
  } else if (en.n_running > 0) {
    // Pure decode until the first sequence finishes its turn or the KV cache
    // runs out of blocks, whichever is first.
    while (!en.finish_heap.empty()) {
      const FinishEntry& f = en.finish_heap.front();
      if (Alive(f.traj) && T(f.traj).epoch == f.epoch && T(f.traj).state == TrajState::kRunning) break;
      std::pop_heap(en.finish_heap.begin(), en.finish_heap.end(), std::greater<>());
      en.finish_heap.pop_back();
    }
    int64_t n = std::max<int64_t>(1, en.finish_heap.front().iter - en.iter);
    int64_t room = total_blocks_ - en.static_blocks;
    if (!RunningFits(en, en.iter + n, room)) {
      int64_t lo = 1, hi = n;  // largest n that fits; n = 1 fits or was overcommitted above
      while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (RunningFits(en, en.iter + mid, room)) lo = mid; else hi = mid - 1;
      }
      n = lo;
    }
    perf::Work w = Decode(en.n_running, ctx, double(n));
    en.seg = SegKind::kDecode;
    en.seg_n = n;
    en.seg_t0 = now_;
    en.seg_t1 = now_ + w.time_s;
    en.seg_b = en.n_running;
    en.seg_ctx = static_cast<int64_t>(ctx);
    en.seg_flops = w.flops;
  } else {
    en.seg = SegKind::kNone;
    OpenIdle(e);
    // No segment: no timer (it may still hold the end of the segment whose
    // handler called us, see NextEvent).
    if (timers_.time(e) != EngineTimers::kNever) timers_.Set(e, EngineTimers::kNever);
    return;
  }
  CloseIdle(e);
  timers_.Set(e, en.seg_t1);
}

void Simulator::EndSegment(int e) {
  Engine& en = engines_[e];
  double dur = en.seg_t1 - en.seg_t0;
  // Blocks in use (running sequences at the segment's start, each with half a
  // block of fragmentation on average, plus prefill and cached blocks).
  double blocks = double(en.sum_key + en.n_running * en.iter) / kBlockTokens + 0.5 * en.n_running +
                  double(en.static_blocks);
  en.busy_s += dur;
  en.batch_s += double(en.seg_b) * dur;
  en.blocks_s += double(blocks) * dur;
  rollout_flops_ += en.seg_flops * tp_;
  // Length tail, under-fill part: the engine decodes with nothing left to
  // admit and none of its trajectories out on a tool, below its peak batch.
  if (en.waiting.empty() && en.out == 0 && en.peak_batch > 0 && en.seg_b < en.peak_batch) {
    underfill_ += (1.0 - double(en.seg_b) / double(en.peak_batch)) * tp_ * dur;
  }
  if (Tracing()) {
    trace_.Span(e + 1, en.seg == SegKind::kMixed ? "prefill+decode" : "decode", en.seg_t0, en.seg_t1,
                fmt::format("\"batch\":{},\"iterations\":{},\"kv_blocks\":{:.0f}", en.seg_b, en.seg_n, blocks));
  }
  en.iter += en.seg_n;
  en.seg = SegKind::kNone;
  en.in_handler = true;
  for (int32_t id : en.prefill_done) JoinRunning(en, id);
  en.prefill_done.clear();
  // Sequences whose turn is decoded.
  scratch_.clear();
  while (!en.finish_heap.empty() && en.finish_heap.front().iter <= en.iter) {
    FinishEntry f = en.finish_heap.front();
    std::pop_heap(en.finish_heap.begin(), en.finish_heap.end(), std::greater<>());
    en.finish_heap.pop_back();
    if (!Alive(f.traj)) continue;
    Traj& t = T(f.traj);
    if (t.epoch != f.epoch || t.state != TrajState::kRunning) continue;
    scratch_.push_back(f.traj);
  }
  std::vector<int32_t> done;
  done.swap(scratch_);
  for (int32_t id : done) {
    LeaveRunning(en, id);
    Traj& t = T(id);
    if (t.turn + 1 < t.turns) {
      // Out on a tool call: its KV stays in the prefix cache, evictable (LRU).
      t.parked = true;
      t.blocks = Blocks(t.ctx);
      en.static_blocks += t.blocks;
      en.parked_lru.emplace_back(id, t.epoch);
    }
    ToolOrReward(id);
  }
  done.clear();
  scratch_.swap(done);
  en.in_handler = false;
  if (en.paused) {
    en.pause_since = now_;
    en.resume_pending = true;
    timers_.Set(e, now_ + sync_s_);
    return;
  }
  Plan(e);
}

// ---------------------------------------------------------------------------
// Idle accounting

IdleCause Simulator::Classify(const Engine& en) const {
  if (en.paused) return IdleCause::kSync;
  if (judge_wait_) return IdleCause::kJudge;
  if (en.out > 0) return IdleCause::kTools;
  if (!pipelined_) return IdleCause::kTail;
  if (update_pending_ && !partial_) return IdleCause::kSync;
  if (trainer_ == TrainerPhase::kDone) return IdleCause::kNone;
  if (started_ >= max_start_) return IdleCause::kTail;
  return CanStart() ? IdleCause::kTail : IdleCause::kTrainer;
}

void Simulator::OpenIdle(int e) {
  Engine& en = engines_[e];
  if (en.idle) return;
  en.idle = true;
  en.idle_since = now_;
  en.idle_cause = Classify(en);
}

void Simulator::CloseIdle(int e) {
  Engine& en = engines_[e];
  if (!en.idle) return;
  en.idle = false;
  double gs = (now_ - en.idle_since) * tp_;
  switch (en.idle_cause) {
    case IdleCause::kTail: idle_tail_ += gs; break;
    case IdleCause::kTrainer: idle_trainer_ += gs; break;
    case IdleCause::kTools: idle_tools_ += gs; break;
    case IdleCause::kSync: idle_sync_ += gs; break;
    case IdleCause::kJudge: idle_judge_ += gs; break;
    case IdleCause::kNone: break;
  }
  if (Tracing() && now_ > en.idle_since) {
    static const char* kNames[] = {"idle", "idle: length tail", "idle: waiting for trainer", "idle: tools",
                                   "idle: weight sync", "idle: waiting for the judge"};
    trace_.Span(e + 1, kNames[int(en.idle_cause)], en.idle_since, now_);
  }
}

void Simulator::Reclassify(int e) {
  Engine& en = engines_[e];
  if (!en.idle || Classify(en) == en.idle_cause) return;
  CloseIdle(e);
  OpenIdle(e);
}

void Simulator::ReclassifyAll() {
  for (int e = 0; e < n_engines_; ++e) Reclassify(e);
}

// ---------------------------------------------------------------------------
// Weight sync on the rollout side (pipelined)

void Simulator::PauseEngines() {
  for (int e = 0; e < n_engines_; ++e) {
    Engine& en = engines_[e];
    en.paused = true;
    en.recompute_on_resume = partial_;
    if (en.seg != SegKind::kNone) {
      TruncateSegment(e);  // pause at the end of the iteration in progress
    } else if (!en.in_handler) {  // (in its handler, EndSegment starts the pause)
      CloseIdle(e);
      en.pause_since = now_;
      en.resume_pending = true;
      timers_.Set(e, now_ + sync_s_);
    }
  }
}

void Simulator::ResumeEngine(int e) {
  Engine& en = engines_[e];
  en.pause_s += now_ - en.pause_since;
  if (Tracing()) trace_.Span(e + 1, "weight sync", en.pause_since, now_);
  en.paused = false;
  en.peak_batch = 0;
  if (en.recompute_on_resume) {
    // Partial rollouts continue under the new policy: their KV was computed
    // with the old weights and is recomputed (AReaL's interruptible generation).
    double kept = preemptions_;
    while (en.tail != kNone) Preempt(en, en.tail);
    preemptions_ = kept;  // recomputes after a sync are not KV preemptions
    for (int32_t id : en.prefill_q) {
      Traj& t = T(id);
      t.pf_left += t.pf_ctx;
      t.pf_ctx = 0;
    }
    while (EvictOneParked(en)) {
    }
  }
  en.recompute_on_resume = false;
  Plan(e);
}

// ---------------------------------------------------------------------------
// Pipelined: starting trajectories under bounded staleness, and the trainer

// Trajectory j (0-based, in start order) may start once the rollout policy is
// at least floor(j / G) - k versions old: started < (version + k + 1) * G.
bool Simulator::CanStart() const {
  if (started_ >= max_start_) return false;
  if (update_pending_ && !partial_) return false;  // drain for the weight update
  double allowed = std::floor((double(version_) + staleness_ + 1.0) * double(g_) + 1e-9);
  return double(started_) < allowed;
}

void Simulator::TryStart() {
  bool any = false;
  while (CanStart()) {
    int b = static_cast<int>(started_ / g_);
    int i = static_cast<int>(started_ % g_);
    MaterializeBatch(b);
    // Least-loaded engine (fewest trajectories in flight), lowest index on ties.
    int best = 0;
    for (int e = 1; e < n_engines_; ++e)
      if (engines_[e].inflight < engines_[best].inflight) best = e;
    StartTrajectory(b * g_ + i, best);
    ++started_;
    any = true;
  }
  if (!any) return;
  for (int e = 0; e < n_engines_; ++e) {
    if (!engines_[e].waiting.empty()) Kick(e);
  }
}

Simulator::Phases Simulator::TrainOn(double tokens, double trajs) {
  const double mean_len = trajs > 0 ? tokens / trajs : 0;
  Phases p;
  double lp_f = 0, ref_f = 0;
  if (s_.algorithm.recompute_logprobs) {
    perf::Work w = perf::ForwardPass(s_, tokens, mean_len, train_gpus_);
    p.lp = w.time_s;
    lp_f = w.flops * train_gpus_;
  }
  if (s_.algorithm.reference_model) {
    perf::Work w = perf::ForwardPass(s_, tokens, mean_len, train_gpus_);
    p.ref = w.time_s;
    ref_f = w.flops * train_gpus_;
  }
  perf::Work w = perf::TrainStep(s_, tokens, mean_len, train_gpus_);
  p.tr = w.time_s;
  double tr_f = w.flops * train_gpus_;
  if (s_.algorithm.critic) {
    // PPO's critic, the policy's size (as the analytic path): a value forward
    // pass and a critic update.
    perf::Work v = perf::ForwardPass(s_, tokens, mean_len, train_gpus_);
    p.tr += w.time_s + v.time_s;
    tr_f += (w.flops + v.flops) * train_gpus_;
  }
  trained_tokens_ += tokens;
  sum_lp_s_ += p.lp;
  sum_ref_s_ += p.ref;
  sum_train_s_ += p.tr;
  train_flops_ += tr_f;
  other_flops_ += lp_f + ref_f;
  return p;
}

void Simulator::TrainerTry() {
  if (trainer_ != TrainerPhase::kWaitBatch) return;
  if (finished_total_ < int64_t(trainer_step_ + 1) * g_) return;
  double wait = now_ - trainer_since_;
  // With judges, what the trainer waits after the batch's generation is done
  // is waiting for their rewards.
  double reward_wait = 0;
  if (judges_.active() && size_t(trainer_step_) < gen_done_t_.size())
    reward_wait = std::clamp(now_ - std::max(trainer_since_, gen_done_t_[trainer_step_]), 0.0, wait);
  sum_rollout_s_ += wait - reward_wait;
  sum_reward_s_ += reward_wait;
  idle_wait_rollout_ += wait * train_gpus_;
  if (Tracing()) trace_.Span(n_engines_ + 1, "wait for rollouts", trainer_since_, now_);
  double tok_all = finished_tokens_cum_[trainer_step_] - (trainer_step_ > 0 ? finished_tokens_cum_[trainer_step_ - 1] : 0);
  double tokens = tok_all * trained_ratio_;
  const auto [lp, ref, tr] = TrainOn(tokens, g_ * trained_ratio_);
  gpu_s_train_ += tr * train_gpus_;
  gpu_s_other_ += (lp + ref) * train_gpus_;
  if (Tracing()) {
    trace_.Span(n_engines_ + 1, "log-prob", now_, now_ + lp);
    trace_.Span(n_engines_ + 1, "reference", now_ + lp, now_ + lp + ref);
    trace_.Span(n_engines_ + 1, "train", now_ + lp + ref, now_ + lp + ref + tr,
                fmt::format("\"tokens\":{:.0f}", tokens));
  }
  sum_offload_s_ += offload_s_;
  gpu_s_other_ += offload_s_ * train_gpus_;
  trainer_ = TrainerPhase::kBusy;
  trainer_since_ = now_;
  q_.Push(now_ + lp + ref + tr + offload_s_, EventType::kTrainerPhaseEnd, 0);
}

void Simulator::StartSync() {
  if (trainer_ == TrainerPhase::kWaitSync) {
    double wait = now_ - trainer_since_;
    sum_sync_wait_s_ += wait;
    idle_sync_ += wait * train_gpus_;
    if (Tracing()) trace_.Span(n_engines_ + 1, "wait for rollout drain", trainer_since_, now_);
  }
  trainer_ = TrainerPhase::kSync;
  trainer_since_ = now_;
  sum_sync_s_ += sync_s_;
  gpu_s_other_ += sync_s_ * train_gpus_;
  PauseEngines();
  q_.Push(now_ + sync_s_, EventType::kSyncEnd, 0);
}

void Simulator::StepDone() {
  ++trainer_step_;
  trace_step_ = trainer_step_;
  if (trainer_step_ >= steps_) {
    trainer_ = TrainerPhase::kDone;
    end_time_ = now_;
    return;
  }
  trainer_ = TrainerPhase::kWaitBatch;
  trainer_since_ = now_;
  TrainerTry();
}

bool Simulator::NextEvent() {
  double te = timers_.top_time();
  if (te < EngineTimers::kNever && (q_.empty() || te <= q_.top_time())) {
    int e = timers_.top();
    now_ = te;
    ++events_;
    // The engine's timer is not cleared here: its handler always ends by
    // setting it (Plan: the next segment's end, or kNever when it goes idle;
    // EndSegment: the pause's end), so one tree update instead of two. Only
    // NextEvent reads the tree, after the handler.
    Engine& en = engines_[e];
    if (en.resume_pending) {
      en.resume_pending = false;
      ResumeEngine(e);
    } else {
      EndSegment(e);
    }
    return true;
  }
  if (q_.empty()) return false;
  Event ev = q_.Pop();
  now_ = ev.t;
  ++events_;
  (void)Dispatch(ev);
  return true;
}

Result<void> Simulator::Dispatch(const Event& ev) {
  switch (ev.type) {
    case EventType::kEngineSegmentEnd:
    case EventType::kEngineResume:
      break;  // engine events live in timers_
    case EventType::kToolDone:
      if (has_sandbox_ && !hold_sandbox_) ReleaseSandbox();
      ReturnFromTool(ev.a);
      break;
    case EventType::kSandboxReady: {
      Traj& t = T(ev.a);
      Engine& en = engines_[t.engine];
      --en.out;
      t.state = TrajState::kWaiting;
      en.waiting.push_back(ev.a);
      Kick(t.engine);
      break;
    }
    case EventType::kVerifyDone: {
      if (has_sandbox_) ReleaseSandbox();
      Traj& t = T(ev.a);
      Engine& en = engines_[t.engine];
      --en.out;
      int e = t.engine;
      Rewarded(ev.a);
      Reclassify(e);
      break;
    }
    case EventType::kTrainerPhaseEnd:
      update_pending_ = true;
      if (partial_ || inflight_total_ == 0) {
        StartSync();
      } else {
        trainer_ = TrainerPhase::kWaitSync;
        trainer_since_ = now_;
        ReclassifyAll();
      }
      break;
    case EventType::kSyncEnd:
      ++version_;
      update_pending_ = false;
      if (Tracing()) trace_.Span(n_engines_ + 1, "weight sync", trainer_since_, now_);
      trainer_ = TrainerPhase::kOverhead;
      trainer_since_ = now_;
      sum_overhead_s_ += overhead_s_;
      gpu_s_other_ += overhead_s_ * train_gpus_;
      if (overhead_s_ > 0) {
        q_.Push(now_ + overhead_s_, EventType::kOverheadEnd, 0);
      } else {
        StepDone();
      }
      TryStart();
      ReclassifyAll();
      break;
    case EventType::kOverheadEnd:
      if (Tracing()) trace_.Span(n_engines_ + 1, "overhead", trainer_since_, now_);
      StepDone();
      break;
    case EventType::kJudgeOpen:
    case EventType::kJudgeSegmentEnd:
      JudgeEvent(ev);
      break;
  }
  return {};
}

// ---------------------------------------------------------------------------
// Drivers

Result<void> Simulator::RunPipelined() {
  trainer_ = TrainerPhase::kWaitBatch;
  trainer_since_ = 0;
  for (int e = 0; e < n_engines_; ++e) OpenIdle(e);
  TryStart();
  while (trainer_ != TrainerPhase::kDone) {
    if (too_long_) return Fail(*too_long_);
    if (!NextEvent()) {
      return Fail(ErrorCode::kInternal, "simulate",
                  fmt::format("the pipelined simulation stalled at t = {:.3f} s, step {}", now_, trainer_step_));
    }
  }
  // Close the books at the end of the last step.
  for (int e = 0; e < n_engines_; ++e) {
    Engine& en = engines_[e];
    if (en.seg != SegKind::kNone) {
      double d = std::min(now_, en.seg_t1) - en.seg_t0;
      en.busy_s += d;
      en.batch_s += double(en.seg_b) * d;
    }
    if (en.paused && en.resume_pending) {  // (a paused engine still in its segment has not stopped yet)
      en.pause_s += now_ - en.pause_since;
    }
    CloseIdle(e);
  }
  return {};
}

Result<void> Simulator::RunSyncColocated() {
  int64_t batch = 0;  // the next generation round's batch
  for (int step = 0; step < steps_; ++step) {
    trace_step_ = step;
    const double idle0 = IdleSum();
    cum_tokens_ = 0;
    // Without dynamic sampling one round; with it, rounds_[step] rounds, each
    // drained and rewarded before the next starts (veRL's DAPO loop).
    const int rounds = rounds_mode_ ? rounds_[step] : 1;
    double rollout = 0, reward = 0;
    for (int round = 0; round < rounds; ++round, ++batch) {
      const int b = static_cast<int>(batch);
      const double r0 = now_;
      MaterializeBatch(b);
      sync_done_flag_ = false;
      for (int i = 0; i < g_; ++i) StartTrajectory(b * g_ + i, i % n_engines_);
      for (int e = 0; e < n_engines_; ++e) {
        Engine& en = engines_[e];
        en.peak_batch = 0;
        en.finish_heap.clear();  // only stale entries are left from the last round
        en.parked_lru.clear();
        Plan(e);
      }
      while (!sync_done_flag_) {
        if (too_long_) return Fail(*too_long_);
        if (!NextEvent()) {
          return Fail(ErrorCode::kInternal, "simulate",
                      fmt::format("the rollout of step {} (round {}) stalled at t = {:.3f} s", step, round + 1, now_));
        }
      }
      for (int e = 0; e < n_engines_; ++e) CloseIdle(e);
      EndJudgePhase();
      double gen_end = batches_[b].t_last_gen_end;
      rollout += gen_end - r0;
      reward += now_ - gen_end;
      if (Tracing()) {
        const std::string name = rounds > 1 ? fmt::format("rollout (round {})", round + 1) : std::string("rollout");
        trace_.Span(n_engines_ + 1, name.c_str(), r0, gen_end);
        trace_.Span(n_engines_ + 1, "rewards", gen_end, now_);
      }
      FreeBatchIfDone(b);
    }
    {
      // After each round's last generation every engine is idle until the
      // rewards are in; the rest of the step's engine idle is rollout's.
      double idle = IdleSum() - idle0;
      double in_reward = std::min(idle, reward * n_engines_ * tp_);
      idle_in_reward_ += in_reward;
      idle_in_rollout_ += idle - in_reward;
    }
    // The trainer takes prompts_per_step groups of what was generated (veRL: batch[:traj_bsz]).
    // (In rounds, g_ is one round's rollouts: the step's generated are rounds * g_.)
    double ratio = rounds_mode_ ? std::min(1.0, trained_per_step_ / (double(rounds) * g_)) : trained_ratio_;
    double tokens = cum_tokens_ * ratio;
    const auto [lp, ref, tr] = TrainOn(tokens, double(rounds) * g_ * ratio);
    sum_rollout_s_ += rollout;
    sum_reward_s_ += reward;
    sum_rollout_busy_s_ += rollout;
    sum_sync_s_ += sync_s_;
    sum_overhead_s_ += overhead_s_;
    sum_offload_s_ += offload_s_;
    double t = now_;
    if (Tracing()) {
      int tid = n_engines_ + 1;
      trace_.Span(tid, "log-prob", t, t + lp);
      trace_.Span(tid, "reference", t + lp, t + lp + ref);
      trace_.Span(tid, "train", t + lp + ref, t + lp + ref + tr, fmt::format("\"tokens\":{:.0f}", tokens));
      trace_.Span(tid, "weight sync", t + lp + ref + tr, t + lp + ref + tr + sync_s_);
      trace_.Span(tid, "overhead", t + lp + ref + tr + sync_s_, t + lp + ref + tr + sync_s_ + overhead_s_);
      trace_.Span(tid, "offload", t + lp + ref + tr + sync_s_ + overhead_s_,
                  t + lp + ref + tr + sync_s_ + overhead_s_ + offload_s_);
    }
    now_ = t + lp + ref + tr + sync_s_ + overhead_s_ + offload_s_;
  }
  end_time_ = now_;
  return {};
}

Result<SimResult> Simulator::Run() {
  if (auto ok = Setup(); !ok) return tl::unexpected(ok.error());
  if (pipelined_) {
    if (auto ok = RunPipelined(); !ok) return tl::unexpected(ok.error());
  } else {
    if (auto ok = RunSyncColocated(); !ok) return tl::unexpected(ok.error());
  }
  if (auto ok = trace_.Close(); !ok) return tl::unexpected(ok.error());

  const double n = double(steps_);
  SimResult r;
  StepTiming& st = r.mean_step;
  st.time_s = end_time_ / n;
  st.train_s = sum_train_s_ / n;
  st.logprob_s = sum_lp_s_ / n;
  st.reference_s = sum_ref_s_ / n;
  st.weight_sync_s = (sum_sync_s_ + sum_sync_wait_s_) / n;
  st.reward_s = sum_reward_s_ / n;
  st.overhead_s = sum_overhead_s_ / n;
  st.offload_s = sum_offload_s_ / n;
  st.refit_offload_s = offload_s_ > 0 ? st.offload_s * refit_offload_s_ / offload_s_ : 0.0;
  st.sync_parts = sync_parts_;
  st.other_s = st.logprob_s + st.reference_s + st.weight_sync_s + st.reward_s + st.overhead_s + st.offload_s;
  // Sync: the rollout phase as measured. Pipelined: what the trainer waited
  // for rollouts, i.e. the rollout time not hidden behind training.
  st.rollout_s = sum_rollout_s_ / n;
  st.rollout_gpus = rollout_gpus_;
  double busy = 0, batch = 0, blocks = 0, pause = 0;
  for (const Engine& en : engines_) {
    busy += en.busy_s;
    batch += en.batch_s;
    blocks += en.blocks_s;
    pause += en.pause_s;
  }
  st.rollout_busy_s = pipelined_ ? busy / n_engines_ / n : sum_rollout_busy_s_ / n;
  st.train_busy_s = st.train_s + st.logprob_s + st.reference_s;
  if (pipelined_) {
    // Each side as measured: engines' busy time, the trainer's phases, the
    // rollout GPUs' weight-sync pauses; the rest is idle.
    st.gpu_s_rollout = busy * tp_ / n;
    st.gpu_s_train = gpu_s_train_ / n;
    st.gpu_s_other = (gpu_s_other_ + pause * tp_) / n;
    st.gpu_s_idle = std::max(0.0, st.time_s * gpus_ - st.gpu_s_rollout - st.gpu_s_train - st.gpu_s_other);
  } else {
    // Colocated: by phase, less the engines' idle time by cause (an engine
    // with nothing to decode while the step waits for its last sequences,
    // tools or rewards): gpu_s_idle is the sum of SimResult's idle causes.
    st.gpu_s_rollout = st.rollout_s * gpus_ - idle_in_rollout_ / n;
    st.gpu_s_train = st.train_s * gpus_;
    st.gpu_s_other = st.other_s * gpus_ - idle_in_reward_ / n;
    st.gpu_s_idle = (idle_in_rollout_ + idle_in_reward_) / n;
  }
  st.rollout_flops = rollout_flops_ / n;
  st.train_flops = train_flops_ / n;
  st.other_flops = other_flops_ / n;
  st.rollouts_generated = rounds_mode_ ? double(total_rounds_) * g_ / n : g_;
  st.rollouts_trained = rounds_mode_ ? std::min(trained_per_step_, st.rollouts_generated) : g_ * trained_ratio_;
  st.generated_tokens = gen_tokens_ / n;
  st.prefill_tokens = prefill_tokens_ / n;
  st.trained_tokens = trained_tokens_ / n;
  if (has_sandbox_) {
    now_ = std::max(now_, end_time_);
    SandboxInUse(0);  // close the integral of sandboxes in use
    st.sandbox_peak_in_use = sandbox_peak_;
    st.sandbox_mean_in_use = end_time_ > 0 ? sandbox_busy_s_ / end_time_ : 0;
  }
  st.sandbox_cpu_s = has_sandbox_ ? sandbox_busy_s_ * sandbox_.cpus_per_rollout / n : 0;
  st.mean_batch = busy > 0 ? batch / busy : 0;
  // Sequences the KV budget holds at the mean final context of a trajectory.
  const double ctx_sum = perf::MeanTrajectoryTokens(s_);
  st.kv_capacity_sequences = ctx_sum > 0 ? kv_tokens_ / ctx_sum : 0;
  st.notes = notes_;
  if (preemptions_ > 0) {
    st.notes.push_back(fmt::format("KV cache full: {:.1f} preemptions per step (recomputed)", preemptions_ / n));
  }
  if (sandbox_wait_s_ > 0) {
    st.notes.push_back(fmt::format("sandbox pool saturated: trajectories queue {:.1f} s per step for a slot",
                                   sandbox_wait_s_ / n));
  }
  if (pipelined_ && st.rollout_s > 0.05 * st.time_s) {
    st.notes.push_back(fmt::format("rollout-bound: the trainer waits {:.1f} s per step for rollouts", st.rollout_s));
  }

  r.idle_waiting_judge_gpu_s = idle_judge_ / n;
  if (judges_.active()) {
    // The judges as the events ran them: their work is `other` GPU time (and
    // its dollars the verifier's); dedicated judge GPUs join the run's.
    const Judges::Totals& jt = judges_.totals();
    r.judge_simulated = true;
    r.judge_calls = jt.calls / n;
    r.judge_busy_gpu_s = (judge_shared_gpu_s_ + jt.dedicated_gpu_s) / n;
    r.judge_phase_s = judge_phase_s_ / n;
    r.judge_queue_wait_s = jt.calls > 0 ? jt.queue_wait_s / jt.calls : 0;
    r.judge_max_queue = jt.max_queue;
    st.verifier_calls = r.judge_calls;
    st.gpu_s_reward = r.judge_busy_gpu_s;
    st.verifier_shared_s = r.judge_phase_s;
    st.other_flops += jt.flops / n;
    if (const int dg = judges_.dedicated_gpus(); dg > 0) {
      st.verifier_gpus = dg;
      st.gpu_s_other += jt.dedicated_gpu_s / n;
      r.idle_judge_pool_gpu_s = std::max(0.0, st.time_s * dg - jt.dedicated_gpu_s / n);
      st.gpu_s_idle += r.idle_judge_pool_gpu_s;
    }
    for (const Judges::PoolInfo& p : judges_.Pools()) {
      const double busy_s = p.busy_gpu_s / std::max(1, p.gpus) / n;
      st.notes.push_back(fmt::format(
          "verifier (simulated): {} answers {:.0f} calls per step on {} {} GPU{} ({} engine{} of tp {}, {:.0f}k "
          "tokens of KV each): busy {:.1f} s per GPU per step{}; a call waits {:.2f} s on average for a place in "
          "a batch",
          p.what, p.calls / n, p.gpus, p.shared ? "of the policy's" : "dedicated", p.gpus == 1 ? "" : "s",
          p.engines, p.engines == 1 ? "" : "s", p.tp, p.kv_tokens / 1e3, busy_s,
          p.shared ? fmt::format(" (loading its weights {:.1f} s included)", p.weight_load_s) : std::string(),
          p.calls > 0 ? p.queue_wait_s / p.calls : 0.0));
    }
    if (!pipelined_) {
      st.notes.push_back(fmt::format(
          "verifier (simulated): the step waits {:.1f} s after generation for its rewards{}", st.reward_s,
          judges_.any_shared() ? fmt::format(", {:.1f} s of it judging on the policy's GPUs", r.judge_phase_s)
                               : std::string()));
    } else if (st.reward_s > 0.05 * st.time_s) {
      st.notes.push_back(fmt::format("verifier (simulated): the trainer waits {:.1f} s per step for judges after "
                                     "its batch is generated",
                                     st.reward_s));
    }
  }
  r.trajectory_time_s = Percentile::Of(traj_time_);
  r.trajectory_tokens = Percentile::Of(traj_tokens_);
  r.idle_length_tail_gpu_s = idle_tail_ / n;
  r.idle_waiting_trainer_gpu_s = idle_trainer_ / n;
  r.idle_tools_gpu_s = idle_tools_ / n;
  r.idle_weight_sync_gpu_s = idle_sync_ / n;
  r.idle_waiting_rollout_gpu_s = idle_wait_rollout_ / n;
  r.length_tail_underfill_gpu_s = underfill_ / n;
  r.sandbox_wait_s = sandbox_wait_s_ / n;
  r.mean_batch_occupancy = busy > 0 ? blocks / busy / double(total_blocks_) : 0;
  r.events = events_;
  r.steps_simulated = steps_;
  r.seed = seed_;
  r.preemptions = preemptions_ / n;
  r.engines = n_engines_;
  r.kv_blocks_per_engine = double(total_blocks_);
  return r;
}

}  // namespace

Result<SimResult> Simulate(const Scenario& s, const signal::Summary& sig, const Options& opt) {
  Simulator sim(s, sig, opt);
  return sim.Run();
}

}  // namespace rlcost::sim
