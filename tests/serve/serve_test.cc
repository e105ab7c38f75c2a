// `rlcost serve` driven over real sockets, as a client (or an abuser) would:
// each test starts the binary on a free port, and every abuse ends with the
// server still answering /v1/health.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Serve : public ::testing::Test {
 protected:
  void SetUp() override {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    pid_ = fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      execl(RLCOST_BINARY, RLCOST_BINARY, "serve", "--port", "0", "--threads", "8", "--queue", "16",
            "--sim-timeout-ms", "2000", "--sweep-timeout-ms", "2000", "--sweep-max-points", "500",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    // First line: "rlcost serve: listening on http://127.0.0.1:PORT".
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    out_fd_ = out[0];
    auto colon = line.rfind(':');
    ASSERT_NE(colon, std::string::npos) << "server said: " << line;
    port_ = std::stoi(line.substr(colon + 1));
  }
  void TearDown() override {
    if (pid_ > 0) {
      int status = 0;
      // Still alive after the test: nothing crashed it.
      EXPECT_EQ(waitpid(pid_, &status, WNOHANG), 0) << "the server exited during the test";
      kill(pid_, SIGTERM);
      waitpid(pid_, &status, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
  }

  httplib::Client Client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }

  // Raw socket connected to the server (-1 on failure).
  int Connect() const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  }

  // Reads until the peer closes or `timeout` passes.
  static std::string ReadAll(int fd, std::chrono::milliseconds timeout) {
    std::string got;
    auto end = Clock::now() + timeout;
    char buf[4096];
    while (Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      int ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count());
      if (poll(&p, 1, std::max(ms, 1)) <= 0) break;
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }

  void ExpectHealthy() {
    auto r = Client().Get("/v1/health");
    ASSERT_TRUE(r) << "no answer from /v1/health: " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(Json::parse(r->body)["status"], "ok");
  }

  // POSTs and returns (status, parsed body).
  std::pair<int, Json> Post(const std::string& path, const std::string& body,
                            const std::string& type = "application/json") {
    auto r = Client().Post(path.c_str(), body, type.c_str());
    if (!r) return {0, Json()};
    return {r->status, Json::parse(r->body, nullptr, false)};
  }

  static std::vector<std::string> Paths(const Json& err) {
    std::vector<std::string> out;
    for (const auto& p : err["error"]["problems"]) out.push_back(p["path"]);
    return out;
  }

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
};

TEST_F(Serve, EstimateMatchesTheCommandLine) {
  const std::string yaml = ReadFile(RLCOST_SOURCE_DIR "/scenarios/default.yaml");
  Json body = {{"scenario", yaml}};
  auto [status, j] = Post("/v1/estimate", body.dump());
  ASSERT_EQ(status, 200) << j.dump();
  FILE* p = popen(RLCOST_BINARY " estimate " RLCOST_SOURCE_DIR "/scenarios/default.yaml --json", "r");
  ASSERT_NE(p, nullptr);
  std::string cli;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) cli.append(buf, n);
  pclose(p);
  EXPECT_EQ(j, Json::parse(cli));
  // The same scenario as YAML text in the body, and as a JSON object.
  auto [s2, j2] = Post("/v1/estimate", yaml, "application/yaml");
  EXPECT_EQ(s2, 200);
  EXPECT_EQ(j2["cost"], j["cost"]);
}

TEST_F(Serve, OtherEndpoints) {
  auto [s1, sim] = Post("/v1/simulate", R"({"steps": 1, "seed": 3})");
  EXPECT_EQ(s1, 200) << sim.dump();
  EXPECT_GT(sim["cost"]["usd_per_step"].get<double>(), 0);
  auto [s2, wf] = Post("/v1/waterfall", R"({"order": "async,fp8"})");
  EXPECT_EQ(s2, 200) << wf.dump();
  // A quality discount outside [0, 1) names the request's field.
  auto [s2b, bad_wf] = Post("/v1/waterfall", R"({"order": "async", "staleness_discount": 1.5})");
  EXPECT_EQ(s2b, 400) << bad_wf.dump();
  EXPECT_EQ(Paths(bad_wf), std::vector<std::string>{"staleness_discount"});
  auto [s3, price] = Post("/v1/price", R"({"gpus": ["h100-sxm", "b200"]})");
  EXPECT_EQ(s3, 200) << price.dump();
  // The price card takes the quality discounts too: staleness 0.5 against 0
  // doubles an async stack's $ per useful sample; out of [0, 1) names the field.
  auto [s3a, half] = Post("/v1/price", R"({"stack": "async", "staleness_discount": 0.5})");
  auto [s3b, none] = Post("/v1/price", R"({"stack": "async", "staleness_discount": 0})");
  ASSERT_EQ(s3a, 200) << half.dump();
  ASSERT_EQ(s3b, 200) << none.dump();
  EXPECT_NEAR(half["rows"][0]["usd_per_useful_sample"].get<double>() / none["rows"][0]["usd_per_useful_sample"].get<double>(), 2.0, 1e-9);
  auto [s3c, bad_price] = Post("/v1/price", R"({"stack": "fp4", "fp4_discount": -0.1})");
  EXPECT_EQ(s3c, 400) << bad_price.dump();
  EXPECT_EQ(Paths(bad_price), std::vector<std::string>{"fp4_discount"});
  auto cat = Client().Get("/v1/catalog");
  ASSERT_TRUE(cat);
  EXPECT_TRUE(Json::parse(cat->body)["gpus"].contains("h100-sxm"));
  auto [s4, too_many] = Post("/v1/simulate", R"({"steps": 1000})");
  EXPECT_EQ(s4, 400);
  EXPECT_EQ(Paths(too_many), std::vector<std::string>{"steps"});
  auto [s5, sweep] = Post("/v1/sweep", "{}");
  EXPECT_EQ(s5, 400);
  EXPECT_EQ(Paths(sweep), std::vector<std::string>{"vary"}) << sweep.dump();
  auto nf = Client().Get("/v1/nothing");
  ASSERT_TRUE(nf);
  EXPECT_EQ(nf->status, 404);
  EXPECT_EQ(Json::parse(nf->body)["error"]["code"], "not_found");
}

TEST_F(Serve, RepeatedRequestIsServedFromTheCache) {
  const std::string body = R"({"scenario": {"model": "qwen3-8b", "hardware": {"gpu": "b200", "gpus": 8}}})";
  auto [s1, a] = Post("/v1/estimate", body);
  auto [s2, b] = Post("/v1/estimate", body);
  ASSERT_EQ(s1, 200);
  ASSERT_EQ(s2, 200);
  EXPECT_EQ(a, b);
  auto h = Json::parse(Client().Get("/v1/health")->body);
  EXPECT_EQ(h["cache"]["hits"], 1) << h.dump();
  // An error is never cached: the same bad body fails twice the same way.
  EXPECT_EQ(Post("/v1/estimate", R"({"scenario": {"model": 1}})").first, 400);
  EXPECT_EQ(Post("/v1/estimate", R"({"scenario": {"model": 1}})").first, 400);
  EXPECT_EQ(Json::parse(Client().Get("/v1/health")->body)["cache"]["entries"], 1);
}

TEST_F(Serve, BadScenarioNamesFieldPaths) {
  auto [status, j] = Post("/v1/estimate", R"({"scenario": {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": -3}}})");
  EXPECT_EQ(status, 400);
  auto paths = Paths(j);
  EXPECT_NE(std::find(paths.begin(), paths.end(), "hardware.gpus"), paths.end()) << j.dump();
  ExpectHealthy();
}

TEST_F(Serve, DoesNotFitIs422) {
  auto [status, j] = Post("/v1/estimate", R"({"scenario": {"model": "deepseek-v3", "hardware": {"gpu": "l40s", "gpus": 1}}})");
  EXPECT_EQ(status, 422) << j.dump();
  EXPECT_EQ(j["error"]["code"], "does_not_fit");
}

TEST_F(Serve, MalformedJson) {
  for (const char* body : {"{", "{\"scenario\": }", "[1, 2", "\xff\xfe", "null", "42"}) {
    auto [status, j] = Post("/v1/estimate", body);
    EXPECT_EQ(status, 400) << body;
    EXPECT_EQ(j["error"]["code"], "invalid_input") << body;
  }
  ExpectHealthy();
}

TEST_F(Serve, TenMebibyteBodyIs413) {
  int fd = Connect();
  ASSERT_GE(fd, 0);
  const size_t size = 10u << 20;
  std::string head = "POST /v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                     std::to_string(size) + "\r\n\r\n";
  ASSERT_EQ(write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  std::string chunk(64 << 10, ' ');
  for (size_t sent = 0; sent < size; sent += chunk.size()) {
    if (send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) <= 0) break;  // the server may close early
  }
  std::string got = ReadAll(fd, std::chrono::seconds(10));
  close(fd);
  EXPECT_NE(got.find(" 413 "), std::string::npos) << got.substr(0, 200);
  EXPECT_NE(got.find("too_large"), std::string::npos);
  // The same through a client that sends all of it.
  auto r = Client().Post("/v1/estimate", std::string(size, ' '), "application/json");
  if (r) {
    EXPECT_EQ(r->status, 413);
  }
  ExpectHealthy();
}

TEST_F(Serve, DeepNesting) {
  const int depth = 10000;
  std::string deep = "{\"scenario\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
  auto [s1, j1] = Post("/v1/estimate", deep);
  EXPECT_EQ(s1, 400);
  EXPECT_NE(j1["error"]["problems"][0]["message"].get<std::string>().find("nested"), std::string::npos) << j1.dump();
  // As YAML flow text, in the body or as the scenario's text: the same limit.
  std::string yaml = "model: " + std::string(depth, '[') + std::string(depth, ']');
  auto [s2, j2] = Post("/v1/estimate", yaml, "application/yaml");
  EXPECT_EQ(s2, 400) << j2.dump().substr(0, 300);
  EXPECT_NE(j2.dump().find("nested 10000 deep"), std::string::npos) << j2.dump().substr(0, 300);
  auto [s3, j3] = Post("/v1/estimate", Json({{"scenario", yaml}}).dump());
  EXPECT_EQ(s3, 400) << j3.dump().substr(0, 300);
  EXPECT_EQ(Paths(j3), std::vector<std::string>{"scenario"}) << j3.dump().substr(0, 300);
  ExpectHealthy();
}

TEST_F(Serve, NanAndInfinity) {
  // Not JSON at all.
  for (const char* body : {R"({"scenario": {"model": "qwen3-8b", "hardware": {"gpus": NaN}}})",
                           R"({"scenario": {"model": "qwen3-8b", "hardware": {"gpus": Infinity}}})",
                           R"({"steps": -Infinity})"}) {
    auto [status, j] = Post("/v1/estimate", body);
    EXPECT_EQ(status, 400) << body;
  }
  // YAML's spelling is a number, refused by the scenario check with its path.
  auto [status, j] = Post("/v1/estimate",
                          R"({"scenario": "model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nenvironment: {pass_rate: {mean: .nan, concentration: 2}}"})");
  EXPECT_EQ(status, 400) << j.dump();
  auto paths = Paths(j);
  EXPECT_TRUE(std::any_of(paths.begin(), paths.end(), [](const std::string& p) { return p.find("pass_rate") != std::string::npos; }))
      << j.dump();
  ExpectHealthy();
}

TEST_F(Serve, UnknownFields) {
  auto [s1, j1] = Post("/v1/estimate", R"({"scenario": null, "bogus": 1})");
  EXPECT_EQ(s1, 400);
  EXPECT_EQ(Paths(j1), std::vector<std::string>{"bogus"});
  auto [s2, j2] = Post("/v1/estimate", R"({"scenario": {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}, "modle": 1}})");
  EXPECT_EQ(s2, 400);
  auto paths = Paths(j2);
  EXPECT_NE(std::find(paths.begin(), paths.end(), "modle"), paths.end()) << j2.dump();
}

TEST_F(Serve, RequestCannotNameAFile) {
  auto [s1, j1] = Post("/v1/estimate",
                       R"({"scenario": {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}, "environment": {"pass_rate": {"file": "/etc/passwd"}}}})");
  EXPECT_EQ(s1, 400) << j1.dump();
  EXPECT_NE(j1.dump().find("files cannot be read here"), std::string::npos) << j1.dump();
}

TEST_F(Serve, SlowClientHoldsOneWorkerOnly) {
  // One byte per second of a request line, while other clients are served.
  int fd = Connect();
  ASSERT_GE(fd, 0);
  const std::string req = "POST /v1/estimate HTTP/1.1\r\n";
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(send(fd, &req[i], 1, MSG_NOSIGNAL), 1);
    auto t0 = Clock::now();
    ExpectHealthy();
    EXPECT_LT(Clock::now() - t0, std::chrono::seconds(1));
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  // A client that stops sending is dropped after the 5 s read timeout.
  auto t0 = Clock::now();
  std::string got = ReadAll(fd, std::chrono::seconds(15));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
  close(fd);
  ExpectHealthy();
}

TEST_F(Serve, ThousandConcurrentConnections) {
  const int n = 1000;
  rlimit lim{};
  getrlimit(RLIMIT_NOFILE, &lim);
  if (lim.rlim_cur < static_cast<rlim_t>(n) + 64) {
    lim.rlim_cur = std::min<rlim_t>(lim.rlim_max, static_cast<rlim_t>(n) + 64);
    setrlimit(RLIMIT_NOFILE, &lim);
  }
  if (lim.rlim_cur < static_cast<rlim_t>(n) + 64) GTEST_SKIP() << "open-file limit " << lim.rlim_cur << " < " << n + 64;
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    int fd = Connect();
    if (fd >= 0) fds.push_back(fd);
  }
  EXPECT_EQ(static_cast<int>(fds.size()), n);
  const std::string req = "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  for (int fd : fds) send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  // Every connection gets an answer (200 or a clean 503) within a bounded wait.
  int ok = 0, busy = 0, other = 0;
  auto end = Clock::now() + std::chrono::seconds(60);
  std::vector<std::string> got(fds.size());
  std::vector<bool> done(fds.size(), false);
  size_t left = fds.size();
  char buf[4096];
  while (left > 0 && Clock::now() < end) {
    std::vector<pollfd> ps;
    std::vector<size_t> idx;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!done[i]) {
        ps.push_back({fds[i], POLLIN, 0});
        idx.push_back(i);
      }
    }
    if (poll(ps.data(), ps.size(), 1000) <= 0) continue;
    for (size_t k = 0; k < ps.size(); ++k) {
      if (!(ps[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      size_t i = idx[k];
      ssize_t r = read(fds[i], buf, sizeof(buf));
      if (r > 0) {
        got[i].append(buf, static_cast<size_t>(r));
      } else {
        done[i] = true;
        --left;
      }
    }
  }
  for (size_t i = 0; i < fds.size(); ++i) {
    close(fds[i]);
    if (got[i].rfind("HTTP/1.1 200", 0) == 0) {
      ++ok;
    } else if (got[i].rfind("HTTP/1.1 503", 0) == 0 && got[i].find("\"busy\"") != std::string::npos) {
      ++busy;
    } else {
      ++other;
    }
  }
  std::printf("1000 connections: %d answered 200, %d answered 503 busy, %d other\n", ok, busy, other);
  EXPECT_EQ(left, 0u) << "connections still waiting after 60 s";
  EXPECT_EQ(other, 0);
  EXPECT_GT(ok, 0);
  ExpectHealthy();
}

TEST_F(Serve, SimulationPastItsTimeIs504) {
  // 20 steps of 16,384 prompts x 64 rollouts: 21 million simulated
  // trajectories, far more than this server's 2 s allow (`rlcost simulate`
  // takes ~15 s for them on an idle core). The answer comes at the limit,
  // not when it ends.
  auto t0 = Clock::now();
  auto [status, j] = Post("/v1/simulate",
                          R"({"steps": 20, "scenario": {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}, "algorithm": {"prompts_per_step": 16384, "group_size": 64}}})");
  EXPECT_EQ(status, 504) << j.dump().substr(0, 300);
  EXPECT_EQ(j["error"]["code"], "too_slow");
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  ExpectHealthy();
}

TEST_F(Serve, SweepMatchesTheCommandLine) {
  auto [status, j] = Post("/v1/sweep",
                          R"({"vary": {"hardware.gpu": ["h100-sxm", "b200"], "algorithm.group_size": "4..8:4"}})");
  ASSERT_EQ(status, 200) << j.dump().substr(0, 300);
  EXPECT_EQ(j["engine"], "analytic");
  EXPECT_EQ(j["keys"], Json::parse(R"(["algorithm.group_size", "hardware.gpu"])"));
  ASSERT_EQ(j["rows"].size(), 4u);
  // The same sweep by `rlcost sweep --jsonl`: the same rows.
  const std::string jsonl = ::testing::TempDir() + "serve_sweep.jsonl";
  const std::string cmd = std::string(RLCOST_BINARY) +
                          " sweep --vary algorithm.group_size=4..8:4 --vary hardware.gpu=h100-sxm,b200 --jsonl " + jsonl +
                          " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(jsonl);
  std::string line;
  std::vector<Json> cli;
  while (std::getline(in, line)) cli.push_back(Json::parse(line));
  ASSERT_EQ(cli.size(), 4u);
  for (size_t i = 0; i < cli.size(); ++i) EXPECT_EQ(j["rows"][i], cli[i]) << i;
  EXPECT_GT(j["rows"][0]["run.usd"].get<double>(), 0);
  // A sample, and the list form of "vary" (--vary's own spelling).
  auto [s2, j2] = Post("/v1/sweep", R"({"vary": ["algorithm.group_size=2..64"], "sample": 5, "seed": 3,
                                        "metrics": ["step.time_s"]})");
  ASSERT_EQ(s2, 200) << j2.dump().substr(0, 300);
  EXPECT_EQ(j2["rows"].size(), 5u);
  EXPECT_TRUE(j2["rows"][0].contains("step.time_s"));
  EXPECT_FALSE(j2["rows"][0].contains("run.usd"));
}

TEST_F(Serve, SweepIsBounded) {
  // More points than --sweep-max-points (500): refused before any runs.
  auto [s1, j1] = Post("/v1/sweep", R"({"vary": {"algorithm.group_size": "1..1000"}})");
  EXPECT_EQ(s1, 400) << j1.dump();
  EXPECT_EQ(Paths(j1), std::vector<std::string>{"vary"}) << j1.dump();
  auto [s2, j2] = Post("/v1/sweep", R"({"vary": {"algorithm.group_size": "1..1000"}, "sample": 100000})");
  EXPECT_EQ(s2, 400) << j2.dump();
  EXPECT_EQ(Paths(j2), std::vector<std::string>{"sample"}) << j2.dump();
  // A field that is not a scenario field, and a value that is not one.
  auto [s3, j3] = Post("/v1/sweep", R"({"vary": {"hardware.gpux": ["b200"]}})");
  EXPECT_EQ(s3, 400) << j3.dump();
  EXPECT_EQ(Paths(j3), std::vector<std::string>{"hardware.gpux"}) << j3.dump();
  auto [s4, j4] = Post("/v1/sweep", R"({"vary": {"hardware.gpu": [null]}})");
  EXPECT_EQ(s4, 400) << j4.dump();
  EXPECT_EQ(Paths(j4), std::vector<std::string>{"vary.hardware.gpu[0]"}) << j4.dump();
  // Past --sweep-timeout-ms (2 s): the answer comes at the limit. Each point
  // simulates 20 steps of 16,384 prompts x 64 rollouts (~15 s on an idle core).
  auto t0 = Clock::now();
  auto [s5, j5] = Post("/v1/sweep",
                       R"({"simulate": true, "steps": 20, "vary": {"algorithm.group_size": [64, 65]},
                           "scenario": {"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8},
                                        "algorithm": {"prompts_per_step": 16384}}})");
  EXPECT_EQ(s5, 504) << j5.dump().substr(0, 300);
  EXPECT_EQ(j5["error"]["code"], "too_slow");
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(5));
  ExpectHealthy();
}

TEST_F(Serve, JsonScenarioSameAsItsText) {
  // The object is loaded as it is, the text through YAML: the same estimate,
  // and the same errors with the same field paths.
  const std::string obj =
      R"({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}, "algorithm": {"group_size": 16, "lora": {"rank": 32}}, "name": "8"})";
  auto [s1, a] = Post("/v1/estimate", R"({"scenario": )" + obj + "}");
  auto [s2, b] = Post("/v1/estimate", Json({{"scenario", obj}}).dump());
  ASSERT_EQ(s1, 200) << a.dump().substr(0, 300);
  EXPECT_EQ(s2, 200);
  EXPECT_EQ(a, b);
  for (const std::string bad : {R"({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": "8x"}, "modle": null})",
                                R"({"model": ["qwen3-8b"], "hardware": {"gpu": true, "gpus": 1.5}})",
                                R"({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}, "algorithm": {"group_size": "null"}})"}) {
    auto [t1, e1] = Post("/v1/estimate", R"({"scenario": )" + bad + "}");
    auto [t2, e2] = Post("/v1/estimate", Json({{"scenario", Json::parse(bad).dump()}}).dump());
    EXPECT_EQ(t1, 400) << bad;
    EXPECT_EQ(t1, t2) << bad;
    EXPECT_EQ(Paths(e1), Paths(e2)) << e1.dump() << "\n" << e2.dump();
    for (size_t i = 0; i < std::min(e1["error"]["problems"].size(), e2["error"]["problems"].size()); ++i) {
      EXPECT_EQ(e1["error"]["problems"][i]["message"], e2["error"]["problems"][i]["message"]) << bad;
    }
  }
}

}  // namespace
