// Model verifiers (an LLM judge, a reward model; environment.reward.verifier)
// as engine work of the discrete-event simulation (docs/model.md, "Judges in
// the simulator").
//
// Each model verifier is a pool of judge engines (perf::VerifierCost plans
// their tensor-parallel size, count and KV budget). A rewarded trajectory
// sends its calls to every pool, each call to the engine with the fewest calls
// (a data-parallel router's least-loaded choice), FIFO there; an engine batches calls
// continuously under its KV budget: admitted calls are prefilled (one
// segment), the running ones decode together until the first finishes, and a
// call that arrives while an engine decodes with room to spare joins at the
// end of the iteration in flight. Pools on the policy's GPUs (`gpus: shared`)
// open only when the simulator opens them (sync: once a round's generation
// is over, after loading the judge's weights); pools on GPUs of their own are
// always open and work while the policy generates.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "sim/event_queue.h"

namespace rlcost::sim {

class Judges {
 public:
  // Plans the pools for `rollouts_per_step` judged trajectories a step.
  // `pipelined`: the policy generates on GPUs apart from the trainer's; a
  // judge sharing those GPUs is not simulated as events there (not_simulated()).
  Result<void> Setup(const Scenario& s, double rollouts_per_step, bool pipelined);
  bool active() const { return !pools_.empty(); }
  // Set when the scenario has a model verifier the simulator leaves to the
  // closed form, with the reason in plain words.
  const std::string& not_simulated() const { return not_simulated_; }
  bool any_shared() const;
  int dedicated_gpus() const;

  // A trajectory's reward is asked for (`tokens`: its length, the judge's
  // input when the verifier states none). Returns the calls sent (0: none).
  int Submit(double now, int32_t traj, double tokens, EventQueue& q);
  // Shared pools start, one after another (an ensemble's members in turn),
  // each after copying its weights in; they stay open until CloseShared.
  void OpenShared(double now, EventQueue& q);
  void CloseShared();
  // A judge event (kJudgeOpen, kJudgeSegmentEnd); `done` gets the trajectory
  // of every call completed (once per call).
  void OnEvent(double now, const Event& ev, EventQueue& q, std::vector<int32_t>& done);

  // Totals over the run so far.
  struct Totals {
    double calls = 0;
    double shared_gpu_s = 0;     // busy GPU-seconds of shared pools (work + weight loads)
    double dedicated_gpu_s = 0;  // busy GPU-seconds of dedicated pools
    double flops = 0;            // model FLOPs, all judge GPUs
    double queue_wait_s = 0;     // call-seconds queued before admission
    double max_queue = 0;        // most calls queued at once
  };
  const Totals& totals() const { return totals_; }
  // Shared busy GPU-seconds since the last call (for the simulator's
  // per-round bookkeeping).
  double TakeSharedGpuS();

  struct PoolInfo {
    std::string what;
    bool shared = true;
    int gpus = 0, tp = 1, engines = 0;
    double kv_tokens = 0;  // per engine
    double weight_load_s = 0;
    double calls = 0, busy_gpu_s = 0, queue_wait_s = 0;
  };
  std::vector<PoolInfo> Pools() const;

 private:
  struct Call {
    int32_t traj = 0;
    double input = 0;
    int64_t left = 0;  // output tokens still to decode
    int64_t left_at_admission = 0;  // its KV reservation: input + this
    double ctx = 0;    // context tokens while running
    double t_submit = 0;
  };
  enum class Seg : uint8_t { kNone, kPrefill, kDecode };
  struct Engine {
    std::deque<Call> queue;  // calls dispatched to it, not yet admitted
    std::vector<Call> running, admitted;
    double kv_used = 0;
    Seg seg = Seg::kNone;
    double t0 = 0, t1 = 0;
    int64_t n = 0;      // decode iterations of the segment
    double batch = 0, ctx = 0;
    uint32_t version = 0;
    double busy_s = 0;
  };
  struct CallShape {
    double output = 0;  // verdict tokens
  };
  struct Pool {
    perf::VerifierWork plan;
    perf::EngineConfig ec;
    double input_tokens = 0;  // 0 = the trajectory's length
    double calls_per_rollout = 1;
    double carry = 0;         // fractional calls carried to the next trajectory
    std::vector<CallShape> shapes;  // one per call of a trajectory (rubric criteria)
    std::vector<Engine> engines;
    int first_engine = 0;     // global index of engines[0] in events
    int64_t queued = 0;       // calls in the engines' queues
    bool open = false;
    double calls = 0, busy_gpu_s = 0, queue_wait_s = 0;
  };

  void Plan(Pool& p, int e, double now, EventQueue& q);
  void Truncate(Pool& p, int e, double now, EventQueue& q);
  void OpenNextShared(double now, EventQueue& q);
  bool Fits(const Pool& p, const Engine& en, const Call& c) const;

  std::vector<Pool> pools_;
  std::vector<std::pair<int, int>> engine_ref_;  // global engine -> (pool, engine)
  std::vector<int> shared_order_;                // shared pools in opening order
  size_t next_shared_ = 0;                       // next shared pool to open this round
  bool shared_phase_ = false;
  std::string not_simulated_;
  Totals totals_;
  double shared_gpu_s_taken_ = 0;
};

}  // namespace rlcost::sim
