// Internal: the checks of the scenario fields that a `--set` override may
// change straight in a loaded Scenario (spec/fast_override.h). The loader
// (spec/scenario.cc) reads these fields with the same rules, so each check
// has one definition; Reader::Int / Reader::Double apply them
// (IntAccepts / DoubleAccepts in spec/reader.h).
#pragma once

#include "rlcost/scenario.h"
#include "scenario/reader.h"

namespace rlcost::scenario_internal::fields {

// A whole number in [min, max] (Reader::Int's default max).
struct IntRule {
  int min = 1;
  int max = 1'000'000'000;
};

// GPU list prices are a few USD per GPU-hour; 1000 USD leaves room for any
// contract while keeping the run's dollars finite.
inline constexpr double kMaxPricePerHour = 1000;

inline constexpr IntRule kGroupSize{.min = 1};
inline constexpr IntRule kPromptsPerStep{.min = 1};
inline constexpr IntRule kSteps{.min = 1};
inline constexpr IntRule kMaxConcurrent{.min = 1};  // environment.sandbox.max_concurrent

inline constexpr Range kNonNegative{.min = 0.0};  // sandbox cpus and start-up, pipeline.max_staleness
inline constexpr Range kPricePerHour{.min = 0.0, .max = kMaxPricePerHour};
inline constexpr Range kOpenUnit{.min = 0.0, .min_exclusive = true, .max = 1.0, .max_exclusive = true};
inline constexpr Range kPassRateMean = kOpenUnit;     // environment.pass_rate.mean
inline constexpr Range kTargetPassRate = kOpenUnit;   // goal.target_pass_rate
inline constexpr Range kConcentration{.min = 0.0, .min_exclusive = true};

// environment.pass_rate {mean, concentration}: Beta(mean * c, (1 - mean) * c).
inline constexpr double kDefaultPassRateMean = 0.35;
inline constexpr double kDefaultConcentration = 2.0;
inline void SetBetaOfMean(PassRateSpec& pr, double mean, double concentration) {
  pr.kind = PassRateSpec::Kind::kBeta;
  pr.a = mean * concentration;
  pr.b = (1 - mean) * concentration;
}

}  // namespace rlcost::scenario_internal::fields
