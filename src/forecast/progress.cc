// Reading a run's progress for `rlcost forecast`: one metric per step, and
// what each step cost, from a CSV or any log `rlcost calibrate` reads
// (src/ingest/training_log.h does the reading).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <istream>

#include <fmt/format.h>

#include "core/numbers.h"
#include "core/file.h"
#include "core/nesting.h"
#include "forecast/forecast.h"
#include "ingest/log_common.h"
#include "ingest/training_log.h"

namespace rlcost::forecast {
namespace {


// The keys a step's cost is read from (Find's order below).
constexpr const char* kCostKeys[] = {"step_time_s", "timing_s/step", "timing/train/total_step_time", "cum_gpu_hours",
                                     "gpu_hours"};

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

// A CSV header line with a column named exactly "step" (not a console line
// that happens to hold commas and "step:").
bool IsStepCsvHeader(const std::string& line) {
  if (line.find(',') == std::string::npos || line.find("step:") != std::string::npos) return false;
  std::istringstream cells(line);
  std::string cell;
  while (std::getline(cells, cell, ',')) {
    std::string_view c = calib::log_internal::Trim(cell);
    if (c == "step" || c == "\"step\"") return true;
  }
  return false;
}

// A CSV whose header (its first non-blank line) has a column named exactly "step".
bool IsStepCsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    return IsStepCsvHeader(line);
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

// A logged step's cost, in step order: its time, and its GPU-hours from the
// cumulative GPU-hours (the difference from the last step that logged them;
// the first such step spreads its total over the steps since the log began),
// else from its time and the run's GPUs. A step with neither is left out.
struct StepCosts {
  int first = 0;
  int gpus = 0;
  double prev_cum = std::numeric_limits<double>::quiet_NaN();
  int prev_step = -1;

  void Add(int step, double t, double cum, ProgressSeries& s) {
    double gh = std::numeric_limits<double>::quiet_NaN();
    if (std::isfinite(cum)) {
      if (std::isfinite(prev_cum) && step > prev_step) gh = (cum - prev_cum) / (step - prev_step);
      else if (prev_step < 0) gh = cum / (step - first + 1);
      prev_cum = cum;
      prev_step = step;
    } else if (std::isfinite(t) && gpus > 0) {
      gh = t * gpus / 3600.0;
    }
    if (!std::isfinite(t) && !std::isfinite(gh)) return;
    s.cost_steps.push_back(step);
    s.step_s.push_back(t);
    s.step_gpu_hours.push_back(gh);
  }
};

// The series' columns and the metric it forecasts: `o.metric`, else the first
// known reward or accuracy column present (errors name the request's `metric`).
Result<void> ChooseSeriesMetric(const std::map<std::string, int>& counts, const ReadOptions& o,
                                const std::string& origin, ProgressSeries& s) {
  for (const auto& [k, n] : counts) s.columns.push_back(k);
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
    return {};
  }
  s.metric = o.metric;
  if (!counts.count(o.metric)) {
    return Fail(ErrorCode::kInvalidInput, "metric",
                fmt::format("{}: no column or key named \"{}\" (columns: {})", origin, o.metric, ListColumns(s.columns)));
  }
  return {};
}

// A comment line ('#' first) or a blank one.
bool Skippable(std::string_view line) {
  const size_t i = line.find_first_not_of(" \t\r");
  return i == std::string_view::npos || line[i] == '#';
}

// A column the step cost reads through calibrate's phases (ExtractPhases):
// such a CSV is read whole, as any other log.
bool IsPhaseColumn(const std::string& name) {
  if (name == "timing_s/step" || name == "timing/train/total_step_time") return false;
  return name.rfind("timing_s/", 0) == 0 || name.rfind("timing/", 0) == 0;
}

// A CSV with a "step" column, read as a stream in two passes over `in`: the
// first checks every row and counts each column's values (which choose the
// metric), the second keeps the metric's value and the step's cost a row,
// 16 + 24 bytes, and never the row's other columns. The same rows and errors
// as ParseWandbCsv and ReadProgressText's whole-log path. nullopt: the CSV has
// phase-time columns, which only the whole-log path prices.
std::optional<Result<ProgressSeries>> StreamStepCsv(std::istream& in, const std::string& origin,
                                                    const ReadOptions& o) {
  using calib::log_internal::LineError;
  using calib::log_internal::SplitCsv;
  using calib::log_internal::Trim;
  std::vector<std::string> header, cells, names;
  std::vector<int> name_of;  // column -> index into `unique` (-1: not a metric)
  std::vector<std::string> unique;
  int step_col = -1;
  std::string raw;
  // Reads the next row into `cells`; false at the end. Errors as ParseWandbCsv's.
  int line_no = 0;
  std::optional<Error> error;
  auto next_row = [&](int& step) -> bool {
    while (std::getline(in, raw)) {
      ++line_no;
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      if (Skippable(raw)) continue;
      if (!SplitCsv(raw, cells)) {
        error = LineError(origin, line_no, "unclosed quote");
        return false;
      }
      if (cells.size() != header.size()) {
        error = LineError(origin, line_no,
                          "expected " + std::to_string(header.size()) + " fields as in the header, got " +
                              std::to_string(cells.size()));
        return false;
      }
      auto v = calib::ParseLogNumber(cells[size_t(step_col)]);
      if (!v) {
        error = LineError(origin, line_no,
                          header[size_t(step_col)] + ": \"" + cells[size_t(step_col)] + "\" is not a step number");
        return false;
      }
      auto whole = calib::log_internal::StepNumber(*v);
      if (!whole) {
        error = LineError(origin, line_no,
                          calib::log_internal::NotAStep(header[size_t(step_col)], "\"" + cells[size_t(step_col)] + "\""));
        return false;
      }
      step = *whole;
      return true;
    }
    return false;
  };
  // The header.
  while (std::getline(in, raw)) {
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (Skippable(raw)) continue;
    if (!SplitCsv(raw, header)) return Fail(LineError(origin, line_no, "unclosed quote in the header"));
    for (size_t c = 0; c < header.size(); ++c) {
      std::string name(Trim(header[c]));
      if (name == "_step" || name == "Step" || name == "step") {
        step_col = int(c);
        name.clear();
      } else if (size_t dash = name.find(" - "); dash != std::string::npos) {
        name = name.substr(dash + 3);
      }
      if (name.size() > 5 && (name.ends_with("__MIN") || name.ends_with("__MAX"))) name.clear();
      if (IsPhaseColumn(name)) return std::nullopt;
      int idx = -1;
      if (!name.empty()) {
        auto it = std::find(unique.begin(), unique.end(), name);
        idx = int(it - unique.begin());
        if (it == unique.end()) unique.push_back(name);
      }
      names.push_back(name);
      name_of.push_back(idx);
    }
    break;
  }
  if (header.empty()) return Fail(LineError(origin, 0, "the CSV is empty"));
  if (step_col < 0) {
    return Fail(LineError(origin, line_no,
                          "no step column: expected one named _step (wandb API export) or Step (run page export)"));
  }
  const std::streampos body = in.tellg();
  const int body_line = line_no;
  // Pass 1: check every row; count the rows that log each key.
  std::vector<int> count(unique.size(), 0), seen_row(unique.size(), -1);
  long long rows = 0;
  int first = std::numeric_limits<int>::max(), last = 0;
  for (int step = 0; next_row(step);) {
    ++rows;
    first = std::min(first, step);
    last = std::max(last, step);
    for (size_t c = 0; c < cells.size(); ++c) {
      if (name_of[c] < 0 || Trim(cells[c]).empty()) continue;
      if (!calib::ParseLogNumber(cells[c])) {
        if (calib::log_internal::IsUsedKey(names[c])) {
          return Fail(LineError(origin, line_no, names[c] + ": \"" + cells[c] + "\" is not a number"));
        }
        continue;
      }
      if (seen_row[size_t(name_of[c])] != line_no) seen_row[size_t(name_of[c])] = line_no, ++count[size_t(name_of[c])];
    }
  }
  if (error) return Fail(*error);
  ProgressSeries s;
  s.path = origin;
  s.format = "csv";
  if (rows == 0) return Fail(ErrorCode::kInvalidInput, "", origin + ": the log has no rows (nothing to fit)");
  std::map<std::string, int> counts;
  for (size_t i = 0; i < unique.size(); ++i) {
    if (count[i] > 0) counts[unique[i]] = count[i];
  }
  s.first_step = first;
  s.last_step = last;
  if (auto ok = ChooseSeriesMetric(counts, o, origin, s); !ok) return Fail(ok.error());
  // Pass 2: the metric and the step's cost, a row at a time.
  in.clear();
  in.seekg(body);
  line_no = body_line;
  auto column_of = [&](const char* key) {
    int col = -1;
    for (size_t c = 0; c < names.size(); ++c) {
      if (names[c] == key) col = int(c);  // the last column of a name wins, as in a record
    }
    return col;
  };
  const int metric_col = column_of(s.metric.c_str());
  const std::vector<int> time_cols = {column_of("step_time_s"), column_of("timing_s/step"),
                                      column_of("timing/train/total_step_time")};
  const std::vector<int> cum_cols = {column_of("cum_gpu_hours"), column_of("gpu_hours")};
  auto value = [&](int col) {
    if (col < 0 || Trim(cells[size_t(col)]).empty()) return kNaN;
    return calib::ParseLogNumber(cells[size_t(col)]).value_or(kNaN);
  };
  auto first_of = [&](const std::vector<int>& cols) {
    for (int c : cols) {
      if (const double v = value(c); !std::isnan(v)) return v;
    }
    return kNaN;
  };
  struct CostRow {
    int step;
    double t, cum;
  };
  std::vector<CostRow> cost;
  int seen_first = std::numeric_limits<int>::max(), prev = std::numeric_limits<int>::min();
  for (int step = 0; next_row(step);) {
    const double m = value(metric_col);
    if (!std::isnan(m)) {
      // A step column that goes back: as ReadProgressText says (below).
      if (step < prev) {
        if (step <= seen_first) {
          return Fail(ErrorCode::kInvalidInput, "",
                      fmt::format("{}:{}: the step column starts again (step {} after step {}): the log holds two "
                                  "runs, or a resumed run that numbers its steps from {} again, and which training "
                                  "step each later line is cannot be told; keep one run's lines, or renumber the "
                                  "resumed part to continue from its checkpoint's step",
                                  origin, line_no, step, prev, step));
        }
        s.resumes.push_back(Resume{line_no, prev, step});
      }
      seen_first = std::min(seen_first, step);
      prev = step;
      s.points.push_back(ProgressPoint{step, m, line_no});
    }
    const double t = first_of(time_cols), cum = first_of(cum_cols);
    if (std::isfinite(t) || std::isfinite(cum)) cost.push_back(CostRow{step, t, cum});
  }
  if (error) return Fail(*error);
  // One value per step: the last logged (a resumed run's line follows the one
  // it re-does).
  auto by_step = [](const auto& a, const auto& b) { return a.step < b.step; };
  std::stable_sort(s.points.begin(), s.points.end(), by_step);
  size_t kept = 0;
  for (size_t i = 0; i < s.points.size(); ++i) {
    if (kept > 0 && s.points[kept - 1].step == s.points[i].step) s.points[kept - 1] = s.points[i];
    else s.points[kept++] = s.points[i];
  }
  s.points.resize(kept);
  s.points.shrink_to_fit();
  std::stable_sort(cost.begin(), cost.end(), by_step);
  StepCosts costs{first, o.gpus};
  for (size_t i = 0; i < cost.size();) {
    // The step's rows merged: each figure the last one logged.
    const int step = cost[i].step;
    double t = kNaN, cum = kNaN;
    for (; i < cost.size() && cost[i].step == step; ++i) {
      if (std::isfinite(cost[i].t)) t = cost[i].t;
      if (std::isfinite(cost[i].cum)) cum = cost[i].cum;
    }
    costs.Add(step, t, cum, s);
  }
  return s;
}

}  // namespace

// The series of a parsed log: its metric (chosen here from every key's count
// unless `s.metric` is already set), resumes, one value per step and each
// step's cost. `s` comes with its path and format.
Result<ProgressSeries> SeriesFromLog(const calib::TrainingLog& log, const std::string& origin, const ReadOptions& o,
                                     ProgressSeries s) {
  if (log.records.empty()) {
    return Fail(ErrorCode::kInvalidInput, "", origin + ": the log has no rows (nothing to fit)");
  }
  int first = std::numeric_limits<int>::max(), last = 0;
  for (const auto& r : log.records) {
    first = std::min(first, r.step);
    last = std::max(last, r.step);
  }
  s.first_step = first;
  s.last_step = last;
  if (s.metric.empty()) {  // else chosen by the caller from every key's count (the log keeps a few)
    std::map<std::string, int> counts;
    for (const auto& r : log.records) {
      for (const auto& [k, v] : r.values) counts[k]++;
    }
    if (auto ok = ChooseSeriesMetric(counts, o, origin, s); !ok) return Fail(ok.error());
  }
  // A step column that goes back: a run resumed from a checkpoint re-does
  // the steps after it (veRL and NeMo RL resume their step counter from the
  // checkpoint), so where steps repeat the later lines are the run that went
  // on; they are kept below and the resume is reported. One that goes back to
  // the log's first step or before is a second run, or a resumed run that
  // numbers its steps anew: which training step each later line is cannot be
  // told, so that is an error.
  int seen_first = std::numeric_limits<int>::max(), prev = std::numeric_limits<int>::min();
  for (const auto& r : log.records) {
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
  for (const auto& r : log.records) {
    auto it = r.values.find(s.metric);
    if (it != r.values.end()) by_step[r.step] = ProgressPoint{r.step, it->second, r.line};
    auto& m = merged[r.step];  // a step's cost keys, each the last one logged
    for (const char* k : kCostKeys) {
      if (auto v = r.values.find(k); v != r.values.end()) m[k] = v->second;
    }
  }
  for (auto& [step, p] : by_step) s.points.push_back(p);

  // What each step cost: a whole-step time when logged, else the phases
  // `calibrate` reads (ExtractPhases); GPU-hours from a cumulative column, or
  // the step time times --gpus.
  std::map<int, double> phase_s;
  if (auto phases = calib::ExtractPhases(log)) {
    for (const auto& p : *phases) phase_s[p.step] = p.step_s;
  }
  StepCosts costs{first, o.gpus};
  for (const auto& [step, v] : merged) {
    double t = Find(v, {"step_time_s", "timing_s/step", "timing/train/total_step_time"});
    if (!std::isfinite(t)) {
      auto it = phase_s.find(step);
      if (it != phase_s.end()) t = it->second;
    }
    costs.Add(step, t, Find(v, {"cum_gpu_hours", "gpu_hours"}), s);
  }
  return s;
}

Result<ProgressSeries> ReadProgressText(const std::string& raw_text, const std::string& origin, const ReadOptions& o) {
  {
    std::istringstream in(raw_text);
    std::string line;
    while (std::getline(in, line) && Skippable(line)) {
    }
    if (IsStepCsvHeader(line)) {
      in.clear();
      in.seekg(0);
      if (auto streamed = StreamStepCsv(in, origin, o)) return std::move(*streamed);
    }
  }
  const std::string text = DropComments(raw_text);
  Result<calib::TrainingLog> log = IsStepCsv(text) ? calib::log_internal::ParseWandbCsv(text, origin)
                                                   : calib::ParseTrainingLogText(text, origin);
  if (!log) return Fail(log.error());
  ProgressSeries s;
  s.path = origin;
  s.format = IsStepCsv(text) ? std::string("csv") : log->format;
  return SeriesFromLog(*log, origin, o, std::move(s));
}

// A log of lines (veRL console lines, JSON lines) streamed from the file in
// two passes: the first counts every key (which choose the metric, as on the
// whole log), the second keeps the metric and the keys a step's cost reads
// (its time, GPU-hours and the phase timers ExtractPhases sums), a few a line
// instead of the line's hundred. A 728 MB, million-line console log (25 keys a
// line): read whole, 6.65 GB resident and 199 s; streamed, 1.03 GB and 27 s
// (the kept timers and the forecast's fits).
using LineReader = Result<calib::TrainingLog> (*)(std::istream&, const std::string&, const calib::KeyFilter&);

Result<ProgressSeries> StreamLineLog(std::istream& in, const std::string& path, const ReadOptions& o, LineReader read) {
  std::map<std::string, int> counts;
  calib::KeyFilter count_only{[](std::string_view) { return false; }, &counts, true};
  auto first_pass = read(in, path, count_only);
  if (!first_pass) return Fail(first_pass.error());
  ProgressSeries s;
  s.path = path;
  s.format = first_pass->format;
  if (first_pass->records.empty()) {
    return Fail(ErrorCode::kInvalidInput, "", path + ": the log has no rows (nothing to fit)");
  }
  if (auto ok = ChooseSeriesMetric(counts, o, path, s); !ok) return Fail(ok.error());
  first_pass = calib::TrainingLog{};
  const std::string metric = s.metric;
  calib::KeyFilter keep{[&metric](std::string_view k) {
                          if (k == metric || k.rfind("timing", 0) == 0) return true;
                          for (const char* c : kCostKeys) {
                            if (k == c) return true;
                          }
                          return false;
                        },
                        nullptr, true};
  in.clear();
  in.seekg(0);
  auto log = read(in, path, keep);
  if (!log) return Fail(log.error());
  return SeriesFromLog(*log, path, o, std::move(s));
}

// True when `first_line` is one JSON line of a JSON-lines log: a whole object
// that is not a TensorBoard dump's {metric: {step: value}} (whose values are
// all objects; such a file, or one object spread over lines, is read whole).
bool IsJsonLine(std::string_view first_line) {
  const std::string_view t = calib::log_internal::Trim(first_line);
  if (t.empty() || t.front() != '{' || NestingDepth(t) > kMaxFileNesting) return false;
  const nlohmann::json j = nlohmann::json::parse(t, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || j.empty()) return false;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_object()) return true;
  }
  return false;
}

Result<ProgressSeries> ReadProgressFile(const std::string& path, const ReadOptions& o) {
  // A CSV with a step column, veRL console lines and JSON lines are streamed
  // from the file (their memory is what the forecast keeps, not the text); a
  // TensorBoard dump is read whole.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) <= kMaxLogBytes && !ec) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    while (in && std::getline(in, line) && Skippable(line)) {
    }
    if (in && IsStepCsvHeader(line)) {
      in.clear();
      in.seekg(0);
      if (auto streamed = StreamStepCsv(in, path, o)) return std::move(*streamed);
    } else if (in && calib::IsConsoleLog(line, path)) {
      in.clear();
      in.seekg(0);
      return StreamLineLog(in, path, o, calib::log_internal::ParseConsoleStream);
    } else if (in && IsJsonLine(line)) {
      in.clear();
      in.seekg(0);
      return StreamLineLog(in, path, o, calib::log_internal::ParseJsonlStream);
    }
  }
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
