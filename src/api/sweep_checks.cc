// The checks of a sweep's fields (api/sweep_checks.h).
#include "api/sweep_checks.h"

namespace rlcost::ops {

SweepFields CheckSweepFields(const std::vector<std::string>& vary, bool sampled, const std::vector<std::string>& sets,
                             const std::vector<std::string>& metrics, const SweepFieldWords& words, Error& bad) {
  auto add = [&](const Error& e) {
    if (bad.problems.empty()) bad.code = e.code;
    for (auto p : e.problems) {
      if (words.clear_vary_file && p.file == "vary") p.file.clear();
      bad.problems.push_back(std::move(p));
    }
  };
  SweepFields out;
  for (const auto& v : vary) {
    auto axis = explore::ParseAxis(v, sampled);
    if (!axis) {
      add(axis.error());
      continue;
    }
    for (const auto& prev : out.axes) {
      if (prev.key == axis->key) add(Error(ErrorCode::kInvalidInput, axis->key, words.vary_twice));
    }
    out.axes.push_back(std::move(*axis));
  }
  if (vary.empty()) add(Error(ErrorCode::kInvalidInput, words.nothing_path, words.nothing_message));
  for (const auto& s : sets) {
    auto o = ParseOverride(s);
    if (!o) add(o.error()); else out.fixed.push_back(*o);
  }
  for (const auto& m : metrics) {
    auto def = explore::MetricByName(m, words.metric_field);
    if (!def) add(def.error()); else out.metrics.push_back(*def);
  }
  if (out.metrics.empty()) out.metrics = explore::DefaultMetrics();
  return out;
}

}  // namespace rlcost::ops
