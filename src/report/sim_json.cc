#include "report/sim_json.h"

namespace rlcost::report {
namespace {
nlohmann::json PercentilesToJson(const sim::Percentiles& p) {
  return nlohmann::json{{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"max", p.max}};
}
}  // namespace

nlohmann::json SimExtrasToJson(const sim::SimResult& r) {
  nlohmann::json j;
  j["trajectory_time_s"] = PercentilesToJson(r.trajectory_time_s);
  j["trajectory_tokens"] = PercentilesToJson(r.trajectory_tokens);
  j["idle_gpu_s"] = {{"length_tail", r.idle_length_tail_gpu_s},
                     {"trainer", r.idle_waiting_trainer_gpu_s},
                     {"tools", r.idle_tools_gpu_s},
                     {"weight_sync", r.idle_weight_sync_gpu_s},
                     {"waiting_rollout", r.idle_waiting_rollout_gpu_s}};
  if (r.judge_simulated) {
    // Model verifiers run as engine work (docs/model.md, "Judges in the simulator").
    j["idle_gpu_s"]["waiting_judge"] = r.idle_waiting_judge_gpu_s;
    j["idle_gpu_s"]["judge_pool"] = r.idle_judge_pool_gpu_s;
    j["judge"] = {{"calls", r.judge_calls},
                  {"busy_gpu_s", r.judge_busy_gpu_s},
                  {"phase_s", r.judge_phase_s},
                  {"queue_wait_s", r.judge_queue_wait_s},
                  {"max_queue", r.judge_max_queue}};
  }
  j["length_tail_underfill_gpu_s"] = r.length_tail_underfill_gpu_s;
  j["sandbox_wait_s"] = r.sandbox_wait_s;
  j["mean_batch_occupancy"] = r.mean_batch_occupancy;
  j["preemptions"] = r.preemptions;
  j["engines"] = r.engines;
  j["kv_blocks_per_engine"] = r.kv_blocks_per_engine;
  j["events"] = r.events;
  j["seed"] = r.seed;
  j["steps"] = r.steps_simulated;
  if (r.extrapolated_to_steps > 0) {
    j["warmup_steps"] = r.warmup_steps;  // sim::Options::measure_steps: a second, shorter run
    j["extrapolated_to_steps"] = r.extrapolated_to_steps;
  }
  return j;
}

}  // namespace rlcost::report
