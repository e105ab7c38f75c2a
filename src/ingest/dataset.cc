#include "ingest/dataset.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace rlcost::ingest {
namespace {

namespace fs = std::filesystem;

std::string TrimQuotes(std::string s) {
  const auto b = s.find_first_not_of(" \t'\"");
  const auto e = s.find_last_not_of(" \t'\"");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string ExpandHome(const std::string& p) {
  if (p.rfind("~/", 0) == 0) {
    if (const char* home = std::getenv("HOME")) return std::string(home) + p.substr(1);
  }
  return p;
}

// A reader of Thrift's compact protocol (thrift/doc/specs/thrift-compact-
// protocol.md): just enough to skip any value and read one i64 field of the
// outermost struct.
class Compact {
 public:
  Compact(const unsigned char* p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return ok_; }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return Bad();
      const unsigned char b = *p_++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return Bad();
  }
  int64_t Zigzag() {
    const uint64_t v = Varint();
    return int64_t(v >> 1) ^ -int64_t(v & 1);
  }
  void Skip(int type, int depth = 0) {
    if (depth > 64) { Bad(); return; }
    switch (type) {
      case 1: case 2: return;                   // bool inside a struct: in the header
      case 3: Bytes(1); return;                 // byte
      case 4: case 5: case 6: Varint(); return; // i16, i32, i64
      case 7: Bytes(8); return;                 // double
      case 8: Bytes(Varint()); return;          // binary
      case 9: case 10: {                        // list, set
        if (p_ >= end_) { Bad(); return; }
        const unsigned char h = *p_++;
        uint64_t n = h >> 4;
        if (n == 15) n = Varint();
        const int et = h & 0x0f;
        for (uint64_t i = 0; i < n && ok_; ++i) et == 1 || et == 2 ? Bytes(1) : Skip(et, depth + 1);
        return;
      }
      case 11: {  // map
        const uint64_t n = Varint();
        if (n == 0) return;
        if (p_ >= end_) { Bad(); return; }
        const unsigned char kv = *p_++;
        for (uint64_t i = 0; i < n && ok_; ++i) {
          Skip(kv >> 4, depth + 1);
          Skip(kv & 0x0f, depth + 1);
        }
        return;
      }
      case 12: Struct(-1, nullptr, depth + 1); return;
      default: Bad();
    }
  }
  // Reads a struct; when field `want` (an i64) is met, stores it in *out.
  void Struct(int want, std::optional<int64_t>* out, int depth = 0) {
    int id = 0;
    while (ok_) {
      if (p_ >= end_) { Bad(); return; }
      const unsigned char h = *p_++;
      if (h == 0) return;  // stop
      const int type = h & 0x0f, delta = h >> 4;
      id = delta ? id + delta : int(Zigzag());
      if (out && id == want && type == 6) {
        *out = Zigzag();
      } else {
        Skip(type, depth);
      }
    }
  }

 private:
  uint64_t Bad() {
    ok_ = false;
    p_ = end_;
    return 0;
  }
  void Bytes(uint64_t n) {
    if (uint64_t(end_ - p_) < n) { Bad(); return; }
    p_ += n;
  }
  const unsigned char* p_;
  const unsigned char* end_;
  bool ok_ = true;
};

std::optional<long long> CountLines(const std::string& path, bool header) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  long long n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) ++n;
  }
  return header ? std::max(0LL, n - 1) : n;
}

// Public datasets a quickstart names, by their published split sizes, for
// when the file is not on this machine: GSM8K (openai/grade-school-math
// grade_school_math/data/train.jsonl 7,473 lines, test.jsonl 1,319; the
// openai/gsm8k "main" splits veRL's examples/data_preprocess/gsm8k.py
// writes to train.parquet and test.parquet).
std::optional<std::pair<long long, std::string>> Known(const std::string& written) {
  std::string lower = written;
  for (auto& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  const std::string stem = fs::path(lower).stem().string();
  if (lower.find("gsm8k") != std::string::npos) {
    if (stem == "train") return std::pair{7473LL, std::string("GSM8K's train split (openai/grade-school-math)")};
    if (stem == "test") return std::pair{1319LL, std::string("GSM8K's test split (openai/grade-school-math)")};
  }
  return std::nullopt;
}

DatasetCount One(const std::string& written) {
  const std::string path = ExpandHome(TrimQuotes(written));
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    if (auto k = Known(written)) {
      return {k->first, fmt::format("{} is not on this machine; {} has {} rows", written, k->second, k->first),
              true};
    }
    return {std::nullopt, fmt::format("{} is not on this machine", written)};
  }
  const std::string ext = fs::path(path).extension().string();
  std::optional<long long> rows;
  std::string how;
  if (ext == ".parquet") {
    rows = ParquetRows(path);
    how = "its Parquet footer";
  } else if (ext == ".jsonl") {
    rows = CountLines(path, false);
    how = "its lines";
  } else if (ext == ".csv") {
    rows = CountLines(path, true);
    how = "its lines less the header";
  } else {
    return {std::nullopt, fmt::format("{} is a {} file, which rlcost does not count (it counts .parquet, .jsonl, "
                                      ".csv)",
                                      written, ext.empty() ? "extension-less" : ext)};
  }
  if (!rows) return {std::nullopt, fmt::format("{} could not be read as {}", written, ext.substr(1))};
  return {rows, fmt::format("{} rows in {} ({})", *rows, written, how)};
}

}  // namespace

std::optional<long long> ParquetRows(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const std::streamoff size = in.tellg();
  if (size < 12) return std::nullopt;
  unsigned char tail[8];
  in.seekg(size - 8);
  if (!in.read(reinterpret_cast<char*>(tail), 8)) return std::nullopt;
  if (tail[4] != 'P' || tail[5] != 'A' || tail[6] != 'R' || tail[7] != '1') return std::nullopt;
  const uint32_t len = uint32_t(tail[0]) | uint32_t(tail[1]) << 8 | uint32_t(tail[2]) << 16 | uint32_t(tail[3]) << 24;
  if (len == 0 || std::streamoff(len) > size - 12) return std::nullopt;
  std::vector<unsigned char> meta(len);
  in.seekg(size - 8 - std::streamoff(len));
  if (!in.read(reinterpret_cast<char*>(meta.data()), len)) return std::nullopt;
  Compact c(meta.data(), meta.size());
  std::optional<int64_t> rows;
  c.Struct(3, &rows);  // FileMetaData: 1 version, 2 schema, 3 num_rows
  if (!c.ok() || !rows || *rows < 0) return std::nullopt;
  return *rows;
}

DatasetCount DatasetRows(const std::string& path_or_list) {
  std::string s = TrimQuotes(path_or_list);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  std::vector<std::string> files;
  for (size_t start = 0;;) {
    const size_t comma = s.find(',', start);
    std::string f = TrimQuotes(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (!f.empty()) files.push_back(f);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (files.empty()) return {std::nullopt, "no dataset file named"};
  if (files.size() == 1) return One(files[0]);
  long long total = 0;
  bool assumed = false;
  std::string how;
  for (const auto& f : files) {
    DatasetCount c = One(f);
    if (!c.rows) return c;
    total += *c.rows;
    assumed = assumed || c.assumed;
    how += (how.empty() ? "" : " + ") + c.how;
  }
  return {total, how, assumed};
}

}  // namespace rlcost::ingest
