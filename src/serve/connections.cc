// The server's connections: a bounded thread pool, a deadline on reading
// each request, the lobby where connections wait for their next request
// without a worker, and cpp-httplib's connection loop replaced to use them.
#include <netdb.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <thread>

#include "serve/server_parts.h"

namespace rlcost::serve {

// The connection the current worker thread serves (GuardedServer), for the
// handlers: whether the client has gone, and to close it after an answer.
thread_local int t_sock = -1;
thread_local bool t_close = false;          // close the connection after this answer
thread_local bool t_deadline_passed = false;  // the request did not arrive in time

// Set on the threads that answer every request with 503 (queue full).
thread_local bool t_overflow = false;

// Computations in flight, each on a thread of its own (serve/slots.h); those
// past their 504 count until they stop.
serve::Slots g_sims(kMaxSimsRunning);
serve::Slots g_sweeps(kMaxSweepsRunning);
serve::Slots g_analytic(kMaxAnalyticRunning);
serve::Slots g_heavy(kMaxHeavyRunning);

namespace {

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

}  // namespace

std::unique_ptr<httplib::Server> MakeGuardedServer(int request_timeout_ms, int header_timeout_ms, int keep_alive_ms,
                                                   int threads, int queue) {
  auto svr = std::make_unique<GuardedServer>(request_timeout_ms, header_timeout_ms, keep_alive_ms);
  GuardedServer* s = svr.get();
  s->new_task_queue = [s, threads, queue] {
    auto* pool = new BoundedPool(threads, queue, 2);
    s->SetPool(pool);
    return pool;
  };
  return svr;
}

size_t QueuedConnections() { return BoundedPool::Queued(); }
size_t WaitingConnections() { return Lobby::Waiting(); }

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

}  // namespace rlcost::serve
