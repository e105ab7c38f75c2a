// Reading a request and sending an answer: the body and its fields, errors
// as JSON, bodies bounded as they arrive, and the cache of the deterministic
// endpoints' answers.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/problems.h"
#include "report/report.h"
#include "serve/server_parts.h"

namespace rlcost::serve {

bool ResponseCache::Get(const std::string& key, std::string* body) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++misses_;
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  *body = it->second->second;
  ++hits_;
  return true;
}

void ResponseCache::Put(const std::string& key, const std::string& body) {
  const size_t size = key.size() + body.size();
  if (size > max_bytes_ / 4) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (index_.count(key)) return;
  lru_.emplace_front(key, body);
  index_[key] = lru_.begin();
  bytes_ += size;
  while (bytes_ > max_bytes_ && !lru_.empty()) {
    auto& last = lru_.back();
    bytes_ -= last.first.size() + last.second.size();
    index_.erase(last.first);
    lru_.pop_back();
  }
}

nlohmann::json ResponseCache::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  return {{"entries", lru_.size()}, {"bytes", bytes_}, {"hits", hits_}, {"misses", misses_}};
}


// Wraps a handler of a deterministic endpoint with the cache (when there is one).
httplib::Server::Handler Cached(std::shared_ptr<ResponseCache> cache, httplib::Server::Handler h) {
  if (!cache) return h;
  return [cache, h](const httplib::Request& req, httplib::Response& res) {
    std::string key = req.path + '\n' + req.get_header_value("Content-Type") + '\n' + req.body;
    std::string body;
    if (cache->Get(key, &body)) {
      res.set_content(std::move(body), "application/json");
      return;
    }
    h(req, res);
    if (res.status == 200 || res.status == -1) cache->Put(key, res.body);
  };
}

int StatusOf(ErrorCode c) {
  switch (c) {
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNotFound: return 400;
    case ErrorCode::kDoesNotFit: return 422;
    case ErrorCode::kNotImplemented: return 501;
    case ErrorCode::kInternal: return 500;
  }
  return 500;
}

std::string Compact(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void SendError(httplib::Response& res, int status, const Error& e) {
  res.status = status;
  if (e.problems.size() > kMaxProblems + 1) {  // an answer stays small (one more: a loader's own count of the rest)
    Error capped;
    capped.code = e.code;
    capped.problems.assign(e.problems.begin(), e.problems.begin() + kMaxProblems);
    capped.problems.push_back(MoreProblems(e.problems.size() - kMaxProblems));
    return res.set_content(Compact(report::ErrorToJson(capped)), "application/json");
  }
  res.set_content(Compact(report::ErrorToJson(e)), "application/json");
}

// An error of the HTTP layer itself: `code` is "busy", "too_slow", "too_large"...
void SendHttpError(httplib::Response& res, int status, std::string_view code, std::string path, std::string message) {
  nlohmann::json j = report::ErrorToJson(Error(ErrorCode::kInvalidInput, std::move(path), std::move(message)));
  j["error"]["code"] = code;
  res.status = status;
  res.set_content(Compact(j), "application/json");
}

void SendError(httplib::Response& res, int status, ErrorCode code, std::string path, std::string message) {
  SendError(res, status, Error(code, std::move(path), std::move(message)));
}

// The body's media type, lower case, without parameters ("; charset=utf-8").
std::string MediaType(const httplib::Request& req) {
  std::string ct = req.get_header_value("Content-Type");
  ct = ct.substr(0, ct.find(';'));
  while (!ct.empty() && (ct.back() == ' ' || ct.back() == '\t')) ct.pop_back();
  size_t b = ct.find_first_not_of(" \t");
  ct = b == std::string::npos ? "" : ct.substr(b);
  for (char& c : ct) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ct;
}

bool IsJsonType(const std::string& t) { return t == "application/json"; }
bool IsYamlType(const std::string& t) {
  return t == "application/yaml" || t == "application/x-yaml" || t == "text/yaml" || t == "text/x-yaml";
}

// Reads the body (ops::ParseRequestBody, which the request fuzz target drives
// too). Its type was checked before it was read (415 otherwise: PreRoute).
Result<Parsed> ParseBody(const httplib::Request& req, std::initializer_list<std::string_view> allowed) {
  return ops::ParseRequestBody(req.body, IsYamlType(MediaType(req)), allowed);
}

Result<long long> Int(const nlohmann::json& f, const char* key, long long def, long long lo, long long hi) {
  if (!f.contains(key)) return def;
  const auto& v = f.at(key);
  if (!v.is_number_integer()) return Fail(ErrorCode::kInvalidInput, key, "expected an integer, got " + Compact(v));
  // nlohmann keeps a non-negative integer as unsigned: compared as such, and
  // the message shows the value sent (not a clamped one).
  bool in_range = false;
  if (v.is_number_unsigned()) {
    const unsigned long long u = v.get<unsigned long long>();
    in_range = u <= static_cast<unsigned long long>(hi) && (lo <= 0 || u >= static_cast<unsigned long long>(lo));
  } else {
    const long long x = v.get<long long>();
    in_range = x >= lo && x <= hi;
  }
  if (!in_range) {
    return Fail(ErrorCode::kInvalidInput, key,
                Compact(v) + " is out of range; expected " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return v.get<long long>();
}

Result<std::string> Str(const nlohmann::json& f, const char* key, std::string def) {
  if (!f.contains(key)) return def;
  if (!f.at(key).is_string()) return Fail(ErrorCode::kInvalidInput, key, "expected a string, got " + Compact(f.at(key)));
  return f.at(key).get<std::string>();
}

// A number that may be left out (nullopt); its range is checked where it is used.
Result<std::optional<double>> OptNumber(const nlohmann::json& f, const char* key) {
  if (!f.contains(key) || f.at(key).is_null()) return std::optional<double>();
  if (!f.at(key).is_number()) return Fail(ErrorCode::kInvalidInput, key, "expected a number, got " + Compact(f.at(key)));
  return std::optional<double>(f.at(key).get<double>());
}

Result<bool> Bool(const nlohmann::json& f, const char* key, bool def) {
  if (!f.contains(key)) return def;
  if (!f.at(key).is_boolean()) return Fail(ErrorCode::kInvalidInput, key, "expected true or false, got " + Compact(f.at(key)));
  return f.at(key).get<bool>();
}

// A list of catalog ids, each named once, at most `max` of them.
Result<std::vector<std::string>> StrList(const nlohmann::json& f, const char* key, size_t max) {
  std::vector<std::string> out;
  if (!f.contains(key)) return out;
  const auto& v = f.at(key);
  if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
  if (!v.is_array()) return Fail(ErrorCode::kInvalidInput, key, "expected a list of catalog ids");
  if (v.size() > max) {
    return Fail(ErrorCode::kInvalidInput, key,
                std::to_string(v.size()) + " ids; at most " + std::to_string(max) + " in one request");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string at = std::string(key) + "[" + std::to_string(i) + "]";
    if (!v[i].is_string()) return Fail(ErrorCode::kInvalidInput, at, "expected a catalog id");
    if (!seen.insert(v[i].get<std::string>()).second) {
      return Fail(ErrorCode::kInvalidInput, at, "'" + v[i].get<std::string>() + "' is listed twice; name each once");
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

void SendTooLarge(httplib::Response& res) {
  res.set_header("Connection", "close");
  SendHttpError(res, 413, "too_large", "",
                "request body too large: at most " + std::to_string(kMaxBodyBytes >> 20) +
                    " MiB (as sent, chunked or not, and once decompressed)");
}

// A POST handler that reads its body itself, as it arrives, and stops at
// kMaxBodyBytes: cpp-httplib 0.11 bounds a body by its Content-Length only,
// so a chunked (or gzip-encoded) body would otherwise be read whole.
httplib::Server::HandlerWithContentReader ReadBounded(httplib::Server::Handler h) {
  return [h](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    std::string body;
    bool over = false;
    const bool ok = reader([&](const char* data, size_t n) {
      if (n > kMaxBodyBytes - body.size()) {
        over = true;
        return false;
      }
      body.append(data, n);
      return true;
    });
    if (over || res.status == 413) {
      t_close = true;
      res.status = -1;
      return SendTooLarge(res);
    }
    if (!ok) {
      t_close = true;
      res.set_header("Connection", "close");
      if (t_deadline_passed) {
        return SendHttpError(res, 408, "too_slow", "", "the request did not arrive in time; send it whole, promptly");
      }
      return SendHttpError(res, 400, "invalid_input", "",
                           "the request body could not be read (malformed chunked or compressed encoding)");
    }
    httplib::Request r = req;
    r.body = std::move(body);
    h(r, res);
  };
}

}  // namespace rlcost::serve
