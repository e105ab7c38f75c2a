// `rlcost serve`: the JSON HTTP API (cpp-httplib).
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
//   server (DNS rebinding, 403); the token, required on any non-loopback address,
//   is asked of every request (401);
// - a request (headers and body) must arrive within request_timeout_ms in
//   all, however it trickles in (408 / closed); bodies are bounded as they are
//   read, chunked or compressed ones included;
// - a simulation or sweep stops when its answer is no longer wanted (504, or
//   the client left): the simulator polls a cancel flag;
// - answers are bounded before they are computed (sweep points and metrics,
//   price rows).
//
// The files: serve.cc (this: who may ask, start-up), handlers.cc (one
// function per endpoint), connections.cc (the thread pool, deadlines, the
// lobby where idle connections wait), http_io.cc (bodies, fields, errors,
// the answer cache), memory.cc; what they share: serve/server_parts.h.
#include <signal.h>
#include <sys/socket.h>

#include <cctype>
#include <cstdlib>
#include <iostream>
#include <set>

#include "serve/memory.h"
#include "serve/serve.h"
#include "serve/server_parts.h"

namespace rlcost::serve {
namespace {

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
  explicit Gate(const ServeRequest& a) : token_(a.token), any_host_(IsWildcard(a.host)) {
    if (ops::IsLoopback(a.host)) {
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

// Before anything is read of the body: who asks (Host, token), with which
// method, and what the body is (its Content-Type). A refused request's body
// is never read; its connection closes after the answer.
void InstallGate(httplib::Server& svr, const Router& router, std::shared_ptr<Gate> gate) {
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
                    "(or start the server with this name allowed: allow_hosts)");
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
}

  // Statuses cpp-httplib sets itself (no route, a request it cannot parse)
  // get the same JSON error shape; our own errors pass through.
void InstallErrorAnswers(httplib::Server& svr) {
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
}

}  // namespace

Result<void> Run(ServeRequest a) {
  if (a.token.empty()) {
    if (const char* t = std::getenv("RLCOST_SERVE_TOKEN")) a.token = t;
  }
  if (auto v = a.Validate(); !v) return v;
  if (auto cat = ops::BuiltinCatalog(); !cat) return Fail(cat.error());
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up mid-answer must not end the server
  serve::TuneAllocator();      // before any thread starts (serve/memory.h)
  constexpr int kKeepAliveSeconds = 5;
  auto server = MakeGuardedServer(a.request_timeout_ms, a.header_timeout_ms, kKeepAliveSeconds * 1000, a.threads, a.queue);
  httplib::Server& svr = *server;
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
  InstallGate(svr, router, std::make_shared<Gate>(a));
  InstallErrorAnswers(svr);
  Routes(router, a);
  if (!router.Undocumented().empty()) {
    return Fail(ErrorCode::kInternal, "", "routes missing from /v1/openapi.json: " + router.Undocumented().front());
  }
  int port = a.port;
  if (port == 0) {
    port = svr.bind_to_any_port(a.host);
    if (port < 0) port = 0;
  } else if (!svr.bind_to_port(a.host, port)) {
    port = 0;
  }
  if (port <= 0) {
    return Fail(ErrorCode::kInvalidInput, "port",
                "cannot listen on " + a.host + ":" + std::to_string(a.port) + " (in use, or not an address of this machine)");
  }
  if (listen_fd >= 0) ::listen(listen_fd, kListenBacklog);
  std::cout << "rlcost serve: listening on http://" << a.host << ":" << port << std::endl;
  if (!svr.listen_after_bind()) {
    return Fail(ErrorCode::kInternal, "", "the server stopped unexpectedly");
  }
  return {};
}

}  // namespace rlcost::serve
