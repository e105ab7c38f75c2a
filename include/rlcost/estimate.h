// econ + the one definition of every output metric.
//
//   auto est = rlcost::EstimateAnalytic(scenario);       // or EstimateSimulated(...)
//   for (const auto& m : rlcost::Metrics()) m.key, m.Get(*est);   // JSON, table, HTML
//
// A metric is declared once in Metrics(): its dotted key (the JSON contract in
// SCENARIO.md), unit, description and getter. The JSON, the terminal table and
// the HTML report all read it from there.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/scenario.h"
#include "rlcost/text_detail.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "rlcost/timing.h"

namespace rlcost {

struct GoalEstimate {
  bool requested = false;      // goal.target_pass_rate was set
  bool reachable = false;
  std::string reason;          // when not reachable, in words
  double target_pass_rate = 0;
  double steps = 0;
  double gpu_hours = 0;
  double usd = 0;
  bool curve_is_illustrative = true;  // the curve's parameters are defaults, not the user's
  // What the curve is: "illustrative", "published:NAME" (goal.curve: NAME), "given".
  std::string curve;
  // The two views of the steps (docs/model.md, sec. 7c). `steps` is the one
  // named by `steps_view`: "noise_scale" when goal.b_noise and the curve's
  // batch are known, else "useful_samples".
  std::string steps_view = "useful_samples";
  double steps_useful_samples = 0;     // useful samples to the target / this run's useful samples a step
  double useful_samples_per_step = 0;  // B: this run's mean useful samples a step on the way
  double steps_noise_scale = -1;       // S_min (1 + B_noise / B); < 0 when not computed
  std::string noise_scale_reason;      // why not, when goal.b_noise is set but the view cannot be computed
  // The learning model the steps rest on (docs/model.md, sec. 7d), an
  // ASSUMPTION either way: "noise_scale" (the default, chosen by the
  // published ablations of validation/learning/) or "useful_samples" (the
  // count of sec. 7; where the noise-scale model does not apply, `learning_note` says why).
  std::string learning_model = "useful_samples";
  double learning_factor = 1;          // steps at this group size / steps at the curve's group size (same prompts)
  int learning_group_ref = 0;          // the curve's group size
  double learning_steps_ref = 0;       // the useful-sample count at that group size
  std::string learning_note;
};

// The run beyond its steps (docs/model.md, "Run-level costs"). Hours of wall
// time; the five parts add up to Estimate::wall_time_h.
struct RunBreakdown {
  double steps_h = 0;        // algorithm.steps x the mean step
  double startup_h = 0;      // model load from storage + engine warm-up, once
  double checkpoints_h = 0;  // time training waits for checkpoint writes
  double evaluation_h = 0;   // evaluation passes
  double restarts_h = 0;     // expected failure overhead: detection, restart, lost work
  double startup_s = 0;      // one start-up (also paid at every restart)
  double checkpoint_gb = 0;  // one checkpoint
  double checkpoint_s = 0;   // one checkpoint on the critical path
  double checkpoints = 0;    // how many
  double evaluation_s = 0;   // one evaluation pass
  double evaluations = 0;    // how many
  double expected_interruptions = 0;
  double total_h() const { return steps_h + startup_h + checkpoints_h + evaluation_h + restarts_h; }
};

// The run's dollars by what they pay for (docs/model.md, "Dollars by
// phase"): the steps' GPU dollars split by the step's GPU-seconds per phase,
// the sandbox CPU dollars, and the GPU dollars of the run-level parts. The
// nine add up to Estimate::usd.
struct UsdByPhase {
  double rollout = 0, train = 0, other = 0, idle = 0;  // steps: GPU dollars
  double sandbox = 0;                                  // steps: sandbox CPU dollars
  double startup = 0, checkpoints = 0, evaluation = 0, restarts = 0;
  double total() const {
    return rollout + train + other + idle + sandbox + startup + checkpoints + evaluation + restarts;
  }
};

// The electricity of the run at the GPU boards and its emissions on the
// scenario's grid (docs/model.md, "Energy"). known = false when the GPU states
// no power limit (an inline GPU without tdp_w): every figure is then 0.
struct EnergyEstimate {
  bool known = false;
  // Power per GPU in each kind of work, W.
  double rollout_w = 0;  // decoding at the run's mean batch
  double busy_w = 0;     // compute-bound passes: update, log-prob, reference
  double idle_w = 0;     // holding memory, no kernel running
  struct ByPhase {
    double rollout = 0, train = 0, other = 0, idle = 0;
    double startup = 0, checkpoints = 0, evaluation = 0, restarts = 0;
    double total() const { return rollout + train + other + idle + startup + checkpoints + evaluation + restarts; }
  } kwh_by_phase;
  double kwh = 0;  // = kwh_by_phase.total()
  double g_co2e_per_kwh = 0;
  double co2e_kg = 0;
};

// The layout an estimate ran with (placement as read, or as the planner
// chose it): shown in the text and JSON (layout.*).
struct LayoutSummary {
  bool colocated = true;
  int rollout_gpus = 0;
  int train_gpus = 0;
  int rollout_tp = 1;
  int engines = 0;
  bool dp_attention = false;
  bool train_state_offloaded = false;  // colocated: moved to host memory while generating
};

// What the planner (src/plan) chose for the fields the scenario leaves out,
// and why: the runner-up and the literal reading with their cost (plan.*).
struct PlanSummary {
  std::string objective = "cost";          // cost (dollars per step) | time (step wall time)
  std::vector<std::string> chosen_fields;  // placement fields the planner chose
  std::string layout;                      // the chosen layout, in words
  std::string runner_up;                   // the best other layout, in words ("" = none)
  double runner_up_usd_per_step = 0, runner_up_step_s = 0;
  std::string literal;                     // the layout the scenario's defaults give (--no-plan)
  std::optional<double> literal_usd_per_step, literal_step_s;
  std::string literal_error;               // why the literal layout does not run, if it does not
  int candidates = 0;                      // layouts tried
  int fitting = 0;                         // of which fit in memory
  std::vector<std::string> why;            // lines for the text
};

struct Estimate {
  std::string scenario_name;
  std::string method = "analytic";  // analytic | simulated
  StepTiming step;
  signal::Summary signal;
  std::optional<sim::SimResult> sim;  // simulated path only

  double rollout_fraction = 0;
  double mfu_rollout = 0;
  double mfu_train = 0;
  double tokens_per_s_per_gpu = 0;
  double output_tokens_per_s_per_gpu = 0;
  // Share of generated responses that stop at the maximum length
  // (environment.response_tokens): P(Y = max) = s + (1 - s) P(X >= max);
  // `clipped_share_set` when the scenario set s (`clipped`), otherwise it is
  // implied by the length distribution (docs/model.md, "Responses clipped at
  // the maximum length").
  double clipped_share = 0;
  bool clipped_share_set = false;

  double usd_gpu_per_step = 0;
  double usd_sandbox_per_step = 0;
  // GPU dollars per step of a model verifier: its share of the policy's GPUs
  // (shared) or its own GPUs for the whole step (dedicated); in usd_gpu_per_step.
  double usd_verifier_per_step = 0;
  // environment.failures: rollout GPU-seconds and dollars (GPU and sandbox)
  // spent per step on trajectories whose environment failed; part of the above.
  double wasted_gpu_s = 0;
  double usd_wasted_per_step = 0;
  double usd_per_step = 0;
  // Mean dollars per GPU-hour paid over the run's GPUs: the list price, or
  // less where hardware.spot puts a role on spot GPUs.
  double usd_per_gpu_hour = 0;
  double usd_per_useful_sample = 0;
  double usd_per_reward_bit = 0;
  double usd_per_million_trained_tokens = 0;
  double gpu_hours = 0;
  double cpu_hours = 0;
  double wall_time_h = 0;
  double usd = 0;
  RunBreakdown run;  // wall_time_h = run.total_h()
  UsdByPhase usd_by_phase;  // usd = usd_by_phase.total()
  EnergyEstimate energy;
  GoalEstimate goal;
  LayoutSummary layout;
  std::optional<PlanSummary> plan;       // set when the planner chose part of the layout
  std::vector<std::string> assumptions;  // what the numbers rest on, in words
  // placement.resplit (docs/model.md, "Elastic pools"): the run's steps priced
  // phase by phase with the rollout/train split chosen for each phase's
  // response length, against the scenario's own split kept throughout.
  struct Resplit {
    int phases = 0;
    std::vector<int> rollout_gpus;      // per phase, as chosen
    std::vector<double> phase_mean_tokens;
    double fixed_steps_h = 0, steps_h = 0;  // the steps' wall time, fixed split / re-split (re-splits included)
    double fixed_usd = 0, usd = 0;          // those hours at the run's GPU price
    double resplit_s = 0;                   // seconds stopped per re-split
    int resplits = 0;                       // changes of split made
  };
  std::optional<Resplit> resplit;
};

// Econ: dollars, MFU, throughput from a step timing and the signal summary.
// `evaluation_s` is one evaluation pass (run.evaluation), 0 when there is none.
Estimate BuildEstimate(const Scenario& s, const StepTiming& t, const signal::Summary& sig,
                       double evaluation_s = 0, TextDetail detail = TextDetail::kFull);

Result<Estimate> EstimateAnalytic(const Scenario& s, TextDetail detail = TextDetail::kFull);
Result<Estimate> EstimateSimulated(const Scenario& s, const sim::Options& opt);

struct MetricDef {
  std::string_view key;          // dotted JSON path, e.g. "step.time_s"
  std::string_view unit;         // "s", "USD", "", ...
  std::string_view description;
  bool contract = false;         // one of SCENARIO.md's output keys
  std::function<std::optional<double>(const Estimate&)> get;  // nullopt = not applicable
};
const std::vector<MetricDef>& Metrics();
const MetricDef* FindMetric(std::string_view key);

}  // namespace rlcost
