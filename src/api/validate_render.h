// Internal to the application layer (api/fit_op.cc): the presentation of
// `validate` (terminal text, JSON, markdown) and of `calibrate`. Computes nothing; the numbers
// come from fit/validate.h and fit/calibrate.h.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fit/calibrate.h"
#include "fit/validate.h"

namespace rlcost::api {

std::string ValidationToText(const validate::Report& r);
nlohmann::json ValidationToJson(const validate::Report& r);
// docs/validation.md: deterministic (no dates, no absolute paths).
std::string ValidationToMarkdown(const validate::Report& r);

std::string CalibrationFitToText(const calib::FitResult& f, const calib::TrainingLog& log);
nlohmann::json CalibrationFitToJson(const calib::FitResult& f, const calib::TrainingLog& log);

}  // namespace rlcost::api
