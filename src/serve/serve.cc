// `rlcost serve [--host 127.0.0.1] [--port 8080]`: the JSON HTTP API (cpp-httplib).
// Its own program, rlcost-serve, which `rlcost serve` runs (src/cli/cmd_serve.cc):
// the HTTP library and what it brings (OpenSSL, zlib, Brotli) are loaded by the
// server only, not at every start of `rlcost` (docs/performance.md, "Start-up").
//
//   POST /v1/estimate   {"scenario": {...} | "yaml text", "set": ["key=value"]}
//   POST /v1/simulate   ... + "steps" (1..20, default 3), "seed"
//   POST /v1/waterfall  ... + "order", "gpu", "tenants", "rank", "moe_model", "dense_model",
//                       "moe_pass_rate", "dense_pass_rate", "staleness_discount", "fp8_discount", "fp4_discount"
//   POST /v1/price      ... + "models", "gpus", "stack", "tenants", "staleness_discount", "fp8_discount",
//                       "fp4_discount"
//   POST /v1/sweep      ... + "vary" {"KEY": [V1, V2, ...] | "LO..HI[:STEP]"}, "sample", "seed",
//                       "metrics", "simulate", "steps": the rows of `rlcost sweep --jsonl`
//   POST /v1/report     the HTML report of `rlcost report` (text/html)
//   GET  /v1/catalog, /v1/health, /v1/default (the built-in scenario as JSON)
//   GET  /              the web calculator (web/index.html, compiled in)
//
// Results are the JSON of `rlcost <command> --json` (cli/ops.h). Errors are
// {"error": {"code", "problems": [{"path", "message"}]}} with 400 (bad input),
// 413 (body over 1 MiB), 422 (does not fit), 503 (busy), 504 (too slow).
// A request can never name a file: scenarios come inline and may not refer
// to files (kNoFileAccess).
#include <signal.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <iostream>
#include <list>
#include <memory>
#include <unordered_map>
#include <mutex>
#include <thread>

#include <httplib.h>

#include "cli/common.h"
#include "cli/ops.h"
#include "report/report.h"
#include "rlcost/embedded.h"
#include "serve/serve.h"

namespace rlcost::cli {
namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8080;
  int threads = 64;          // workers; each keep-alive connection holds one
  int queue = 256;           // connections waiting for a worker; beyond it: 503
  int sim_timeout_ms = 10000;
  int cache_mib = 64;        // answers kept for repeated requests; 0 = none
  int sweep_max_points = 10000;
  int sweep_timeout_ms = 10000;
};

constexpr size_t kMaxBodyBytes = 1 << 20;
constexpr int kMaxSimSteps = 20;
constexpr int kDefaultSimSteps = 3;
constexpr int kMaxSimsRunning = 4;       // simulations in flight, those past their 504 included
constexpr int kMaxSweepsRunning = 2;     // sweeps in flight; each computes on one thread
constexpr int kListenBacklog = 1024;     // cpp-httplib 0.11 compiles in 5

// Set on the threads that answer every request with 503 (queue full).
thread_local bool t_overflow = false;

// A bounded thread pool for cpp-httplib: `workers` threads take connections
// from a queue of at most `max_queued`; past that a connection goes to a
// small overflow lane whose threads answer 503 (t_overflow) and close.
class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(size_t workers, size_t max_queued, size_t overflow_workers) : max_queued_(max_queued) {
    for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { Work(main_, false); });
    for (size_t i = 0; i < overflow_workers; ++i) threads_.emplace_back([this] { Work(overflow_, true); });
  }
  ~BoundedPool() override = default;

  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (main_.size() < max_queued_) {
        main_.push_back(std::move(fn));
      } else {
        overflow_.push_back(std::move(fn));
      }
    }
    cv_.notify_all();
  }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  static size_t Queued() { return queued_.load(); }

 private:
  void Work(std::deque<std::function<void()>>& q, bool overflow) {
    t_overflow = overflow;
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !q.empty(); });
        if (stop_ && q.empty()) return;
        fn = std::move(q.front());
        q.pop_front();
        if (!overflow) queued_.store(q.size());
      }
      fn();
    }
  }

  size_t max_queued_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> main_, overflow_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
  static inline std::atomic<size_t> queued_{0};
};

std::atomic<int> g_sims_running{0};
std::atomic<int> g_sweeps_running{0};

// Answers of the deterministic endpoints (estimate, waterfall, price), keyed
// by endpoint, content type and body: the same request always gets the same
// bytes, so a repeat (a calculator page re-asking, a shared link opened by
// many) is served from here. Least recently used first out, bounded in bytes.
class ResponseCache {
 public:
  explicit ResponseCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  bool Get(const std::string& key, std::string* body) {
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

  void Put(const std::string& key, const std::string& body) {
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

  nlohmann::json Stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return {{"entries", lru_.size()}, {"bytes", bytes_}, {"hits", hits_}, {"misses", misses_}};
  }

 private:
  size_t max_bytes_;
  std::mutex mu_;
  std::list<std::pair<std::string, std::string>> lru_;
  std::unordered_map<std::string, std::list<std::pair<std::string, std::string>>::iterator> index_;
  size_t bytes_ = 0;
  unsigned long long hits_ = 0, misses_ = 0;
};

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

template <typename T>
void Send(httplib::Response& res, const Result<T>& r) {
  if (!r) return SendError(res, StatusOf(r.error().code), r.error());
  res.set_content(Compact(*r), "application/json");
}

using Parsed = ops::RequestBody;

bool IsYamlBody(const httplib::Request& req) {
  const std::string ct = req.get_header_value("Content-Type");
  return ct.rfind("application/yaml", 0) == 0 || ct.rfind("application/x-yaml", 0) == 0 ||
         ct.rfind("text/yaml", 0) == 0 || ct.rfind("text/plain", 0) == 0;
}

// Reads the body (ops::ParseRequestBody, which the request fuzz target drives too).
Result<Parsed> ParseBody(const httplib::Request& req, std::initializer_list<std::string_view> allowed) {
  return ops::ParseRequestBody(req.body, IsYamlBody(req), allowed);
}

Result<long long> Int(const nlohmann::json& f, const char* key, long long def, long long lo, long long hi) {
  if (!f.contains(key)) return def;
  const auto& v = f.at(key);
  if (!v.is_number_integer()) return Fail(ErrorCode::kInvalidInput, key, "expected an integer, got " + Compact(v));
  long long x = v.is_number_unsigned() && v.get<unsigned long long>() > static_cast<unsigned long long>(hi)
                    ? hi + 1
                    : v.get<long long>();
  if (x < lo || x > hi) {
    return Fail(ErrorCode::kInvalidInput, key,
                std::to_string(x) + " is out of range; expected " + std::to_string(lo) + ".." + std::to_string(hi));
  }
  return x;
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

Result<std::vector<std::string>> StrList(const nlohmann::json& f, const char* key) {
  std::vector<std::string> out;
  if (!f.contains(key)) return out;
  const auto& v = f.at(key);
  if (v.is_string()) return std::vector<std::string>{v.get<std::string>()};
  if (!v.is_array()) return Fail(ErrorCode::kInvalidInput, key, "expected a list of catalog ids");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return Fail(ErrorCode::kInvalidInput, std::string(key) + "[" + std::to_string(i) + "]", "expected a catalog id");
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

#define RLCOST_TRY(var, expr)                                                         \
  auto var = (expr);                                                                  \
  if (!var) return SendError(res, StatusOf(var.error().code), var.error())

void Routes(httplib::Server& svr, const ServeArgs& a) {
  std::shared_ptr<ResponseCache> cache;
  if (a.cache_mib > 0) cache = std::make_shared<ResponseCache>(static_cast<size_t>(a.cache_mib) << 20);
  svr.Post("/v1/estimate", Cached(cache, [](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {}));
    Send(res, ops::Estimate(p->in));
  }));
  svr.Post("/v1/simulate", [a](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"steps", "seed"}));
    RLCOST_TRY(steps, Int(p->fields, "steps", kDefaultSimSteps, 1, kMaxSimSteps));
    RLCOST_TRY(seed, Int(p->fields, "seed", 1, 0, std::numeric_limits<long long>::max()));
    if (g_sims_running.fetch_add(1) >= kMaxSimsRunning) {
      g_sims_running.fetch_sub(1);
      res.set_header("Retry-After", "5");
      return SendHttpError(res, 503, "busy", "",
                       "busy: " + std::to_string(kMaxSimsRunning) + " simulations are running; retry later");
    }
    // The simulator cannot be interrupted: it runs on its own thread and the
    // request waits at most sim_timeout_ms (504 after); kMaxSimsRunning bounds
    // how many can still be finishing.
    auto task = std::make_shared<std::packaged_task<Result<nlohmann::json>()>>(
        [in = p->in, seed = *seed, steps = *steps] { return ops::Simulate(in, static_cast<uint64_t>(seed), static_cast<int>(steps)); });
    auto fut = task->get_future();
    std::thread([task] {
      (*task)();
      g_sims_running.fetch_sub(1);
    }).detach();
    if (fut.wait_for(std::chrono::milliseconds(a.sim_timeout_ms)) != std::future_status::ready) {
      return SendHttpError(res, 504, "too_slow", "steps",
                       "the simulation took longer than " + std::to_string(a.sim_timeout_ms / 1000.0).substr(0, 4) +
                           " s; ask for fewer steps or use /v1/estimate");
    }
    Send(res, fut.get());
  });
  svr.Post("/v1/waterfall", Cached(cache, [](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"order", "gpu", "tenants", "rank", "moe_model", "dense_model", "moe_pass_rate",
                                  "dense_pass_rate", "staleness_discount", "fp8_discount", "fp4_discount"}));
    ops::LeverInput lv;
    RLCOST_TRY(order, Str(p->fields, "order", lv.order));
    RLCOST_TRY(gpu, Str(p->fields, "gpu", lv.gpu));
    RLCOST_TRY(tenants, Int(p->fields, "tenants", 0, 0, 4096));
    RLCOST_TRY(rank, Int(p->fields, "rank", 0, 0, 4096));
    RLCOST_TRY(moe, Str(p->fields, "moe_model", lv.moe_model));
    RLCOST_TRY(dense, Str(p->fields, "dense_model", ""));
    lv.order = *order;
    lv.gpu = *gpu;
    lv.tenants = static_cast<int>(*tenants);
    lv.rank = static_cast<int>(*rank);
    lv.moe_model = *moe;
    lv.dense_model = *dense;
    for (auto [key, dst] : {std::pair{"moe_pass_rate", &lv.moe_pass_rate}, std::pair{"dense_pass_rate", &lv.dense_pass_rate},
                            std::pair{"staleness_discount", &lv.staleness_discount},
                            std::pair{"fp8_discount", &lv.fp8_discount}, std::pair{"fp4_discount", &lv.fp4_discount}}) {
      RLCOST_TRY(v, OptNumber(p->fields, key));
      *dst = *v;
    }
    Send(res, ops::Waterfall(p->in, lv));
  }));
  svr.Post("/v1/price", Cached(cache, [](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"models", "gpus", "stack", "tenants", "staleness_discount", "fp8_discount", "fp4_discount"}));
    ops::PriceInput pi;
    RLCOST_TRY(models, StrList(p->fields, "models"));
    RLCOST_TRY(gpus, StrList(p->fields, "gpus"));
    RLCOST_TRY(stack, Str(p->fields, "stack", ""));
    RLCOST_TRY(tenants, Int(p->fields, "tenants", 0, 0, 4096));
    pi.models = *models;
    pi.gpus = *gpus;
    pi.stack = *stack;
    pi.tenants = static_cast<int>(*tenants);
    for (auto [key, dst] : {std::pair{"staleness_discount", &pi.staleness_discount},
                            std::pair{"fp8_discount", &pi.fp8_discount}, std::pair{"fp4_discount", &pi.fp4_discount}}) {
      RLCOST_TRY(v, OptNumber(p->fields, key));
      *dst = *v;
    }
    Send(res, ops::Price(p->in, pi));
  }));
  svr.Post("/v1/report", [](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {}));
    auto html = ops::HtmlReport(p->in);
    if (!html) return SendError(res, StatusOf(html.error().code), html.error());
    res.set_header("Content-Disposition", "attachment; filename=\"rlcost-report.html\"");
    res.set_content(*html, "text/html; charset=utf-8");
  });
  svr.Get("/v1/default", [](const httplib::Request&, httplib::Response& res) {
    Send(res, ops::ScenarioDocument(ops::ScenarioInput{}));
  });
  // The web calculator: one page, compiled in (works offline).
  svr.Get("/", [](const httplib::Request&, httplib::Response& res) {
    auto page = EmbeddedFile("index.html");
    if (!page) return SendError(res, 500, ErrorCode::kInternal, "", "the web page is not compiled in");
    res.set_content(std::string(*page), "text/html; charset=utf-8");
  });
  // A sweep computes on one thread, at most kMaxSweepsRunning at once (503
  // beyond), and stops at --sweep-timeout-ms (504); a design of more than
  // --sweep-max-points points is refused before it runs (400).
  svr.Post("/v1/sweep", Cached(cache, [a](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"vary", "sample", "seed", "metrics", "simulate", "steps"}));
    const auto& f = p->fields;
    if (!f.contains("vary")) {
      return SendError(res, 400, ErrorCode::kInvalidInput, "vary",
                       "missing; expected {\"KEY\": [V1, V2, ...] or \"LO..HI[:STEP]\", ...}, e.g. "
                       "{\"hardware.gpu\": [\"h100-sxm\", \"b200\"], \"algorithm.group_size\": \"4..16:4\"}");
    }
    ops::SweepInput sw;
    RLCOST_TRY(vary, ops::VaryArgs(f.at("vary"), "vary"));
    RLCOST_TRY(sample, Int(f, "sample", 0, 0, a.sweep_max_points));
    RLCOST_TRY(seed, Int(f, "seed", 1, 0, std::numeric_limits<long long>::max()));
    RLCOST_TRY(simulate, Bool(f, "simulate", false));
    RLCOST_TRY(steps, Int(f, "steps", kDefaultSimSteps, 1, kMaxSimSteps));
    if (f.contains("metrics")) {
      const auto& m = f.at("metrics");
      if (!m.is_array()) return SendError(res, 400, ErrorCode::kInvalidInput, "metrics", "expected a list of metric keys such as \"run.usd\"");
      for (size_t i = 0; i < m.size(); ++i) {
        if (!m[i].is_string()) {
          return SendError(res, 400, ErrorCode::kInvalidInput, "metrics[" + std::to_string(i) + "]", "expected a metric key such as \"run.usd\"");
        }
        sw.metrics.push_back(m[i].get<std::string>());
      }
    }
    sw.vary = *vary;
    sw.sample = static_cast<uint64_t>(*sample);
    sw.seed = static_cast<uint64_t>(*seed);
    sw.simulate = *simulate;
    sw.steps = *simulate ? static_cast<int>(*steps) : 0;
    sw.threads = 1;
    sw.max_points = static_cast<uint64_t>(a.sweep_max_points);
    sw.max_seconds = a.sweep_timeout_ms / 1000.0;
    if (g_sweeps_running.fetch_add(1) >= kMaxSweepsRunning) {
      g_sweeps_running.fetch_sub(1);
      res.set_header("Retry-After", "5");
      return SendHttpError(res, 503, "busy", "", "busy: " + std::to_string(kMaxSweepsRunning) + " sweeps are running; retry later");
    }
    // As for a simulation: the sweep runs on its own thread and stops itself
    // at the limit after the point under way; the request waits no longer
    // than the limit (a point of the simulator can take seconds).
    struct Outcome {
      Result<nlohmann::json> r;
      std::string stopped;
    };
    auto task = std::make_shared<std::packaged_task<Outcome()>>([in = p->in, sw] {
      Outcome o{Fail(ErrorCode::kInternal, "", "not run"), ""};
      o.r = ops::Sweep(in, sw, &o.stopped);
      return o;
    });
    auto fut = task->get_future();
    std::thread([task] {
      (*task)();
      g_sweeps_running.fetch_sub(1);
    }).detach();
    auto too_slow = [&] {
      SendHttpError(res, 504, "too_slow", "",
                    "the sweep took longer than " + std::to_string(a.sweep_timeout_ms / 1000.0).substr(0, 4) +
                        " s; ask for fewer points" + (sw.simulate ? ", fewer steps or the closed form (no \"simulate\")" : ""));
    };
    if (fut.wait_for(std::chrono::milliseconds(a.sweep_timeout_ms + 250)) != std::future_status::ready) return too_slow();
    Outcome o = fut.get();
    if (!o.r && !o.stopped.empty()) return too_slow();
    Send(res, o.r);
  }));
  // The catalog never changes while the server runs: rendered once.
  auto catalog = std::make_shared<std::string>();
  if (auto c = ops::Catalog()) *catalog = Compact(*c);
  svr.Get("/v1/catalog", [catalog](const httplib::Request&, httplib::Response& res) {
    if (catalog->empty()) return SendError(res, 500, ErrorCode::kInternal, "catalog", "the built-in catalog did not load");
    res.set_content(*catalog, "application/json");
  });
  svr.Get("/v1/health", [cache](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = {{"status", "ok"},
                        {"version", "0.1.0"},
                        {"simulations_running", g_sims_running.load()},
                        {"sweeps_running", g_sweeps_running.load()},
                        {"connections_queued", BoundedPool::Queued()}};
    if (cache) j["cache"] = cache->Stats();
    res.set_content(Compact(j), "application/json");
  });
}

int Serve(const ServeArgs& a) {
  if (a.threads < 1 || a.threads > 1024) {
    return PrintError(Error::Invalid("--threads", std::to_string(a.threads) + "; expected 1..1024"), false);
  }
  if (a.queue < 0 || a.queue > 100000) {
    return PrintError(Error::Invalid("--queue", std::to_string(a.queue) + "; expected 0..100000"), false);
  }
  if (auto cat = ops::BuiltinCatalog(); !cat) return PrintError(cat.error(), false);
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-answer must not end the server
  httplib::Server svr;
  svr.new_task_queue = [a] { return new BoundedPool(a.threads, a.queue, 2); };
  svr.set_payload_max_length(kMaxBodyBytes);
  svr.set_read_timeout(5, 0);
  svr.set_write_timeout(5, 0);
  svr.set_keep_alive_timeout(5);
  svr.set_keep_alive_max_count(10000);
  svr.set_tcp_nodelay(true);
  int listen_fd = -1;
  svr.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = sock;
  });
  svr.set_pre_routing_handler([](const httplib::Request&, httplib::Response& res) {
    if (!t_overflow) return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("Retry-After", "1");
    res.set_header("Connection", "close");
    SendHttpError(res, 503, "busy", "", "too many connections waiting; retry later");
    return httplib::Server::HandlerResponse::Handled;
  });
  // Statuses cpp-httplib sets itself (no route, body too large, a request it
  // cannot parse) get the same JSON error shape; our own errors pass through.
  svr.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    if (!res.body.empty()) return R::Unhandled;
    const int status = res.status;
    switch (status) {
      case 413: SendHttpError(res, status, "too_large", "", "request body too large: at most " + std::to_string(kMaxBodyBytes >> 20) +
                                " MiB (8 KiB as a form; send JSON with Content-Type: application/json)"); break;
      case 404: SendHttpError(res, status, "not_found", "", "no such endpoint: " + req.method + " " + req.path); break;
      case 400: SendHttpError(res, status, "invalid_input", "", "malformed HTTP request"); break;
      default: SendHttpError(res, status, "http_" + std::to_string(status), "", "HTTP status " + std::to_string(status)); break;
    }
    return R::Handled;
  }));
  svr.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    SendError(res, 500, ErrorCode::kInternal, "", "internal error: " + what);
  });
  Routes(svr, a);
  int port = a.port;
  if (port == 0) {
    port = svr.bind_to_any_port(a.host);
    if (port < 0) port = 0;
  } else if (!svr.bind_to_port(a.host, port)) {
    port = 0;
  }
  if (port <= 0) {
    return PrintError(Error(ErrorCode::kInvalidInput, "--port",
                            "cannot listen on " + a.host + ":" + std::to_string(a.port) + " (in use, or not an address of this machine)"),
                      false);
  }
  if (listen_fd >= 0) ::listen(listen_fd, kListenBacklog);
  std::cout << "rlcost serve: listening on http://" << a.host << ":" << port << std::endl;
  if (!svr.listen_after_bind()) {
    return PrintError(Error(ErrorCode::kInternal, "", "the server stopped unexpectedly"), false);
  }
  return 0;
}

}  // namespace

void ConfigureServe(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ServeArgs>();
  auto* sub = &app;
  sub->add_option("--host", args->host, "address to listen on (default 127.0.0.1: this machine only)");
  sub->add_option("--port", args->port, "TCP port (default 8080; 0 = any free port, printed on start)");
  sub->add_option("--threads", args->threads, "worker threads; each open connection holds one (default 64)");
  sub->add_option("--queue", args->queue, "connections that may wait for a worker before new ones get 503 (default 256)");
  sub->add_option("--cache-mib", args->cache_mib,
                  "memory for answers to repeated estimate/waterfall/price requests (default 64; 0 = compute every time)")
      ->check(CLI::Range(0, 4096));
  sub->add_option("--sweep-max-points", args->sweep_max_points, "most points one /v1/sweep request may have (default 10000)")
      ->check(CLI::Range(1, 10000000));
  sub->add_option("--sweep-timeout-ms", args->sweep_timeout_ms, "longest a /v1/sweep request computes before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  sub->add_option("--sim-timeout-ms", args->sim_timeout_ms, "longest a /v1/simulate request waits before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  sub->callback([args, &exit_code] { exit_code = Serve(*args); });
}

}  // namespace rlcost::cli
