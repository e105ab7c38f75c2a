// NeMo RL's TensorBoard dump: one JSON object {metric: {step: value}}
// (the shape of NeMo RL's tests/json_dump_tb_logs.py output).
#include <cctype>
#include <sstream>

#include "ingest/log_common.h"

namespace rlcost::calib::log_internal {

// {metric: {step: value}} as one JSON document.
Result<TrainingLog> ParseTensorboardJson(const nlohmann::json& j, const std::string& origin) {
  TrainingLog log;
  log.path = origin;
  log.format = "tensorboard-json";
  std::map<int, LogRecord> by_step;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_object()) {
      return Fail(LineError(origin, 0, it.key() + ": expected a mapping of step -> value"));
    }
    for (auto s = it->begin(); s != it->end(); ++s) {
      auto number = ParseLogNumber(s.key());
      auto step = number ? StepNumber(*number) : std::nullopt;
      if (!step || !s->is_number()) {
        return Fail(LineError(origin, 0, it.key() + "." + s.key() + ": expected an integer step and a number"));
      }
      auto& rec = by_step[*step];
      rec.step = *step;
      rec.values[it.key()] = s->get<double>();
    }
  }
  for (auto& [k, r] : by_step) log.records.push_back(std::move(r));
  return log;
}

}  // namespace rlcost::calib::log_internal
