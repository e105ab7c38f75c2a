// The endpoints, one function each: what a request may say, the operation
// of the application layer it calls (api/ops.h), and the bounds it runs under.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "forecast/forecast.h"
#include "forecast/plot.h"
#include "forecast/render.h"
#include "rlcost/embedded.h"
#include "serve/server_parts.h"
#include "core/cancel.h"

namespace rlcost::serve {

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

bool RunBounded(httplib::Response& res, serve::Slots& slots, std::string_view what, std::chrono::milliseconds budget,
                std::function<Result<nlohmann::json>()> compute, Result<nlohmann::json>* out, bool trim) {
  if (!slots.TryTake()) {
    SendBusy(res, slots, what);
    return false;
  }
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto task = std::make_shared<std::packaged_task<Result<nlohmann::json>()>>([compute = std::move(compute), cancel] {
    ScopedCancel scope(cancel.get());
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

namespace {

using Budget = std::chrono::milliseconds;
using Cache = std::shared_ptr<ResponseCache>;

void AddEstimate(Router& r, const Cache& cache, Budget budget) {
  r.Post("/v1/estimate", Cached(cache, [budget](const httplib::Request& req, httplib::Response& res) {
    RLCOST_TRY(p, ParseBody(req, {}));
    Result<nlohmann::json> out;
    if (RunBounded(res, g_analytic, "estimates", budget, [in = p->in] { return ops::Estimate(in); }, &out)) Send(res, out);
  }));
}

void AddSimulate(Router& r, const ServeRequest& a) {
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
}

void AddWaterfall(Router& r, const Cache& cache, Budget budget) {
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
}

void AddPrice(Router& r, const Cache& cache, Budget budget) {
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
}

void AddReport(Router& r, Budget budget) {
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
}

void AddForecast(Router& r, Budget budget) {
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
      if (CancelRequested()) return Fail(CancelledError());
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
}

void AddPages(Router& r) {
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
}

// The columns a /v1/sweep request asks for ("metrics"): a list of metric
// keys, each named once, at most kMaxSweepMetrics.
Result<std::vector<std::string>> SweepMetrics(const nlohmann::json& f) {
std::vector<std::string> out;
if (f.contains("metrics")) {
    const auto& m = f.at("metrics");
    if (!m.is_array()) return Fail(ErrorCode::kInvalidInput, "metrics", "expected a list of metric keys such as \"run.usd\"");
    if (m.size() > kMaxSweepMetrics) {
      return Fail(ErrorCode::kInvalidInput, "metrics",
                       std::to_string(m.size()) + " metrics; at most " + std::to_string(kMaxSweepMetrics) + " in one request");
    }
    for (size_t i = 0; i < m.size(); ++i) {
      if (!m[i].is_string()) {
        return Fail(ErrorCode::kInvalidInput, "metrics[" + std::to_string(i) + "]", "expected a metric key such as \"run.usd\"");
      }
      const std::string name = m[i].get<std::string>();
      if (std::find(out.begin(), out.end(), name) != out.end()) {
        return Fail(ErrorCode::kInvalidInput, "metrics[" + std::to_string(i) + "]",
                         "'" + name + "' is listed twice; name each once");
      }
      out.push_back(name);
    }
  }
  return out;
}

void AddSweep(Router& r, const ServeRequest& a, const Cache& cache) {
  // A sweep computes on one thread, at most kMaxSweepsRunning at once (503
  // beyond), and stops at sweep_timeout_ms (504) or when its client leaves;
  // a design of more than sweep_max_points points is refused before it runs (400).
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
    RLCOST_TRY(metrics, SweepMetrics(f));
    sw.metrics = *metrics;
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
}

void AddCatalogAndHealth(Router& r, const Cache& cache) {
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
                        {"connections_queued", QueuedConnections()},
                        {"connections_waiting", WaitingConnections()}};
    if (cache) j["cache"] = cache->Stats();
    res.set_content(Compact(j), "application/json");
  });
}

}  // namespace

void Routes(Router& r, const ServeRequest& a) {
  const auto budget = std::chrono::milliseconds(a.request_budget_ms);
  std::shared_ptr<ResponseCache> cache;
  if (a.cache_mib > 0) cache = std::make_shared<ResponseCache>(static_cast<size_t>(a.cache_mib) << 20);
  AddEstimate(r, cache, budget);
  AddSimulate(r, a);
  AddWaterfall(r, cache, budget);
  AddPrice(r, cache, budget);
  AddReport(r, budget);
  AddForecast(r, budget);
  AddPages(r);
  AddSweep(r, a, cache);
  AddCatalogAndHealth(r, cache);
}

}  // namespace rlcost::serve
