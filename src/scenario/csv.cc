#include "scenario/csv.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/file.h"

namespace rlcost::scenario_internal {
namespace {

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out(s.substr(b, e - b));
  if (out.size() >= 2 && out.front() == '"' && out.back() == '"') out = out.substr(1, out.size() - 2);
  return out;
}

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    cells.push_back(Trim(std::string_view(line).substr(start, comma == std::string::npos ? std::string::npos
                                                                                          : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

}  // namespace

bool ParseNumber(std::string_view s, double& out) {
  std::string t = Trim(s);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v)) return false;
  out = v;
  return true;
}

int CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i].size() != name.size()) continue;
    bool eq = true;
    for (size_t j = 0; j < name.size() && eq; ++j)
      eq = std::tolower(static_cast<unsigned char>(header[i][j])) == std::tolower(static_cast<unsigned char>(name[j]));
    if (eq) return static_cast<int>(i);
  }
  return -1;
}

tl::expected<CsvTable, std::string> ReadCsv(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxTableBytes, "table");
  if (!text) return tl::unexpected(text.error().problems.front().message + " ('" + path + "')");
  std::istringstream in(std::move(*text));
  CsvTable t;
  std::string line;
  int lineno = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line = line.substr(3);  // UTF-8 byte-order mark
    std::string trimmed = Trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    std::vector<std::string> cells = Split(line);
    if (first) {
      first = false;
      bool numeric = true;
      double v;
      for (const auto& c : cells) numeric = numeric && ParseNumber(c, v);
      if (!numeric) {
        t.header = std::move(cells);
        continue;
      }
    }
    t.rows.push_back(std::move(cells));
    t.lines.push_back(lineno);
  }
  if (in.bad()) return tl::unexpected("error while reading '" + path + "'");
  return t;
}

}  // namespace rlcost::scenario_internal
