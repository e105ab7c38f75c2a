// Internal: the small CSV files a scenario may point at (per-task pass rates
// from a pilot evaluation, empirical length samples). Comma-separated, an
// optional header row, '#' comment lines and blank lines skipped, cells trimmed
// and stripped of surrounding double quotes.
//
//   auto t = scenario_internal::ReadCsv("pilot_pass_rates.csv");
//   int col = t->Column("pass_rate");
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace rlcost::scenario_internal {

struct CsvTable {
  std::vector<std::string> header;             // empty when the file has none
  std::vector<std::vector<std::string>> rows;  // data rows
  std::vector<int> lines;                      // 1-based file line of each row
  // Index of a header column (case-insensitive), -1 when absent.
  int Column(std::string_view name) const;
};

// A header is present when any cell of the first row is not a number.
tl::expected<CsvTable, std::string> ReadCsv(const std::string& path);
// The whole of `s` (trimmed) as a finite number.
bool ParseNumber(std::string_view s, double& out);

}  // namespace rlcost::scenario_internal
