// _rlcost: the compiled half of the `rlcost` Python package. Each function
// returns (None, json_text) on success or (error_code, error_json_text), the
// JSON being exactly what `rlcost <command> --json` prints; rlcost/__init__.py
// turns it into dicts and exceptions. The computation runs without the GIL.
#include <map>
#include <utility>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "api/ops.h"
#include "report/report.h"

namespace py = pybind11;
using rlcost::ops::ScenarioInput;

namespace {

ScenarioInput Input(const std::string& file, const std::string& text, const std::vector<std::string>& sets) {
  ScenarioInput in;
  in.file = file;
  in.text = text;
  in.sets = sets;
  return in;
}

// Runs `f` without the GIL and packs its result.
template <typename F>
py::tuple Call(F&& f) {
  std::string code, text;
  {
    py::gil_scoped_release release;
    rlcost::Result<nlohmann::json> r = f();
    if (r) {
      text = rlcost::ops::Dump(*r);
    } else {
      code = std::string(rlcost::ToString(r.error().code));
      text = rlcost::ops::Dump(rlcost::report::ErrorToJson(r.error()));
    }
  }
  if (code.empty()) return py::make_tuple(py::none(), text);
  return py::make_tuple(code, text);
}

}  // namespace

PYBIND11_MODULE(_rlcost, m) {
  m.doc() = "rlcost engine (use the `rlcost` package, not this module)";
  m.def("estimate", [](const std::string& file, const std::string& text, const std::vector<std::string>& sets) {
    return Call([&] { return rlcost::ops::Estimate(Input(file, text, sets)); });
  });
  m.def("simulate", [](const std::string& file, const std::string& text, const std::vector<std::string>& sets,
                       uint64_t seed, int steps) {
    return Call([&] { return rlcost::ops::Simulate(Input(file, text, sets), seed, steps); });
  });
  m.def("waterfall", [](const std::string& file, const std::string& text, const std::vector<std::string>& sets,
                        const std::string& order, const std::string& gpu, int tenants, int rank,
                        const std::string& moe_model, const std::string& dense_model,
                        std::optional<double> moe_pass_rate, std::optional<double> dense_pass_rate,
                        std::optional<double> staleness_discount, std::optional<double> fp8_discount,
                        std::optional<double> fp4_discount, const std::string& baseline) {
    rlcost::ops::LeverInput lv;
    lv.baseline = baseline;
    lv.order = order;
    lv.gpu = gpu;
    lv.tenants = tenants;
    lv.rank = rank;
    lv.moe_model = moe_model;
    lv.dense_model = dense_model;
    lv.moe_pass_rate = moe_pass_rate;
    lv.dense_pass_rate = dense_pass_rate;
    lv.staleness_discount = staleness_discount;
    lv.fp8_discount = fp8_discount;
    lv.fp4_discount = fp4_discount;
    return Call([&] { return rlcost::ops::Waterfall(Input(file, text, sets), lv); });
  });
  m.def("price", [](const std::string& file, const std::string& text, const std::vector<std::string>& sets,
                    const std::vector<std::string>& models, const std::vector<std::string>& gpus,
                    const std::string& stack, int tenants, std::optional<double> staleness_discount,
                    std::optional<double> fp8_discount, std::optional<double> fp4_discount) {
    rlcost::ops::PriceInput p{models, gpus, stack, tenants, staleness_discount, fp8_discount, fp4_discount};
    return Call([&] { return rlcost::ops::Price(Input(file, text, sets), p); });
  });
  m.def("sweep", [](const std::string& file, const std::string& text, const std::vector<std::string>& sets,
                    const std::string& vary_json, uint64_t sample, uint64_t seed, const std::vector<std::string>& metrics,
                    bool simulate, int steps, unsigned jobs, uint64_t max_points, double max_seconds) {
    rlcost::ops::SweepInput sw;
    sw.sample = sample;
    sw.seed = seed;
    sw.metrics = metrics;
    sw.simulate = simulate;
    sw.steps = steps;
    sw.threads = jobs;
    sw.max_points = max_points;
    sw.max_seconds = max_seconds;
    // Ctrl-C in the notebook stops the sweep (the handler raises KeyboardInterrupt below).
    sw.cancel = [] {
      py::gil_scoped_acquire gil;
      return PyErr_CheckSignals() != 0;
    };
    std::string stopped;
    py::tuple r = Call([&]() -> rlcost::Result<nlohmann::json> {
      nlohmann::json vary;
      try {
        vary = nlohmann::json::parse(vary_json);
      } catch (const nlohmann::json::exception& e) {
        return rlcost::Fail(rlcost::ErrorCode::kInvalidInput, "vary", std::string("not JSON: ") + e.what());
      }
      auto args = rlcost::ops::VaryArgs(vary, "vary");
      if (!args) return rlcost::Fail(args.error());
      sw.vary = *args;
      return rlcost::ops::Sweep(Input(file, text, sets), sw, &stopped);
    });
    if (PyErr_Occurred()) throw py::error_already_set();
    if (stopped == "time") return py::make_tuple("too_slow", r[1]);
    return r;
  });
  m.def("sensitivity", [](const std::string& file, const std::string& text, const std::vector<std::string>& sets,
                          const std::string& metric, double span,
                          const std::map<std::string, std::pair<double, double>>& ranges, const std::string& path,
                          uint64_t seed, int steps) {
    rlcost::ops::SensitivityInput si{metric, span, ranges, path, seed, steps};
    return Call([&] { return rlcost::ops::Sensitivity(Input(file, text, sets), si); });
  });
  m.def("catalog", [] { return Call([] { return rlcost::ops::Catalog(); }); });
  m.def("validate", [](const std::string& dir, const std::string& path, uint64_t seed, int sim_steps) {
    return Call([&] { return rlcost::ops::Validate(dir, path, seed, sim_steps); });
  });
}
