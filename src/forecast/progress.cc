// Reading a run's progress for `rlcost forecast`: one metric per step, and
// what each step cost, from a CSV or any log `rlcost calibrate` reads
// (src/ingest/training_log.h does the reading).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/file.h"
#include "forecast/forecast.h"
#include "ingest/log_common.h"
#include "ingest/training_log.h"

namespace rlcost::forecast {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Comment lines ('#' first) become empty lines, so that line numbers hold.
std::string DropComments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (!first) out += '\n';
    first = false;
    size_t i = line.find_first_not_of(" \t");
    if (i != std::string::npos && line[i] == '#') continue;
    out += line;
  }
  return out;
}

// A CSV whose header has a column named exactly "step".
bool IsStepCsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.find(',') == std::string::npos || line.find("step:") != std::string::npos) return false;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      std::string_view c = calib::log_internal::Trim(cell);
      if (c == "step" || c == "\"step\"") return true;
    }
    return false;
  }
  return false;
}

// Known names of a run's quality, held-out first: validation accuracy /
// score (veRL val/test_score/<source>, val-core/<source>/..., NeMo RL
// validation/accuracy), then the training reward (veRL critic/score/mean,
// NeMo RL train/reward).
// The held-out score first, then the training reward, among the keys logged
// at least `min_points` times.
std::string ChooseMetric(const std::map<std::string, int>& counts, int min_points) {
  auto has = [&](const std::string& k) {
    auto it = counts.find(k);
    return it != counts.end() && it->second >= min_points;
  };
  for (const char* k : {"val_acc", "validation/accuracy", "val/accuracy"}) {
    if (has(k)) return k;
  }
  for (const char* prefix : {"val/test_score/", "val-core/"}) {
    for (const auto& [k, n] : counts) {
      if (k.rfind(prefix, 0) == 0 && n >= min_points) return k;
    }
  }
  for (const char* k : {"critic/score/mean", "train_reward_mean", "train/reward", "critic/rewards/mean", "reward",
                        "accuracy", "score"}) {
    if (has(k)) return k;
  }
  return "";
}

// A known key with two values or more; else one logged once, so that a log of
// a single point is answered "n/a: only 1 point" rather than "no such column".
std::string ChooseMetric(const std::map<std::string, int>& counts) {
  std::string k = ChooseMetric(counts, 2);
  return k.empty() ? ChooseMetric(counts, 1) : k;
}

double Find(const std::map<std::string, double>& v, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = v.find(k);
    if (it != v.end()) return it->second;
  }
  return kNaN;
}

std::string ListColumns(const std::vector<std::string>& cols) {
  std::string out;
  size_t n = 0;
  for (const auto& c : cols) {
    if (n == 12) {
      out += fmt::format(", ... ({} in all)", cols.size());
      break;
    }
    out += (n++ ? ", " : "") + c;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

Result<ProgressSeries> ReadProgressText(const std::string& raw_text, const std::string& origin, const ReadOptions& o) {
  const std::string text = DropComments(raw_text);
  Result<calib::TrainingLog> log = IsStepCsv(text) ? calib::log_internal::ParseWandbCsv(text, origin)
                                                   : calib::ParseTrainingLogText(text, origin);
  if (!log) return Fail(log.error());
  ProgressSeries s;
  s.path = origin;
  s.format = IsStepCsv(text) ? std::string("csv") : log->format;
  if (log->records.empty()) {
    return Fail(ErrorCode::kInvalidInput, "", origin + ": the log has no rows (nothing to fit)");
  }
  std::map<std::string, int> counts;
  int first = std::numeric_limits<int>::max(), last = 0;
  for (const auto& r : log->records) {
    first = std::min(first, r.step);
    last = std::max(last, r.step);
    for (const auto& [k, v] : r.values) counts[k]++;
  }
  for (const auto& [k, n] : counts) s.columns.push_back(k);
  s.first_step = first;
  s.last_step = last;
  if (o.metric.empty()) {
    s.metric = ChooseMetric(counts);
    s.metric_chosen = true;
    if (s.metric.empty()) {
      return Fail(ErrorCode::kInvalidInput, "metric",
                  fmt::format("{}: no known reward or accuracy column (val_acc, val/test_score/..., validation/accuracy, "
                              "critic/score/mean, train/reward, ...); name the one to forecast with `metric` "
                              "(columns: {})",
                              origin, ListColumns(s.columns)));
    }
  } else {
    s.metric = o.metric;
    if (!counts.count(o.metric)) {
      return Fail(ErrorCode::kInvalidInput, "metric",
                  fmt::format("{}: no column or key named \"{}\" (columns: {})", origin, o.metric,
                              ListColumns(s.columns)));
    }
  }
  // A step column that goes back: a run resumed from a checkpoint re-does
  // the steps after it (veRL and NeMo RL resume their step counter from the
  // checkpoint), so where steps repeat the later lines are the run that went
  // on; they are kept below and the resume is reported. One that goes back to
  // the log's first step or before is a second run, or a resumed run that
  // numbers its steps anew: which training step each later line is cannot be
  // told, so that is an error.
  int seen_first = std::numeric_limits<int>::max(), prev = std::numeric_limits<int>::min();
  for (const auto& r : log->records) {
    if (!r.values.count(s.metric)) continue;
    if (r.step < prev) {
      const std::string at = r.line > 0 ? fmt::format("{}:{}", origin, r.line) : origin;
      if (r.step <= seen_first) {
        return Fail(ErrorCode::kInvalidInput, "",
                    fmt::format("{}: the step column starts again (step {} after step {}): the log holds two runs, or "
                                "a resumed run that numbers its steps from {} again, and which training step each "
                                "later line is cannot be told; keep one run's lines, or renumber the resumed part "
                                "to continue from its checkpoint's step",
                                at, r.step, prev, r.step));
      }
      s.resumes.push_back(Resume{r.line, prev, r.step});
    }
    seen_first = std::min(seen_first, r.step);
    prev = r.step;
  }
  // One value per step: the last logged (a step's validation line may follow
  // its training line; a resumed run's line follows the one it re-does).
  std::map<int, ProgressPoint> by_step;
  std::map<int, std::map<std::string, double>> merged;
  for (const auto& r : log->records) {
    auto it = r.values.find(s.metric);
    if (it != r.values.end()) by_step[r.step] = ProgressPoint{r.step, it->second, r.line};
    for (const auto& [k, v] : r.values) merged[r.step][k] = v;
  }
  for (auto& [step, p] : by_step) s.points.push_back(p);

  // What each step cost: a whole-step time when logged, else the phases
  // `calibrate` reads (ExtractPhases); GPU-hours from a cumulative column, or
  // the step time times --gpus.
  std::map<int, double> phase_s;
  if (auto phases = calib::ExtractPhases(*log)) {
    for (const auto& p : *phases) phase_s[p.step] = p.step_s;
  }
  double prev_cum = kNaN;
  int prev_step = -1;
  for (const auto& [step, v] : merged) {
    double t = Find(v, {"step_time_s", "timing_s/step", "timing/train/total_step_time"});
    if (!std::isfinite(t)) {
      auto it = phase_s.find(step);
      if (it != phase_s.end()) t = it->second;
    }
    double gh = kNaN;
    double cum = Find(v, {"cum_gpu_hours", "gpu_hours"});
    if (std::isfinite(cum)) {
      if (std::isfinite(prev_cum) && step > prev_step) gh = (cum - prev_cum) / (step - prev_step);
      else if (prev_step < 0) gh = cum / (step - first + 1);
      prev_cum = cum;
      prev_step = step;
    } else if (std::isfinite(t) && o.gpus > 0) {
      gh = t * o.gpus / 3600.0;
    }
    if (!std::isfinite(t) && !std::isfinite(gh)) continue;
    s.cost_steps.push_back(step);
    s.step_s.push_back(t);
    s.step_gpu_hours.push_back(gh);
  }
  return s;
}

Result<ProgressSeries> ReadProgressFile(const std::string& path, const ReadOptions& o) {
  auto text = ReadBoundedFile(path, kMaxLogBytes, "log file");
  if (!text) return Fail(text.error());
  return ReadProgressText(*text, path, o);
}

Bounds BoundsOf(const ProgressSeries& s) {
  bool unit = !s.points.empty();
  for (const auto& p : s.points) unit = unit && p.value >= 0 && p.value <= 1;
  return unit ? Bounds{0, 1} : Bounds{};
}

}  // namespace rlcost::forecast
