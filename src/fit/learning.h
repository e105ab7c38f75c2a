// The learning side of `rlcost validate`: published ablations of group size,
// batch and filtering (validation/learning/), each a measured ratio of the
// steps two runs need to the same quality, predicted by each learning model
// (src/signal/learning_model.h; docs/model.md, sec. 7d). The noise-scale
// model's rho is fitted to the set (the largest rho that keeps every case in
// tolerance) and scored in sample and leave-one-out.
//
//   auto set = learning::LoadDir("validation/learning");
//   auto rep = learning::Validate(*set);
//   rep.models[1].oos_passed;
#pragma once

#include <string>
#include <vector>

#include "rlcost/error.h"
#include "signal/learning_model.h"

namespace rlcost::learning {

struct Case {
  std::string file;
  std::string id;
  std::string effect;
  std::string paper, where, read, reading;
  signal::RunShape a, b;
  double measured = 0;   // steps of b / steps of a to the same quality
  double tolerance = 0.3;
};

Result<std::vector<Case>> LoadDir(const std::string& dir);

struct Prediction {
  double in_sample = 0, in_sample_error = 0;  // predicted / measured - 1
  double oos = 0, oos_error = 0;              // with the parameter fitted without this case
  double rho_oos = 0;                         // that parameter
};

struct ModelReport {
  signal::LearningModel model;
  double rho = 0;                 // fitted on every case (noise_scale); 0 for useful_samples
  std::vector<Prediction> predictions;  // per case, in order
  int in_passed = 0, oos_passed = 0;
  double oos_median_abs_error = 0;
};

struct Report {
  std::string dir_name;
  std::vector<Case> cases;
  std::vector<ModelReport> models;  // useful_samples, noise_scale
  std::string chosen;               // the model with more cases in tolerance out of sample (ties: lower median error)
};

// The largest rho in [0, 10] with every case of `cases` (but `skip`) within its
// tolerance under the noise-scale model; 0 when even rho = 0 leaves one out.
double FitRho(const std::vector<Case>& cases, int skip = -1);

Report Validate(std::vector<Case> cases, std::string dir_name);

std::string ToText(const Report& r);
std::string ToMarkdown(const Report& r);

}  // namespace rlcost::learning
