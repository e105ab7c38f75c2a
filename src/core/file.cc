#include "core/file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rlcost {
namespace {

Error FileError(ErrorCode code, const std::string& path, std::string message) {
  Error e(code, "", std::move(message));
  e.problems.back().file = path;
  return e;
}

std::string Mib(uint64_t bytes) { return fmt::format("{:.0f} MiB", double(bytes) / (1 << 20)); }

}  // namespace

Result<std::string> ReadBoundedFile(const std::string& path, uint64_t max_bytes, std::string_view what) {
  // stat() first: opening a FIFO for reading would block until a writer comes.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    return Fail(FileError(ErrorCode::kNotFound, path,
                          fmt::format("{} not found or not readable ({})", what, std::strerror(err))));
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a pipe (FIFO)"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return Fail(FileError(ErrorCode::kInvalidInput, path,
                          fmt::format("cannot read the {}: it is {}; expected a regular file", what, kind)));
  }
  if (uint64_t(st.st_size) > max_bytes) {
    return Fail(FileError(ErrorCode::kInvalidInput, path,
                          fmt::format("the {} is {} bytes; expected at most {} ({} bytes)", what,
                                      uint64_t(st.st_size), Mib(max_bytes), max_bytes)));
  }
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    int err = errno;
    return Fail(FileError(ErrorCode::kNotFound, path, fmt::format("cannot open the {} ({})", what, std::strerror(err))));
  }
  std::string text;
  text.reserve(size_t(st.st_size));
  char buf[65536];
  size_t n;
  // The file may grow between stat() and the read: the bound holds regardless.
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    if (text.size() + n > max_bytes) {
      return Fail(FileError(ErrorCode::kInvalidInput, path,
                            fmt::format("the {} is larger than {}; expected at most {} bytes", what, Mib(max_bytes),
                                        max_bytes)));
    }
    text.append(buf, n);
  }
  if (std::ferror(f.get())) {
    return Fail(FileError(ErrorCode::kNotFound, path, fmt::format("error reading the {}", what)));
  }
  return text;
}

Result<void> WriteFileAtomic(const std::string& path, std::string_view text, std::string_view option) {
  struct stat st {};
  const bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  const std::string tmp = special ? path : path + ".tmp" + std::to_string(::getpid());
  auto fail = [&](int err) {
    if (!special) std::remove(tmp.c_str());
    return Fail(ErrorCode::kInvalidInput, std::string(option),
                fmt::format("cannot write '{}': {}", path, std::strerror(err)));
  };
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return fail(errno);
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int err = errno;
  bool ok = n == text.size() && std::fflush(f) == 0;
  if (!ok) err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) return fail(err ? err : EIO);
  if (!special && std::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno);
  return {};
}

}  // namespace rlcost
