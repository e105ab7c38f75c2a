#include "explore/store.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "core/file.h"

namespace rlcost::explore {
namespace {

namespace fs = std::filesystem;

Error WriteError(const std::string& flag, const std::string& path, const std::string& why) {
  Error e(ErrorCode::kInvalidInput, "", "cannot write '" + path + "': " + why);
  e.problems.back().file = flag;
  return e;
}

std::string TempPath(const std::string& path) { return path + ".partial-" + std::to_string(::getpid()); }

// Checks the target before anything is written: not a directory, its folder exists.
Result<void> CheckTarget(const std::string& flag, const std::string& path) {
  std::error_code ec;
  if (path.empty()) return Fail(WriteError(flag, path, "empty file name"));
  if (fs::is_directory(path, ec)) return Fail(WriteError(flag, path, "it is a directory; expected a file name"));
  // The rows are written beside the target and renamed over it: only over a
  // regular file (a device node such as /dev/null must not become one).
  if (std::string kind = NonRegularKind(path); !kind.empty()) {
    return Fail(WriteError(flag, path, "it is " + kind + "; expected a regular file name"));
  }
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec)) {
    return Fail(WriteError(flag, path, "folder '" + dir.string() + "' does not exist"));
  }
  return {};
}

Result<void> MoveIntoPlace(const std::string& flag, const std::string& tmp, const std::string& path) {
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return Fail(WriteError(flag, path, ec.message()));
  }
  return {};
}

// A varied value as a typed cell: integer, real, or text.
struct Cell {
  enum Kind { kInt, kReal, kText } kind = kText;
  int64_t i = 0;
  double d = 0;
};
Cell Classify(const std::string& v) {
  Cell c;
  const char* b = v.data();
  const char* e = b + v.size();
  if (auto [p, ec] = std::from_chars(b, e, c.i); ec == std::errc() && p == e && !v.empty()) {
    c.kind = Cell::kInt;
    return c;
  }
  if (auto [p, ec] = std::from_chars(b, e, c.d); ec == std::errc() && p == e && !v.empty() && std::isfinite(c.d)) {
    c.kind = Cell::kReal;
    return c;
  }
  return c;
}

std::optional<double> Finite(const std::optional<double>& v) {
  if (v && std::isfinite(*v)) return v;
  return std::nullopt;
}

std::string Quote(std::string_view name) {  // SQL identifier
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Shortest(double v) {
  char buf[32];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, p);
}

// ---- SQLite -----------------------------------------------------------------

class SqliteWriter : public RowWriter {
 public:
  ~SqliteWriter() override {
    if (insert_) sqlite3_finalize(insert_);
    if (db_) sqlite3_close(db_);
    if (!closed_) {
      std::error_code ec;
      fs::remove(tmp_, ec);
    }
  }

  Result<void> Open(const std::string& path, const StoreHeader& h, const std::string& flag) {
    path_ = path;
    flag_ = flag;
    tmp_ = TempPath(path);
    header_ = h;
    std::error_code ec;
    fs::remove(tmp_, ec);
    if (sqlite3_open_v2(tmp_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
      return Fail(WriteError(flag, path, db_ ? sqlite3_errmsg(db_) : "cannot open a database"));
    }
    std::string cols = "point INTEGER PRIMARY KEY";
    std::string placeholders = "?";
    for (const auto& k : h.keys) {
      cols += ", " + Quote(k);
      placeholders += ",?";
    }
    cols += ", status TEXT NOT NULL, reason TEXT";
    placeholders += ",?,?";
    for (const auto* m : h.metrics) {
      cols += ", " + Quote(m->key) + " REAL";
      placeholders += ",?";
    }
    goal_column_ = HasGoalMetric(h.metrics);
    if (goal_column_) {
      cols += ", goal_curve TEXT";
      placeholders += ",?";
    }
    cols += ", note TEXT";  // explore::PointRow::note; NULL when nothing to say
    placeholders += ",?";
    if (auto ok = Exec("PRAGMA synchronous=OFF; PRAGMA journal_mode=DELETE;"); !ok) return ok;
    if (auto ok = Exec("CREATE TABLE points(" + cols + ");"); !ok) return ok;
    if (auto ok = Exec("CREATE TABLE sweep(key TEXT PRIMARY KEY, value TEXT);"); !ok) return ok;
    if (auto ok = Exec("CREATE TABLE metrics(name TEXT PRIMARY KEY, unit TEXT, description TEXT);"); !ok) return ok;
    for (const auto* m : h.metrics) {
      if (auto ok = Put("metrics", {std::string(m->key), std::string(m->unit), std::string(m->description)}); !ok)
        return ok;
    }
    const std::pair<const char*, std::string> meta[] = {
        {"rlcost_version", h.rlcost_version},  {"scenario_file", h.scenario_file},
        {"scenario_text", h.scenario_text},    {"command_line", h.command_line},
        {"engine", h.engine},                  {"points_planned", std::to_string(h.points_planned)},
        {"points_written", "0"},               {"complete", "0"},
        {"goal_curve_is_illustrative", "0"}};
    for (const auto& [k, v] : meta) {
      if (auto ok = Put("sweep", {k, v}); !ok) return ok;
    }
    const std::string sql = "INSERT INTO points VALUES(" + placeholders + ");";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &insert_, nullptr) != SQLITE_OK) return Fail(DbError());
    if (auto ok = Exec("BEGIN;"); !ok) return ok;
    last_commit_ = std::chrono::steady_clock::now();
    return {};
  }

  Result<void> Write(const PointRow& row) override {
    int col = 1;
    sqlite3_reset(insert_);
    sqlite3_bind_int64(insert_, col++, static_cast<sqlite3_int64>(row.index));
    for (const auto& v : row.values) {
      const Cell c = Classify(v);
      if (c.kind == Cell::kInt) sqlite3_bind_int64(insert_, col++, c.i);
      else if (c.kind == Cell::kReal) sqlite3_bind_double(insert_, col++, c.d);
      else sqlite3_bind_text(insert_, col++, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    }
    const std::string_view status = ToString(row.status);
    sqlite3_bind_text(insert_, col++, status.data(), static_cast<int>(status.size()), SQLITE_TRANSIENT);
    if (row.reason.empty()) sqlite3_bind_null(insert_, col++);
    else sqlite3_bind_text(insert_, col++, row.reason.c_str(), static_cast<int>(row.reason.size()), SQLITE_TRANSIENT);
    for (const auto& m : row.metrics) {
      if (auto v = Finite(m)) sqlite3_bind_double(insert_, col++, *v);
      else sqlite3_bind_null(insert_, col++);
    }
    if (goal_column_) {
      if (row.goal_curve.empty()) sqlite3_bind_null(insert_, col++);
      else sqlite3_bind_text(insert_, col++, row.goal_curve.c_str(), static_cast<int>(row.goal_curve.size()), SQLITE_TRANSIENT);
      illustrative_ = illustrative_ || row.goal_curve == kIllustrativeCurve;
    }
    if (row.note.empty()) sqlite3_bind_null(insert_, col++);
    else sqlite3_bind_text(insert_, col++, row.note.c_str(), static_cast<int>(row.note.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(insert_) != SQLITE_DONE) return Fail(DbError());
    ++written_;
    // Commit about twice a second, so a stop loses nothing already computed.
    const auto now = std::chrono::steady_clock::now();
    if (now - last_commit_ > std::chrono::milliseconds(500)) {
      last_commit_ = now;
      if (auto ok = Exec("COMMIT; BEGIN;"); !ok) return ok;
    }
    return {};
  }

  Result<void> Close(bool complete) override {
    if (auto ok = Exec("COMMIT;"); !ok) return ok;
    if (auto ok = Exec("UPDATE sweep SET value = '" + std::to_string(written_) + "' WHERE key = 'points_written';" +
                       "UPDATE sweep SET value = '" + (complete ? "1" : "0") + "' WHERE key = 'complete';" +
                       "UPDATE sweep SET value = '" + (illustrative_ ? "1" : "0") +
                       "' WHERE key = 'goal_curve_is_illustrative';");
        !ok)
      return ok;
    sqlite3_finalize(insert_);
    insert_ = nullptr;
    if (sqlite3_close(db_) != SQLITE_OK) return Fail(DbError());
    db_ = nullptr;
    closed_ = true;
    return MoveIntoPlace(flag_, tmp_, path_);
  }

 private:
  Error DbError() { return WriteError(flag_, path_, db_ ? sqlite3_errmsg(db_) : "database error"); }
  Result<void> Exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string why = msg ? msg : "database error";
      sqlite3_free(msg);
      return Fail(WriteError(flag_, path_, why));
    }
    return {};
  }
  Result<void> Put(const char* table, const std::vector<std::string>& values) {
    std::string sql = std::string("INSERT INTO ") + table + " VALUES(";
    for (size_t i = 0; i < values.size(); ++i) sql += i ? ",?" : "?";
    sql += ");";
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return Fail(DbError());
    for (size_t i = 0; i < values.size(); ++i) {
      sqlite3_bind_text(st, static_cast<int>(i + 1), values[i].c_str(), static_cast<int>(values[i].size()),
                        SQLITE_TRANSIENT);
    }
    const int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return Fail(DbError());
    return {};
  }

  std::string path_, flag_, tmp_;
  StoreHeader header_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  uint64_t written_ = 0;
  bool closed_ = false;
  bool goal_column_ = false;   // the columns hold a goal figure: column goal_curve
  bool illustrative_ = false;  // a row's goal figures rest on the illustrative curve
  std::chrono::steady_clock::time_point last_commit_;
};

// ---- CSV and JSON Lines -----------------------------------------------------

class TextWriter : public RowWriter {
 public:
  explicit TextWriter(StoreFormat f) : format_(f) {}
  ~TextWriter() override {
    if (!closed_) {
      out_.close();
      std::error_code ec;
      fs::remove(tmp_, ec);
    }
  }

  Result<void> Open(const std::string& path, const StoreHeader& h, const std::string& flag) {
    path_ = path;
    flag_ = flag;
    tmp_ = TempPath(path);
    header_ = h;
    goal_column_ = HasGoalMetric(h.metrics);
    out_.open(tmp_, std::ios::binary | std::ios::trunc);
    if (!out_) return Fail(WriteError(flag, path, std::strerror(errno)));
    if (format_ == StoreFormat::kCsv) {
      out_ << "point";
      for (const auto& k : h.keys) out_ << "," << CsvField(k);
      out_ << ",status,reason";
      for (const auto* m : h.metrics) out_ << "," << CsvField(m->key);
      if (goal_column_) out_ << ",goal_curve";
      out_ << ",note\n";
    }
    if (!out_) return Fail(WriteError(flag, path, std::strerror(errno)));
    return {};
  }

  Result<void> Write(const PointRow& row) override {
    if (format_ == StoreFormat::kCsv) {
      out_ << row.index;
      for (const auto& v : row.values) out_ << "," << CsvField(v);
      out_ << "," << CsvField(ToString(row.status)) << "," << CsvField(row.reason);
      for (const auto& m : row.metrics) {
        out_ << ",";
        if (auto v = Finite(m)) out_ << Shortest(*v);
      }
      if (goal_column_) out_ << "," << CsvField(row.goal_curve);
      out_ << "," << CsvField(row.note) << "\n";
    } else {
      nlohmann::ordered_json j = RowToJson(header_.keys, header_.metrics, row);
      out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    if (!out_) return Fail(WriteError(flag_, path_, std::strerror(errno)));
    return {};
  }

  Result<void> Close(bool complete) override {
    out_.close();
    closed_ = true;
    if (!out_) {
      std::error_code ec;
      fs::remove(tmp_, ec);
      return Fail(WriteError(flag_, path_, std::strerror(errno)));
    }
    return MoveIntoPlace(flag_, tmp_, path_);
  }

 private:
  StoreFormat format_;
  std::string path_, flag_, tmp_;
  StoreHeader header_;
  std::ofstream out_;
  bool closed_ = false;
  bool goal_column_ = false;  // the columns hold a goal figure: column goal_curve
};

}  // namespace

nlohmann::ordered_json RowToJson(const std::vector<std::string>& keys, const std::vector<const MetricDef*>& metrics,
                                 const PointRow& row) {
  nlohmann::ordered_json j;
  j["point"] = row.index;
  for (size_t k = 0; k < row.values.size(); ++k) {
    const Cell c = Classify(row.values[k]);
    auto& cell = j[keys[k]];
    if (c.kind == Cell::kInt) cell = c.i;
    else if (c.kind == Cell::kReal) cell = c.d;
    else cell = row.values[k];
  }
  j["status"] = ToString(row.status);
  j["reason"] = row.reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.reason);
  for (size_t m = 0; m < row.metrics.size(); ++m) {
    auto v = Finite(row.metrics[m]);
    j[std::string(metrics[m]->key)] = v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  }
  if (HasGoalMetric(metrics)) {
    j["goal_curve"] = row.goal_curve.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.goal_curve);
  }
  j["note"] = row.note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.note);
  return j;
}

Result<std::unique_ptr<RowWriter>> OpenWriter(StoreFormat format, const std::string& path, const StoreHeader& header,
                                              const std::string& flag) {
  if (auto ok = CheckTarget(flag, path); !ok) return Fail(ok.error());
  if (format == StoreFormat::kSqlite) {
    auto w = std::make_unique<SqliteWriter>();
    if (auto ok = w->Open(path, header, flag); !ok) return Fail(ok.error());
    return std::unique_ptr<RowWriter>(std::move(w));
  }
  auto w = std::make_unique<TextWriter>(format);
  if (auto ok = w->Open(path, header, flag); !ok) return Fail(ok.error());
  return std::unique_ptr<RowWriter>(std::move(w));
}

}  // namespace rlcost::explore
