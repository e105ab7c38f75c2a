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
//   POST /v1/forecast   {"log": "step,val_acc\n1,0.21\n...", "target": 0.6, "metric", "gpus",
//                       "usd_per_gpu_hour"}: `rlcost forecast --json` of the posted log's text
//                       (never a file) + "plot" (forecast/plot.h: points, fit, band)
//   GET  /v1/catalog, /v1/health, /v1/default (the built-in scenario as JSON),
//        /v1/openapi.json (this list as OpenAPI 3.0, serve/openapi.h)
//   GET  /              the web calculator (web/index.html, compiled in)
//
// Results are the JSON of `rlcost <command> --json` (api/ops.h). Errors are
// {"error": {"code", "problems": [{"path", "message"}]}} with 400 (bad input),
// 401 (token), 403 (Host), 405 (method), 408 (request sent too slowly),
// 413 (body over 1 MiB, chunked or not), 415 (Content-Type), 422 (does not
// fit), 503 (busy), 504 (too slow).
//
// Safe to leave running (each rule has its test in tests/serve/serve_test.cc):
// - a request never names a file: scenarios come inline and every field that
//   would name one is refused with its path (kNoFileAccess), before the path
//   is looked at;
// - a body is read as JSON only with Content-Type: application/json (YAML only
//   with a YAML type), so a cross-site form or text/plain POST, which a browser
//   sends without asking, is refused (415); the Host header must name this
//   server (DNS rebinding, 403); --token, required on any non-loopback address,
//   is asked of every request (401);
// - a request (headers and body) must arrive within --request-timeout-ms in
//   all, however it trickles in (408 / closed); bodies are bounded as they are
//   read, chunked or compressed ones included;
// - a simulation or sweep stops when its answer is no longer wanted (504, or
//   the client left): the simulator polls a cancel flag;
// - answers are bounded before they are computed (sweep points and metrics,
//   price rows).
#include <malloc.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <future>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include <httplib.h>

#include "api/ops.h"
#include "core/problems.h"
#include "forecast/forecast.h"
#include "forecast/plot.h"
#include "forecast/render.h"
#include "report/report.h"
#include "rlcost/embedded.h"
#include "serve/openapi.h"
#include "serve/serve.h"
#include "serve/memory.h"
#include "serve/slots.h"
#include "sim/cancel.h"

namespace rlcost::cli {
namespace {

using ops::PrintError;  // start-up errors, printed as every program of rlcost prints them

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string token;                  // --token or RLCOST_SERVE_TOKEN; required off loopback
  std::vector<std::string> allow_hosts;  // more names the Host header may carry
  int request_timeout_ms = 10000;     // the whole request (headers and body) must arrive within this
  int header_timeout_ms = 5000;       // its header within this (408 and closed, without holding a worker)
  int request_budget_ms = 10000;      // longest an estimate, waterfall, price card, report or forecast computes
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
// Estimates, waterfalls and price cards in flight: each a few milliseconds
// of one core, so 16 leave workers free for /v1/health and the rest.
constexpr int kMaxAnalyticRunning = 16;
// Forecasts (a log read whole: up to ~75 MB for a 1 MiB log) and HTML
// reports (every view of a scenario) in flight: 4 keep a burst of them
// under a few hundred MB (docs/performance.md, "Load").
constexpr int kMaxHeavyRunning = 4;
constexpr int kListenBacklog = 1024;     // cpp-httplib 0.11 compiles in 5
// /v1/price rows (models x GPUs): the built-in catalog's every model on every
// GPU is a few hundred; 1,000 rows answer in about 1 MB.
constexpr size_t kMaxPriceRows = 1000;
constexpr size_t kMaxSweepMetrics = 64;  // columns of /v1/sweep; each named once

// The connection the current worker thread serves (GuardedServer), for the
// handlers: whether the client has gone, and to close it after an answer.
thread_local int t_sock = -1;
thread_local bool t_close = false;          // close the connection after this answer
thread_local bool t_deadline_passed = false;  // the request did not arrive in time

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

// A connection's stream with a deadline on reading each request: however the
// bytes trickle in (a header line every few seconds, a body a byte at a time),
// the request line, headers and body must all arrive by the deadline, which
// is set when the request's first byte is there. cpp-httplib 0.11's own
// stream times out each read alone, so a slow client could hold a worker
// forever ("slowloris"). Writes keep their own per-write timeout.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int sock, int read_timeout_ms, int write_timeout_ms)
      : sock_(sock), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms) {}

  void SetDeadline(std::chrono::steady_clock::time_point d) { deadline_ = d; }
  bool Buffered() const { return begin_ < end_; }

  bool is_readable() const override { return begin_ < end_ || Wait(POLLIN, ReadWaitMs()); }
  bool is_writable() const override { return Wait(POLLOUT, write_timeout_ms_); }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      if (!Wait(POLLIN, ReadWaitMs())) {
        if (std::chrono::steady_clock::now() >= deadline_) t_deadline_passed = true;
        return -1;
      }
      if (size >= sizeof(buf_)) return Recv(ptr, size);
      ssize_t n = Recv(buf_, sizeof(buf_));
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buf_ + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!Wait(POLLOUT, write_timeout_ms_)) return -1;
    for (;;) {
      ssize_t n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      return n;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { Name(::getpeername, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { Name(::getsockname, ip, port); }
  socket_t socket() const override { return sock_; }

 private:
  int ReadWaitMs() const {
    // Rounded up: a wait rounded down to whole milliseconds ends just short of
    // the deadline, and the request cut there read as malformed (400), not 408.
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now()).count();
    return static_cast<int>(std::max<long long>(0, std::min<long long>(left, read_timeout_ms_)));
  }
  bool Wait(short events, int ms) const {
    pollfd p{sock_, events, 0};
    for (;;) {
      int r = ::poll(&p, 1, ms);
      if (r < 0 && errno == EINTR) continue;
      return r > 0;
    }
  }
  ssize_t Recv(char* p, size_t n) {
    for (;;) {
      ssize_t r = ::recv(sock_, p, n, 0);
      if (r < 0 && errno == EINTR) continue;
      return r;
    }
  }
  template <typename F>
  void Name(F f, std::string& ip, int& port) const {
    sockaddr_storage a{};
    socklen_t len = sizeof(a);
    if (f(sock_, reinterpret_cast<sockaddr*>(&a), &len) != 0) return;
    char host[NI_MAXHOST], serv[NI_MAXSERV];
    if (::getnameinfo(reinterpret_cast<sockaddr*>(&a), len, host, sizeof(host), serv, sizeof(serv),
                      NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
      ip = host;
      port = std::atoi(serv);
    }
  }

  int sock_;
  int read_timeout_ms_, write_timeout_ms_;
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::now();
  char buf_[4096];
  size_t begin_ = 0, end_ = 0;
};

// Where connections wait without a worker: an epoll thread watches every
// connection that has no complete request header yet (a new one, one kept
// alive between requests, one whose client trickles its header in) and hands
// it to the pool (`resume`) only once the header's blank line is there.
// So an idle keep-alive connection, or a client sending a header line every
// few seconds ("slowloris"), holds no worker; one whose header has not come
// whole within the header timeout gets a 408 and is closed here, and an idle
// one is closed at the keep-alive timeout.
class Lobby {
 public:
  using Resume = std::function<void(int sock, size_t requests_left, std::chrono::steady_clock::time_point deadline)>;
  // Headers longer than this are refused (431): a real request's are a few
  // hundred bytes, and each new byte costs a look at all of them.
  static constexpr size_t kMaxHeaderBytes = 16384;
  // Connections waiting at once; past this the longest-idle are closed.
  static constexpr size_t kMaxWaiting = 16384;

  Lobby(int header_timeout_ms, int request_timeout_ms, int keep_alive_ms, Resume resume)
      : header_ms_(header_timeout_ms), request_ms_(request_timeout_ms), idle_ms_(keep_alive_ms),
        resume_(std::move(resume)), ep_(::epoll_create1(EPOLL_CLOEXEC)), wake_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = wake_;
    ::epoll_ctl(ep_, EPOLL_CTL_ADD, wake_, &ev);
    thread_ = std::thread([this] { Loop(); });
  }
  ~Lobby() {
    stop_ = true;
    Wake();
    thread_.join();
    for (auto& [fd, c] : waiting_) ::close(fd);
    ::close(ep_);
    ::close(wake_);
  }

  // True when `sock` has a complete request header waiting (or so much that
  // a worker should see it); the caller then serves it at once.
  static bool HeaderComplete(int sock, size_t* have = nullptr) {
    static thread_local std::vector<char> buf(kMaxHeaderBytes + 1);
    const ssize_t n = ::recv(sock, buf.data(), buf.size(), MSG_PEEK | MSG_DONTWAIT);
    if (have) *have = n > 0 ? static_cast<size_t>(n) : 0;
    if (n <= 0) return false;
    return std::string_view(buf.data(), static_cast<size_t>(n)).find("\r\n\r\n") != std::string_view::npos ||
           std::string_view(buf.data(), static_cast<size_t>(n)).find("\n\n") != std::string_view::npos;
  }

  // Takes `sock` until its next request's header has arrived.
  void Wait(int sock, size_t requests_left) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      incoming_.push_back({sock, requests_left});
    }
    Wake();
  }

  static size_t Waiting() { return count_.load(); }

 private:
  struct Conn {
    size_t requests_left;
    std::chrono::steady_clock::time_point since;        // waiting since (idle timeout)
    std::chrono::steady_clock::time_point first_byte{};  // of this request; {} = none yet
  };

  void Wake() {
    const uint64_t one = 1;
    (void)!::write(wake_, &one, sizeof(one));
  }

  void Drop(int fd) {
    ::epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
    waiting_.erase(fd);
    ::close(fd);
  }

  void Answer(int fd, int status, std::string_view code, std::string_view message) {
    nlohmann::json j = {{"error", {{"code", code}, {"problems", {{{"path", ""}, {"message", message}}}}}}};
    const std::string body = j.dump();
    const std::string head = "HTTP/1.1 " + std::to_string(status) + (status == 408 ? " Request Timeout" : " Request Header Fields Too Large") +
                             "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\n\r\n";
    const std::string all = head + body;
    (void)!::send(fd, all.data(), all.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    ::shutdown(fd, SHUT_RDWR);
    Drop(fd);
  }

  // A connection with news: its header complete (to a worker), more of it
  // (keeps waiting), or its client gone (closed).
  void Look(int fd, uint32_t events) {
    auto it = waiting_.find(fd);
    if (it == waiting_.end()) return;
    size_t have = 0;
    const bool complete = HeaderComplete(fd, &have);
    if (complete) {
      const size_t left = it->second.requests_left;
      const auto first = it->second.first_byte == std::chrono::steady_clock::time_point{} ? std::chrono::steady_clock::now()
                                                                                          : it->second.first_byte;
      ::epoll_ctl(ep_, EPOLL_CTL_DEL, fd, nullptr);
      waiting_.erase(it);
      resume_(fd, left, first + std::chrono::milliseconds(request_ms_));
      return;
    }
    if (have == 0 && (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))) return Drop(fd);
    if (have == 0) {
      char c;
      if (::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0) return Drop(fd);  // closed by the client
      return;
    }
    if (have > kMaxHeaderBytes) {
      return Answer(fd, 431, "too_large", "request header over " + std::to_string(kMaxHeaderBytes) + " bytes");
    }
    if (it->second.first_byte == std::chrono::steady_clock::time_point{}) it->second.first_byte = std::chrono::steady_clock::now();
  }

  void Expire() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::pair<int, bool>> late;  // fd, sent part of a request
    for (auto& [fd, c] : waiting_) {
      if (c.first_byte != std::chrono::steady_clock::time_point{}) {
        if (now - c.first_byte >= std::chrono::milliseconds(header_ms_)) late.push_back({fd, true});
      } else if (now - c.since >= std::chrono::milliseconds(idle_ms_)) {
        late.push_back({fd, false});
      }
    }
    for (auto [fd, partial] : late) {
      if (partial) {
        Answer(fd, 408, "too_slow", "the request header did not arrive in time; send it whole, promptly");
      } else {
        Drop(fd);
      }
    }
  }

  void Admit() {
    std::vector<std::pair<int, size_t>> in;
    {
      std::lock_guard<std::mutex> lock(mu_);
      in.swap(incoming_);
    }
    const auto now = std::chrono::steady_clock::now();
    for (auto [fd, left] : in) {
      if (waiting_.size() >= kMaxWaiting) {
        // The longest-idle connection (no request under way) makes room.
        auto oldest = waiting_.end();
        for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
          if (it->second.first_byte == std::chrono::steady_clock::time_point{} &&
              (oldest == waiting_.end() || it->second.since < oldest->second.since)) {
            oldest = it;
          }
        }
        if (oldest == waiting_.end()) {
          ::close(fd);
          continue;
        }
        Drop(oldest->first);
      }
      waiting_[fd] = Conn{left, now};
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;  // edge: each arrival of bytes, not their presence
      ev.data.fd = fd;
      if (::epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        waiting_.erase(fd);
        ::close(fd);
      }
    }
  }

  void Loop() {
    std::vector<epoll_event> events(256);
    while (!stop_) {
      const int n = ::epoll_wait(ep_, events.data(), static_cast<int>(events.size()), 50);
      for (int i = 0; i < n; ++i) {
        if (events[i].data.fd == wake_) {
          uint64_t v;
          (void)!::read(wake_, &v, sizeof(v));
          continue;
        }
        Look(events[i].data.fd, events[i].events);
      }
      Admit();
      Expire();
      count_.store(waiting_.size());
    }
  }

  int header_ms_, request_ms_, idle_ms_;
  Resume resume_;
  int ep_, wake_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::pair<int, size_t>> incoming_;
  std::unordered_map<int, Conn> waiting_;  // the loop's own
  static inline std::atomic<size_t> count_{0};
  std::thread thread_;
};

// cpp-httplib's server with its connection loop replaced (the same steps as
// 0.11's process_server_socket: answer a request, at most
// keep_alive_max_count of them per connection) so that each request is read
// through a DeadlineStream, a handler can ask for the connection to close
// (t_close: a body left unread, a request that came too slowly), and a
// connection waits for its next request in the Lobby, not on a worker.
class GuardedServer : public httplib::Server {
 public:
  GuardedServer(int request_timeout_ms, int header_timeout_ms, int keep_alive_ms)
      : request_timeout_ms_(request_timeout_ms),
        lobby_(std::min(header_timeout_ms, request_timeout_ms), request_timeout_ms, keep_alive_ms,
               [this](int sock, size_t left, std::chrono::steady_clock::time_point deadline) {
                 httplib::TaskQueue* pool = pool_.load();
                 if (!pool) return (void)::close(sock);
                 pool->enqueue([this, sock, left, deadline] { Serve(sock, left, deadline); });
               }) {}

  // The pool the lobby hands connections back to (set by new_task_queue).
  void SetPool(httplib::TaskQueue* pool) { pool_ = pool; }

 private:
  bool process_and_close_socket(socket_t sock) override {
    // A new connection: served at once if its header is already here,
    // else it waits in the lobby.
    if (!Lobby::HeaderComplete(sock)) {
      lobby_.Wait(sock, keep_alive_max_count_);
      return true;
    }
    Serve(sock, keep_alive_max_count_, std::chrono::steady_clock::now() + std::chrono::milliseconds(request_timeout_ms_));
    return true;
  }

  void Serve(socket_t sock, size_t count, std::chrono::steady_clock::time_point deadline) {
    t_sock = sock;
    DeadlineStream strm(sock, static_cast<int>(read_timeout_sec_ * 1000 + read_timeout_usec_ / 1000),
                        static_cast<int>(write_timeout_sec_ * 1000 + write_timeout_usec_ / 1000));
    bool keep = false;
    for (; count > 0 && svr_sock_ != INVALID_SOCKET; --count) {
      strm.SetDeadline(deadline);
      t_close = false;
      t_deadline_passed = false;
      bool closed = false;
      const bool ret = process_request(strm, count == 1, closed, nullptr);
      if (!ret || closed || t_close || count == 1) break;
      // A pipelined request already read in, or a whole header waiting: go
      // on here; else the connection waits in the lobby, not on this worker.
      if (!strm.Buffered() && !Lobby::HeaderComplete(sock)) {
        keep = true;
        --count;
        break;
      }
      deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(request_timeout_ms_);
    }
    t_sock = -1;
    if (keep && svr_sock_ != INVALID_SOCKET) return lobby_.Wait(sock, count);
    LingeringClose(sock);
  }

  // Closes after reading (and dropping) what the client is still sending, for
  // at most a second and 8 MiB, while it keeps coming (100 ms apart at most):
  // closing with unread data would reset the connection, and the client would
  // lose the answer (a 413 for a body it is still sending) before reading it.
  // Nothing pending: closed at once.
  static void LingeringClose(socket_t sock) {
    ::shutdown(sock, SHUT_WR);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    char buf[65536];
    size_t drained = 0;
    for (int wait_ms = 0; drained < (8u << 20); wait_ms = 100) {
      if (std::chrono::steady_clock::now() >= end) break;
      pollfd p{sock, POLLIN, 0};
      if (::poll(&p, 1, wait_ms) <= 0) break;
      const ssize_t n = ::recv(sock, buf, sizeof(buf), 0);
      if (n <= 0) break;
      drained += static_cast<size_t>(n);
    }
    ::close(sock);
  }

  int request_timeout_ms_;
  std::atomic<httplib::TaskQueue*> pool_{nullptr};
  Lobby lobby_;  // last: its thread stops before the rest goes
};

// True when the client of this worker's connection has closed it (or reset
// it): its answer is no longer wanted.
bool ClientGone() {
  if (t_sock < 0) return false;
  pollfd p{t_sock, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  char c;
  return ::recv(t_sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

// Computations in flight, each on a thread of its own (serve/slots.h); those
// past their 504 count until they stop.
serve::Slots g_sims(kMaxSimsRunning);
serve::Slots g_sweeps(kMaxSweepsRunning);
serve::Slots g_analytic(kMaxAnalyticRunning);
serve::Slots g_heavy(kMaxHeavyRunning);

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

template <typename T>
void Send(httplib::Response& res, const Result<T>& r) {
  if (!r) return SendError(res, StatusOf(r.error().code), r.error());
  res.set_content(Compact(*r), "application/json");
}

using Parsed = ops::RequestBody;

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

#define RLCOST_TRY(var, expr)                                                         \
  auto var = (expr);                                                                  \
  if (!var) return SendError(res, StatusOf(var.error().code), var.error())

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

std::string Seconds(int ms) {
  char b[32];
  std::snprintf(b, sizeof(b), "%g", ms / 1000.0);
  return b;
}

void SendBusy(httplib::Response& res, const serve::Slots& slots, std::string_view what) {
  res.set_header("Retry-After", "5");
  SendHttpError(res, 503, "busy", "", "busy: " + std::to_string(slots.Max()) + " " + std::string(what) +
                                          " are being computed; retry later");
}

// Runs `compute` for this request on a thread of its own that holds a slot
// of `slots` (503 when none is free, or no thread can start), for at most
// `budget` (504 after, or when the client leaves). Either way the computation
// is told to stop: `compute` runs under sim::ScopedCancel, so the simulator
// and the analytic loops that poll sim::CancelRequested() end early. `trim`:
// memory freed by the computation goes back to the system when it ends
// (a forecast's log, a report: tens of MB each).
bool RunBounded(httplib::Response& res, serve::Slots& slots, std::string_view what, std::chrono::milliseconds budget,
                std::function<Result<nlohmann::json>()> compute, Result<nlohmann::json>* out, bool trim = false) {
  if (!slots.TryTake()) {
    SendBusy(res, slots, what);
    return false;
  }
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto task = std::make_shared<std::packaged_task<Result<nlohmann::json>()>>([compute = std::move(compute), cancel] {
    sim::ScopedCancel scope(cancel.get());
    return compute();
  });
  auto fut = task->get_future();
  if (!serve::RunDetached(slots, [task, trim] {
        (*task)();
        if (trim) ::malloc_trim(0);
      })) {
    SendBusy(res, slots, what);
    return false;
  }
  bool gone = false;
  if (!AwaitOrCancel(fut, budget, *cancel, &gone)) {
    SendHttpError(res, 504, gone ? "cancelled" : "too_slow", "",
                  "the computation took longer than " + Seconds(static_cast<int>(budget.count())) +
                      " s (this server's budget for one request); ask for less");
    return false;
  }
  *out = fut.get();
  return true;
}

void Routes(Router& r, const ServeArgs& a) {
  const auto budget = std::chrono::milliseconds(a.request_budget_ms);
  std::shared_ptr<ResponseCache> cache;
  if (a.cache_mib > 0) cache = std::make_shared<ResponseCache>(static_cast<size_t>(a.cache_mib) << 20);
  r.Post("/v1/estimate", Cached(cache, [budget](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {}));
    Result<nlohmann::json> out;
    if (RunBounded(res, g_analytic, "estimates", budget, [in = p->in] { return ops::Estimate(in); }, &out)) Send(res, out);
  }));
  r.Post("/v1/simulate", [a](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"steps", "seed"}));
    RLCOST_TRY(steps, Int(p->fields, "steps", kDefaultSimSteps, 1, kMaxSimSteps));
    RLCOST_TRY(seed, Int(p->fields, "seed", 1, 0, std::numeric_limits<long long>::max()));
    if (!g_sims.TryTake()) {
      res.set_header("Retry-After", "5");
      return SendHttpError(res, 503, "busy", "",
                       "busy: " + std::to_string(kMaxSimsRunning) + " simulations are running; retry later");
    }
    // The simulation runs on its own thread; the request waits at most
    // sim_timeout_ms (504 after), and past that or when the client leaves
    // the simulator is told to stop (it polls `cancel` as it runs).
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto task = std::make_shared<std::packaged_task<Result<nlohmann::json>()>>(
        [in = p->in, seed = *seed, steps = *steps, cancel] {
          return ops::Simulate(in, static_cast<uint64_t>(seed), static_cast<int>(steps), cancel.get());
        });
    auto fut = task->get_future();
    if (!serve::RunDetached(g_sims, [task] { (*task)(); })) {
      res.set_header("Retry-After", "5");
      return SendHttpError(res, 503, "busy", "", "busy: no thread could start for the simulation; retry later");
    }
    bool gone = false;
    if (!AwaitOrCancel(fut, std::chrono::milliseconds(a.sim_timeout_ms), *cancel, &gone)) {
      return SendHttpError(res, 504, gone ? "cancelled" : "too_slow", "steps",
                           "the simulation took longer than " + Seconds(a.sim_timeout_ms) +
                               " s; ask for fewer steps or use /v1/estimate");
    }
    Send(res, fut.get());
  });
  r.Post("/v1/waterfall", Cached(cache, [budget](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"order", "gpu", "tenants", "rank", "moe_model", "dense_model", "moe_pass_rate",
                                  "dense_pass_rate", "staleness_discount", "fp8_discount", "fp4_discount", "baseline"}));
    ops::LeverInput lv;
    RLCOST_TRY(baseline, Str(p->fields, "baseline", lv.baseline));  // "run" or "naive" (ops::LeverInput)
    lv.baseline = *baseline;
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
    Result<nlohmann::json> out;
    if (RunBounded(res, g_analytic, "waterfalls", budget, [in = p->in, lv] { return ops::Waterfall(in, lv); }, &out)) {
      Send(res, out);
    }
  }));
  r.Post("/v1/price", Cached(cache, [budget](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {"models", "gpus", "stack", "tenants", "staleness_discount", "fp8_discount", "fp4_discount"}));
    ops::PriceInput pi;
    // The card has a row per model and GPU: bounded before it is built.
    RLCOST_TRY(models, StrList(p->fields, "models", kMaxPriceRows));
    RLCOST_TRY(gpus, StrList(p->fields, "gpus", kMaxPriceRows));
    if (std::max<size_t>(1, models->size()) * std::max<size_t>(1, gpus->size()) > kMaxPriceRows) {
      return SendError(res, 400, ErrorCode::kInvalidInput, "models",
                       std::to_string(models->size()) + " models x " + std::to_string(gpus->size()) + " GPUs = " +
                           std::to_string(models->size() * gpus->size()) + " rows; at most " +
                           std::to_string(kMaxPriceRows) + " in one request");
    }
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
    Result<nlohmann::json> out;
    if (RunBounded(res, g_analytic, "price cards", budget, [in = p->in, pi] { return ops::Price(in, pi); }, &out)) {
      Send(res, out);
    }
  }));
  r.Post("/v1/report", [budget](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {}));
    Result<nlohmann::json> out;
    auto compute = [in = p->in]() -> Result<nlohmann::json> {
      auto html = ops::HtmlReport(in);
      if (!html) return Fail(html.error());
      return nlohmann::json(std::move(*html));
    };
    if (!RunBounded(res, g_heavy, "reports and forecasts", budget, compute, &out, true)) return;
    if (!out) return SendError(res, StatusOf(out.error().code), out.error());
    res.set_header("Content-Disposition", "attachment; filename=\"rlcost-report.html\"");
    res.set_content(out->get_ref<const std::string&>(), "text/html; charset=utf-8");
  });
  // A run's own learning curve: the log comes as text in the request (the
  // server reads no file), bounded like every body (1 MiB).
  r.Post("/v1/forecast", [budget](const httplib::Request& req, httplib::Response& res) {
    if (!IsJsonType(MediaType(req))) {
      return SendHttpError(res, 415, "unsupported_media_type", "",
                           "send a JSON object {\"log\": \"...\", \"target\": ...} with Content-Type: application/json");
    }
    RLCOST_TRY(p, ParseBody(req, {"log", "target", "metric", "gpus", "usd_per_gpu_hour"}));
    const auto& f = p->fields;
    const auto raw = nlohmann::json::parse(req.body, nullptr, false);  // parsed once already: well formed
    if (raw.is_object() && (raw.contains("scenario") || raw.contains("set"))) {
      return SendError(res, 400, ErrorCode::kInvalidInput, raw.contains("scenario") ? "scenario" : "set",
                       "not used by /v1/forecast: it prices the steps from the log's own step times (gpus, usd_per_gpu_hour)");
    }
    if (!f.contains("log") || !f.at("log").is_string() || f.at("log").get<std::string>().empty()) {
      return SendError(res, 400, ErrorCode::kInvalidInput, "log",
                       "missing or not text; expected the log itself, e.g. \"step,val_acc\\n1,0.21\\n2,0.23\\n...\"");
    }
    RLCOST_TRY(target, OptNumber(f, "target"));
    if (!*target || !std::isfinite(**target)) {
      return SendError(res, 400, ErrorCode::kInvalidInput, "target", "missing; expected the metric's value to forecast the steps to, e.g. 0.6");
    }
    RLCOST_TRY(metric, Str(f, "metric", ""));
    RLCOST_TRY(gpus, Int(f, "gpus", 0, 0, 1'000'000));
    RLCOST_TRY(price, OptNumber(f, "usd_per_gpu_hour"));
    if (*price && !(**price > 0)) {
      return SendError(res, 400, ErrorCode::kInvalidInput, "usd_per_gpu_hour", "expected a positive price, got " + Compact(f.at("usd_per_gpu_hour")));
    }
    // Error paths of the command line's flags, said as this request's fields.
    auto as_fields = [](Error e) {
      for (auto& pr : e.problems) {
        if (pr.path == "metric" || pr.path == "target") continue;  // already this request's fields
        pr.path = pr.path.empty() ? "log" : "log: " + pr.path;
      }
      return e;
    };
    // The log is read and fitted on a thread of its own, at most
    // kMaxHeavyRunning at once (a log read whole takes ~75x its size).
    auto compute = [log = f.at("log").get<std::string>(), metric = *metric, gpus = static_cast<int>(*gpus),
                    target = **target, price = *price ? **price : std::numeric_limits<double>::quiet_NaN(),
                    as_fields]() -> Result<nlohmann::json> {
      auto series = forecast::ReadProgressText(log, "the posted log", forecast::ReadOptions{metric, gpus});
      if (!series) return Fail(as_fields(series.error()));
      if (sim::CancelRequested()) return Fail(sim::CancelledError());
      forecast::Options fo;
      fo.target = target;
      auto out = forecast::Forecast(*series, fo);
      if (!out) return Fail(as_fields(out.error()));
      const auto cost = forecast::CostFromLog(*series, out->fit_until_step, price);
      nlohmann::json j = forecast::ToJson(*series, *out, cost);
      j["plot"] = forecast::PlotToJson(forecast::BuildPlot(*series, *out));
      return j;
    };
    Result<nlohmann::json> out;
    if (!RunBounded(res, g_heavy, "reports and forecasts", budget, compute, &out, true)) return;
    if (!out) return SendError(res, StatusOf(out.error().code), out.error());
    res.set_content(Compact(*out), "application/json");
  });
  r.Get("/v1/default", [](const httplib::Request&, httplib::Response& res) {
    Send(res, ops::ScenarioDocument(ops::ScenarioInput{}));
  });
  r.Get("/v1/openapi.json", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(kOpenApiJson), "application/json");
  });
  // The web calculator: one page, compiled in (works offline).
  r.Get("/", [](const httplib::Request&, httplib::Response& res) {
    auto page = EmbeddedFile("index.html");
    if (!page) return SendError(res, 500, ErrorCode::kInternal, "", "the web page is not compiled in");
    res.set_content(std::string(*page), "text/html; charset=utf-8");
  });
  // A sweep computes on one thread, at most kMaxSweepsRunning at once (503
  // beyond), and stops at --sweep-timeout-ms (504) or when its client leaves;
  // a design of more than --sweep-max-points points is refused before it runs (400).
  r.Post("/v1/sweep", Cached(cache, [a](const httplib::Request& req, httplib::Response& res) {
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
      if (m.size() > kMaxSweepMetrics) {
        return SendError(res, 400, ErrorCode::kInvalidInput, "metrics",
                         std::to_string(m.size()) + " metrics; at most " + std::to_string(kMaxSweepMetrics) + " in one request");
      }
      for (size_t i = 0; i < m.size(); ++i) {
        if (!m[i].is_string()) {
          return SendError(res, 400, ErrorCode::kInvalidInput, "metrics[" + std::to_string(i) + "]", "expected a metric key such as \"run.usd\"");
        }
        const std::string name = m[i].get<std::string>();
        if (std::find(sw.metrics.begin(), sw.metrics.end(), name) != sw.metrics.end()) {
          return SendError(res, 400, ErrorCode::kInvalidInput, "metrics[" + std::to_string(i) + "]",
                           "'" + name + "' is listed twice; name each once");
        }
        sw.metrics.push_back(name);
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
    if (!g_sweeps.TryTake()) {
      res.set_header("Retry-After", "5");
      return SendHttpError(res, 503, "busy", "", "busy: " + std::to_string(kMaxSweepsRunning) + " sweeps are running; retry later");
    }
    // As for a simulation: the sweep runs on its own thread and stops itself
    // at the limit, the point under way included (the simulator polls the
    // same flag); the request waits no longer than the limit.
    struct Outcome {
      Result<nlohmann::json> r;
      std::string stopped;
    };
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    sw.cancel = [cancel] { return cancel->load(); };
    auto task = std::make_shared<std::packaged_task<Outcome()>>([in = p->in, sw] {
      Outcome o{Fail(ErrorCode::kInternal, "", "not run"), ""};
      o.r = ops::Sweep(in, sw, &o.stopped);
      return o;
    });
    auto fut = task->get_future();
    if (!serve::RunDetached(g_sweeps, [task] { (*task)(); })) {
      res.set_header("Retry-After", "5");
      return SendHttpError(res, 503, "busy", "", "busy: no thread could start for the sweep; retry later");
    }
    auto too_slow = [&](bool gone) {
      SendHttpError(res, 504, gone ? "cancelled" : "too_slow", "",
                    "the sweep took longer than " + Seconds(a.sweep_timeout_ms) + " s; ask for fewer points" +
                        (sw.simulate ? ", fewer steps or the closed form (no \"simulate\")" : ""));
    };
    bool gone = false;
    if (!AwaitOrCancel(fut, std::chrono::milliseconds(a.sweep_timeout_ms + 250), *cancel, &gone)) return too_slow(gone);
    Outcome o = fut.get();
    if (!o.r && !o.stopped.empty()) return too_slow(false);
    Send(res, o.r);
  }));
  // The catalog never changes while the server runs: rendered once.
  auto catalog = std::make_shared<std::string>();
  if (auto c = ops::Catalog()) *catalog = Compact(*c);
  r.Get("/v1/catalog", [catalog](const httplib::Request&, httplib::Response& res) {
    if (catalog->empty()) return SendError(res, 500, ErrorCode::kInternal, "catalog", "the built-in catalog did not load");
    res.set_content(*catalog, "application/json");
  });
  r.Get("/v1/health", [cache](const httplib::Request&, httplib::Response& res) {
    nlohmann::json j = {{"status", "ok"},
                        {"version", "0.1.0"},
                        {"simulations_running", g_sims.Running()},
                        {"sweeps_running", g_sweeps.Running()},
                        {"computations_running", g_analytic.Running() + g_heavy.Running()},
                        {"connections_queued", BoundedPool::Queued()},
                        {"connections_waiting", Lobby::Waiting()}};
    if (cache) j["cache"] = cache->Stats();
    res.set_content(Compact(j), "application/json");
  });
}

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}
bool IsWildcard(const std::string& host) { return host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]"; }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Compares in time that depends on the lengths only, not on where they differ.
bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i % std::max<size_t>(1, b.size())]);
  return diff == 0;
}

// Who may ask: the Host header against the names of this server (a page of
// another site whose name was made to resolve here, "DNS rebinding", sends
// its own name), and the token when there is one.
class Gate {
 public:
  explicit Gate(const ServeArgs& a) : token_(a.token), any_host_(IsWildcard(a.host)) {
    if (IsLoopback(a.host)) {
      for (const char* h : {"localhost", "127.0.0.1", "[::1]"}) hosts_.insert(h);
    }
    hosts_.insert(Lower(a.host.find(':') != std::string::npos && a.host.front() != '[' ? "[" + a.host + "]" : a.host));
    for (const auto& h : a.allow_hosts) hosts_.insert(Lower(h));
  }

  bool HostAllowed(const httplib::Request& req) const {
    if (any_host_ || !req.has_header("Host")) return true;  // no Host: not a browser (HTTP/1.0)
    std::string h = Lower(req.get_header_value("Host"));
    if (!h.empty() && h.front() == '[') {
      h = h.substr(0, h.find(']') + 1);
    } else if (h.find(':') != std::string::npos) {
      h = h.substr(0, h.find(':'));
    }
    if (!h.empty() && h.back() == '.') h.pop_back();
    return hosts_.count(h) > 0;
  }

  // True when the request carries the token (or none is needed). GET
  // /?token=T opens the calculator and leaves the token in a cookie that
  // only this site's own requests carry (SameSite=Strict).
  bool Authorized(const httplib::Request& req, httplib::Response& res) const {
    if (token_.empty()) return true;
    const std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) == 0 && SameSecret(auth.substr(7), token_)) return true;
    const std::string cookies = req.get_header_value("Cookie");
    for (size_t at = 0; at < cookies.size();) {
      size_t end = cookies.find(';', at);
      if (end == std::string::npos) end = cookies.size();
      std::string c = cookies.substr(at, end - at);
      c.erase(0, c.find_first_not_of(' '));
      if (c.rfind("rlcost_token=", 0) == 0 && SameSecret(c.substr(13), token_)) return true;
      at = end + 1;
    }
    if (req.method == "GET" && req.path == "/" && req.has_param("token") &&
        SameSecret(req.get_param_value("token"), token_)) {
      res.set_header("Set-Cookie", "rlcost_token=" + token_ + "; Path=/; HttpOnly; SameSite=Strict");
      return true;
    }
    return false;
  }

 private:
  std::string token_;
  bool any_host_;
  std::set<std::string> hosts_;
};

int Serve(ServeArgs a) {
  if (a.threads < 1 || a.threads > 1024) {
    return PrintError(Error::Invalid("--threads", std::to_string(a.threads) + "; expected 1..1024"), false);
  }
  if (a.queue < 0 || a.queue > 100000) {
    return PrintError(Error::Invalid("--queue", std::to_string(a.queue) + "; expected 0..100000"), false);
  }
  if (a.token.empty()) {
    if (const char* t = std::getenv("RLCOST_SERVE_TOKEN")) a.token = t;
  }
  if (!IsLoopback(a.host) && a.token.empty()) {
    return PrintError(Error::Invalid("--token", "required when listening on " + a.host +
                                                    ", an address other machines can reach: give --token SECRET (or set "
                                                    "RLCOST_SERVE_TOKEN); clients send \"Authorization: Bearer SECRET\""),
                      false);
  }
  if (auto cat = ops::BuiltinCatalog(); !cat) return PrintError(cat.error(), false);
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-answer must not end the server
  serve::TuneAllocator();      // before any thread starts (serve/memory.h)
  constexpr int kKeepAliveSeconds = 5;
  GuardedServer svr(a.request_timeout_ms, a.header_timeout_ms, kKeepAliveSeconds * 1000);
  svr.new_task_queue = [a, &svr] {
    auto* pool = new BoundedPool(a.threads, a.queue, 2);
    svr.SetPool(pool);
    return pool;
  };
  svr.set_payload_max_length(kMaxBodyBytes);
  svr.set_read_timeout(5, 0);
  svr.set_write_timeout(5, 0);
  svr.set_keep_alive_timeout(kKeepAliveSeconds);
  svr.set_keep_alive_max_count(10000);
  svr.set_tcp_nodelay(true);
  serve::IdleTrimmer trimmer(
      [] { return g_analytic.Running() + g_heavy.Running() + g_sims.Running() + g_sweeps.Running() > 0; });
  svr.set_logger([&trimmer](const httplib::Request&, const httplib::Response&) { trimmer.NoteRequest(); });
  int listen_fd = -1;
  svr.set_socket_options([&listen_fd](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = sock;
  });
  Router router(svr);
  auto gate = std::make_shared<Gate>(a);
  // Before anything is read of the body: who asks (Host, token), with which
  // method, and what the body is (its Content-Type). A refused request's body
  // is never read; its connection closes after the answer.
  svr.set_pre_routing_handler([gate, &router](const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    auto refuse = [&](int status, std::string_view code, std::string path, std::string message) {
      t_close = true;
      res.set_header("Connection", "close");
      SendHttpError(res, status, code, std::move(path), std::move(message));
      return R::Handled;
    };
    if (t_overflow) {
      res.set_header("Retry-After", "1");
      return refuse(503, "busy", "", "too many connections waiting; retry later");
    }
    if (!gate->HostAllowed(req)) {
      return refuse(403, "forbidden_host", "Host",
                    "this server does not answer to the name in the Host header; use the address it listens on "
                    "(or start it with --allow-host NAME)");
    }
    if (!gate->Authorized(req, res)) {
      res.set_header("WWW-Authenticate", "Bearer");
      return refuse(401, "unauthorized", "Authorization",
                    "this server asks for its token: send \"Authorization: Bearer TOKEN\" (or open /?token=TOKEN)");
    }
    if (!router.Allows(req.path, req.method)) {
      res.set_header("Allow", router.Allow(req.path));
      return refuse(405, "method_not_allowed", "", req.method + " is not allowed on " + req.path + "; use " + router.Allow(req.path));
    }
    if (req.method == "POST") {
      const std::string type = MediaType(req);
      if (!IsJsonType(type) && !IsYamlType(type)) {
        return refuse(415, "unsupported_media_type", "Content-Type",
                      (type.empty() ? std::string("no Content-Type") : "Content-Type '" + type + "'") +
                          "; send the body as JSON with Content-Type: application/json (or YAML with application/yaml)");
      }
    }
    return R::Unhandled;
  });
  // Statuses cpp-httplib sets itself (no route, a request it cannot parse)
  // get the same JSON error shape; our own errors pass through.
  svr.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    using R = httplib::Server::HandlerResponse;
    if (!res.body.empty()) return R::Unhandled;
    const int status = res.status;
    switch (status) {
      case 413:
        t_close = true;
        SendTooLarge(res);
        break;
      case 404: SendHttpError(res, status, "not_found", "", "no such endpoint: " + req.method + " " + req.path); break;
      case 400:
        t_close = true;  // what follows a request that could not be read is not a request
        if (t_deadline_passed) {
          res.set_header("Connection", "close");
          SendHttpError(res, 408, "too_slow", "", "the request did not arrive in time; send it whole, promptly");
        } else {
          SendHttpError(res, status, "invalid_input", "", "malformed HTTP request");
        }
        break;
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
  Routes(router, a);
  if (!router.Undocumented().empty()) {
    return PrintError(Error(ErrorCode::kInternal, "", "routes missing from /v1/openapi.json: " + router.Undocumented().front()),
                      false);
  }
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
  sub->add_option("--token", args->token,
                  "secret every request must carry (\"Authorization: Bearer SECRET\"); required when --host is not a "
                  "loopback address (also read from RLCOST_SERVE_TOKEN)");
  sub->add_option("--allow-host", args->allow_hosts,
                  "another name clients may reach this server by (the Host header), e.g. a proxy's; repeatable");
  sub->add_option("--threads", args->threads, "worker threads; each open connection holds one (default 64)");
  sub->add_option("--queue", args->queue, "connections that may wait for a worker before new ones get 503 (default 256)");
  sub->add_option("--cache-mib", args->cache_mib,
                  "memory for answers to repeated estimate/waterfall/price requests (default 64; 0 = compute every time)")
      ->check(CLI::Range(0, 4096));
  sub->add_option("--sweep-max-points", args->sweep_max_points, "most points one /v1/sweep request may have (default 10000)")
      ->check(CLI::Range(1, 10000000));
  sub->add_option("--sweep-timeout-ms", args->sweep_timeout_ms, "longest a /v1/sweep request computes before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  sub->add_option("--request-budget-ms", args->request_budget_ms,
                  "longest an estimate, waterfall, price card, report or forecast computes before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  sub->add_option("--sim-timeout-ms", args->sim_timeout_ms, "longest a /v1/simulate request waits before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  sub->add_option("--header-timeout-ms", args->header_timeout_ms,
                  "longest a request's header may take to arrive; the connection waits without a worker meanwhile "
                  "(default 5000)")
      ->check(CLI::Range(100, 600000));
  sub->add_option("--request-timeout-ms", args->request_timeout_ms,
                  "longest a request (its headers and body together) may take to arrive (default 10000)")
      ->check(CLI::Range(100, 600000));
  sub->callback([args, &exit_code] { exit_code = Serve(*args); });
}

}  // namespace rlcost::cli
