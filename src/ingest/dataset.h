// Internal to src/ingest: how many rows (prompts) a training config's dataset
// holds, read from the file when it is on this machine.
//
//   auto n = DatasetRows("~/data/gsm8k/train.parquet");
//   if (n.rows) steps = epochs * (*n.rows / batch);   // n.how says where it came from
#pragma once

#include <optional>
#include <string>

namespace rlcost::ingest {

struct DatasetCount {
  std::optional<long long> rows;  // absent: the file is not here or cannot be counted
  std::string how;                // "1319 rows in ~/data/gsm8k/test.parquet (its Parquet footer)" or why not
  bool assumed = false;           // the file is not here: a public dataset's published size stands in
};

// Rows of a local dataset file: .parquet (the footer's num_rows), .jsonl
// (non-empty lines), .csv (lines less the header). `~/` is the home folder.
// A list written as "[a, b]" (veRL's train_files) is the sum of its files.
// A file not on this machine that names a public dataset whose split sizes
// are published (GSM8K) counts as that size, marked `assumed`.
DatasetCount DatasetRows(const std::string& path_or_list);

// Parquet FileMetaData.num_rows from a file's footer (the Thrift compact
// encoding of parquet-format's parquet.thrift: field 3, i64), or nothing when
// the bytes are not a Parquet footer.
std::optional<long long> ParquetRows(const std::string& path);

}  // namespace rlcost::ingest
