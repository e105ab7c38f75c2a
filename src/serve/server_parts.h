// What the files of the server share (serve/serve.cc lists them): its
// limits, the connection of the current worker thread, the computation
// slots, reading a request and sending an answer, the router.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <initializer_list>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "api/ops.h"
#include "api/serve_request.h"
#include "serve/openapi.h"
#include "serve/slots.h"

namespace rlcost::serve {

using ops::ServeRequest;

inline constexpr size_t kMaxBodyBytes = 1 << 20;
inline constexpr int kMaxSimSteps = 20;
inline constexpr int kDefaultSimSteps = 3;
inline constexpr int kMaxSimsRunning = 4;       // simulations in flight, those past their 504 included
inline constexpr int kMaxSweepsRunning = 2;     // sweeps in flight; each computes on one thread
// Estimates, waterfalls and price cards in flight: each a few milliseconds
// of one core, so 16 leave workers free for /v1/health and the rest.
inline constexpr int kMaxAnalyticRunning = 16;
// Forecasts (a log read whole: up to ~75 MB for a 1 MiB log) and HTML
// reports (every view of a scenario) in flight: 4 keep a burst of them
// under a few hundred MB (docs/performance.md, "Load").
inline constexpr int kMaxHeavyRunning = 4;
inline constexpr int kListenBacklog = 1024;     // cpp-httplib 0.11 compiles in 5
// /v1/price rows (models x GPUs): the built-in catalog's every model on every
// GPU is a few hundred; 1,000 rows answer in about 1 MB.
inline constexpr size_t kMaxPriceRows = 1000;
inline constexpr size_t kMaxSweepMetrics = 64;  // columns of /v1/sweep; each named once

// The connection the current worker thread serves (GuardedServer), for the
// handlers: whether the client has gone, and to close it after an answer.
extern thread_local int t_sock;
extern thread_local bool t_close;        // close the connection after this answer
extern thread_local bool t_deadline_passed;  // the request did not arrive in time

// Set on the threads that answer every request with 503 (queue full).
extern thread_local bool t_overflow;

// --- Connections (connections.cc) ---

// cpp-httplib's server with each request read under a deadline, idle
// connections waiting without a worker, and a bounded pool of `threads`
// workers with `queue` connections waiting (503 beyond).
std::unique_ptr<httplib::Server> MakeGuardedServer(int request_timeout_ms, int header_timeout_ms, int keep_alive_ms,
                                                   int threads, int queue);
size_t QueuedConnections();   // waiting for a worker
size_t WaitingConnections();  // waiting for their next request, without a worker
// True when the client of this worker's connection has closed it (or reset
// it): its answer is no longer wanted.
bool ClientGone();

// Computations in flight, each on a thread of its own (serve/slots.h); those
// past their 504 count until they stop.
extern serve::Slots g_sims;
extern serve::Slots g_sweeps;
extern serve::Slots g_analytic;
extern serve::Slots g_heavy;

// --- Requests and answers (http_io.cc) ---

// Answers of the deterministic endpoints (estimate, waterfall, price), keyed
// by endpoint, content type and body: the same request always gets the same
// bytes, so a repeat (a calculator page re-asking, a shared link opened by
// many) is served from here. Least recently used first out, bounded in bytes.
class ResponseCache {
 public:
  explicit ResponseCache(size_t max_bytes) : max_bytes_(max_bytes) {}
  bool Get(const std::string& key, std::string* body);
  void Put(const std::string& key, const std::string& body);
  nlohmann::json Stats();

 private:
  size_t max_bytes_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::string>> lru_;
  std::unordered_map<std::string, std::list<std::pair<std::string, std::string>>::iterator> index_;
  size_t bytes_ = 0;
  unsigned long long hits_ = 0, misses_ = 0;
};

// Wraps a handler of a deterministic endpoint with the cache (when there is one).
httplib::Server::Handler Cached(std::shared_ptr<ResponseCache> cache, httplib::Server::Handler h);

int StatusOf(ErrorCode c);
std::string Compact(const nlohmann::json& j);
void SendError(httplib::Response& res, int status, const Error& e);
// An error of the HTTP layer itself: `code` is "busy", "too_slow", "too_large"...
void SendHttpError(httplib::Response& res, int status, std::string_view code, std::string path, std::string message);
void SendError(httplib::Response& res, int status, ErrorCode code, std::string path, std::string message);
template <typename T>
void Send(httplib::Response& res, const Result<T>& r) {
  if (!r) return SendError(res, StatusOf(r.error().code), r.error());
  res.set_content(Compact(*r), "application/json");
}

using Parsed = ops::RequestBody;

// The body's media type, lower case, without parameters ("; charset=utf-8").
std::string MediaType(const httplib::Request& req);
bool IsJsonType(const std::string& t);
bool IsYamlType(const std::string& t);
// Reads the body (ops::ParseRequestBody, which the request fuzz target drives
// too). Its type was checked before it was read (415 otherwise: PreRoute).
Result<Parsed> ParseBody(const httplib::Request& req, std::initializer_list<std::string_view> allowed);
Result<long long> Int(const nlohmann::json& f, const char* key, long long def, long long lo, long long hi);
Result<std::string> Str(const nlohmann::json& f, const char* key, std::string def);
// A number that may be left out (nullopt); its range is checked where it is used.
Result<std::optional<double>> OptNumber(const nlohmann::json& f, const char* key);
Result<bool> Bool(const nlohmann::json& f, const char* key, bool def);
// A list of catalog ids, each named once, at most `max` of them.
Result<std::vector<std::string>> StrList(const nlohmann::json& f, const char* key, size_t max);

#define RLCOST_TRY(var, expr)                                                         \
  auto var = (expr);                                                                  \
  if (!var) return SendError(res, StatusOf(var.error().code), var.error())

void SendTooLarge(httplib::Response& res);
// A POST handler that reads its body itself, as it arrives, and stops at
// kMaxBodyBytes: cpp-httplib 0.11 bounds a body by its Content-Length only,
// so a chunked (or gzip-encoded) body would otherwise be read whole.
httplib::Server::HandlerWithContentReader ReadBounded(httplib::Server::Handler h);

// --- Routing and bounded computations (handlers.cc) ---

// Registers the routes, each only if the OpenAPI document (serve/openapi.h)
// lists it with its method, so the document and the server cannot differ;
// knows each path's methods (405 with Allow for another method).
class Router {
 public:
  explicit Router(httplib::Server& svr) : svr_(svr), doc_(nlohmann::json::parse(kOpenApiJson)) {}

  void Get(const std::string& path, httplib::Server::Handler h) {
    Check("get", path);
    svr_.Get(path, std::move(h));
  }
  void Post(const std::string& path, httplib::Server::Handler h) {
    Check("post", path);
    svr_.Post(path, ReadBounded(std::move(h)));
  }

  // "GET, HEAD" / "POST" for a known path; "" for an unknown one.
  std::string Allow(const std::string& path) const {
    auto it = methods_.find(path);
    return it == methods_.end() ? "" : it->second;
  }
  bool Allows(const std::string& path, const std::string& method) const {
    auto it = methods_.find(path);
    if (it == methods_.end()) return true;  // not ours: 404 from the router
    const std::string& m = it->second;
    if (method == "HEAD") return m.find("GET") != std::string::npos;
    return (", " + m + ",").find(", " + method + ",") != std::string::npos;
  }
  // Routes the server has that the document does not list (must be none).
  const std::vector<std::string>& Undocumented() const { return undocumented_; }

 private:
  void Check(const std::string& method, const std::string& path) {
    const auto& paths = doc_["paths"];
    if (!paths.contains(path) || !paths[path].contains(method)) undocumented_.push_back(method + " " + path);
    std::string upper = method;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string& m = methods_[path];
    m += (m.empty() ? "" : ", ") + upper + (upper == "GET" ? ", HEAD" : "");
  }

  httplib::Server& svr_;
  nlohmann::json doc_;
  std::map<std::string, std::string> methods_;
  std::vector<std::string> undocumented_;
};

// Waits for a computation on its own thread: until it is done, `limit` has
// passed (false: the caller answers 504) or the client has left (false, and
// *gone). Either way the computation is told to stop (`cancel`).
template <typename T>
bool AwaitOrCancel(std::future<T>& fut, std::chrono::milliseconds limit, std::atomic<bool>& cancel, bool* gone) {
  const auto end = std::chrono::steady_clock::now() + limit;
  *gone = false;
  for (;;) {
    const auto left = end - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) break;
    if (fut.wait_for(std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(100))) ==
        std::future_status::ready) {
      return true;
    }
    if (ClientGone()) {
      *gone = true;
      t_close = true;
      break;
    }
  }
  cancel.store(true);
  return false;
}

std::string Seconds(int ms);
void SendBusy(httplib::Response& res, const serve::Slots& slots, std::string_view what);
// Runs `compute` for this request on a thread of its own that holds a slot
// of `slots` (503 when none is free, or no thread can start), for at most
// `budget` (504 after, or when the client leaves). Either way the computation
// is told to stop: `compute` runs under ScopedCancel, so the simulator
// and the analytic loops that poll CancelRequested() end early. `trim`:
// memory freed by the computation goes back to the system when it ends
// (a forecast's log, a report: tens of MB each).
bool RunBounded(httplib::Response& res, serve::Slots& slots, std::string_view what, std::chrono::milliseconds budget,
                std::function<Result<nlohmann::json>()> compute, Result<nlohmann::json>* out, bool trim = false);

// Every endpoint on `r`, with the limits of `a`.
void Routes(Router& r, const ServeRequest& a);

}  // namespace rlcost::serve
