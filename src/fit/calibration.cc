// Calibration files: what `rlcost calibrate` writes and `--calibration FILE`
// reads. The fit itself is in econ/calibrate.cc.
#include "rlcost/calibration.h"

#include <cmath>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "catalog/efficiency_origin.h"
#include "core/count.h"
#include "core/file.h"
#include "core/yaml.h"
#include "fit/calibrate.h"

namespace rlcost {
namespace {

Problem At(const std::string& origin, const YAML::Node& n, std::string path, std::string msg) {
  Problem p{std::move(path), std::move(msg)};
  p.file = origin;
  if (n.IsDefined() && n.Mark().line >= 0) p.line = n.Mark().line + 1;
  return p;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::optional<double> AsDouble(const YAML::Node& n) {
  if (!n.IsScalar()) return std::nullopt;
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string CalibrationToYaml(const Calibration& cal) {
  std::string y;
  y += "# rlcost calibration: efficiency factors fitted by `rlcost calibrate` to a\n";
  y += "# training log (least squares on the logged phase times, bounded to\n";
  y += "# physical ranges). Use it as the calibration of a run: rlcost estimate RUN.yaml, calibration THIS_FILE\n";
  y += "calibration:\n";
  y += "  gpu: " + Quote(cal.gpu_id) + "\n";
  y += "  source: " + Quote(cal.source) + "\n";
  y += "  scenario: " + Quote(cal.scenario) + "\n";
  y += fmt::format("  steps: {}\n", cal.steps);
  y += fmt::format("  error_before: {:.6g}   # relative RMS of step time, catalog factors\n", cal.error_before);
  y += fmt::format("  error_after: {:.6g}    # the same with the fitted factors\n", cal.error_after);
  if (cal.response_clip_ratio) {
    y += fmt::format("  response_clip_ratio: {:.6g}   # mean share of responses at the maximum length, as logged\n",
                     *cal.response_clip_ratio);
  }
  y += "  fitted: [";
  for (size_t i = 0; i < cal.fitted.size(); ++i) y += (i ? ", " : "") + cal.fitted[i];
  y += "]\n";
  y += "  efficiency:\n";
  for (const auto& f : calib::EfficiencyFields()) {
    y += fmt::format("    {}: {:.6g}\n", f.name, cal.efficiency.*(f.member));
  }
  auto phases = [&](const char* name, const std::map<std::string, double>& m) {
    if (m.empty()) return;
    y += std::string("  ") + name + ":\n";
    for (const auto& [k, v] : m) y += fmt::format("    {}: {:.6g}\n", k, v);
  };
  phases("phase_error_before", cal.phase_error_before);
  phases("phase_error_after", cal.phase_error_after);
  if (!cal.notes.empty()) {
    y += "  notes:\n";
    for (const auto& n : cal.notes) y += "    - " + Quote(n) + "\n";
  }
  return y;
}

Result<Calibration> ParseCalibrationText(std::string_view text, const std::string& origin) {
  // One document: a second one (after `---`) is refused at its line, as the
  // scenario loader does, instead of being silently ignored.
  auto doc = LoadOneYamlDocument(text, origin, "a calibration file");
  if (!doc) return Fail(doc.error());
  YAML::Node root = *doc;
  Error err;
  auto bad = [&](const YAML::Node& n, std::string path, std::string msg) {
    err.problems.push_back(At(origin, n, std::move(path), std::move(msg)));
  };
  Calibration cal;
  YAML::Node c = root.IsMap() ? root["calibration"] : YAML::Node();
  if (!c || !c.IsMap()) {
    bad(root, "calibration", "expected a mapping `calibration:` (the file `rlcost calibrate` writes)");
    return Fail(err);
  }
  static const std::set<std::string> kKeys = {"gpu", "source", "scenario", "steps", "error_before", "error_after",
                                              "fitted", "efficiency", "phase_error_before", "phase_error_after", "notes",
                                              "response_clip_ratio"};
  for (auto it = c.begin(); it != c.end(); ++it) {
    std::string key = it->first.as<std::string>();
    if (!kKeys.count(key)) bad(it->first, "calibration." + key, "unknown key");
  }
  if (c["gpu"]) cal.gpu_id = c["gpu"].as<std::string>("");
  if (c["source"]) cal.source = c["source"].as<std::string>("");
  if (c["scenario"]) cal.scenario = c["scenario"].as<std::string>("");
  if (c["steps"]) {
    auto v = AsDouble(c["steps"]);
    if (auto n = v ? WholeNumber(*v, 0, 2000000000) : std::nullopt) {
      cal.steps = *n;
    } else {
      bad(c["steps"], "calibration.steps", "expected a whole number of logged steps >= 0, got '" +
                                              (c["steps"].IsScalar() ? c["steps"].Scalar() : std::string("(not a number)")) + "'");
    }
  }
  if (c["error_before"]) cal.error_before = AsDouble(c["error_before"]).value_or(0);
  if (c["error_after"]) cal.error_after = AsDouble(c["error_after"]).value_or(0);
  if (c["response_clip_ratio"]) {
    auto v = AsDouble(c["response_clip_ratio"]);
    if (v && *v >= 0 && *v <= 1) {
      cal.response_clip_ratio = *v;
    } else {
      bad(c["response_clip_ratio"], "calibration.response_clip_ratio",
          "expected the share of responses at the maximum length, in [0, 1], got '" +
              (c["response_clip_ratio"].IsScalar() ? c["response_clip_ratio"].Scalar() : std::string("(not a number)")) +
              "'");
    }
  }
  std::vector<std::string> listed;
  YAML::Node e = c["efficiency"];
  if (!e || !e.IsMap()) {
    bad(c, "calibration.efficiency", "expected a mapping of efficiency fields (decode_bw, train_mfu, ...)");
    return Fail(err);
  }
  for (auto it = e.begin(); it != e.end(); ++it) {
    std::string key = it->first.as<std::string>();
    const calib::EfficiencyField* f = calib::FindEfficiencyField(key);
    std::string path = "calibration.efficiency." + key;
    if (!f) {
      std::vector<std::string> names;
      for (const auto& g : calib::EfficiencyFields()) names.push_back(g.name);
      std::string near = ClosestMatch(key, names);
      bad(it->first, path, "unknown efficiency field" + (near.empty() ? "" : "; did you mean " + near + "?"));
      continue;
    }
    auto v = AsDouble(it->second);
    if (!v) {
      bad(it->second, path, "expected a number");
      continue;
    }
    if (f->fraction && !(*v > 0 && *v <= 1)) {
      bad(it->second, path, fmt::format("{:g} is outside (0, 1]", *v));
      continue;
    }
    if (!f->fraction && *v < 0) {
      bad(it->second, path, fmt::format("{:g} is negative; an overhead is >= 0 s", *v));
      continue;
    }
    cal.efficiency.*(f->member) = *v;
    listed.push_back(key);
  }
  if (YAML::Node fl = c["fitted"]) {
    if (!fl.IsSequence()) {
      bad(fl, "calibration.fitted", "expected a list of efficiency field names");
    } else {
      for (const auto& n : fl) {
        std::string key = n.as<std::string>("");
        if (!calib::FindEfficiencyField(key)) {
          bad(n, "calibration.fitted", "unknown efficiency field '" + key + "'");
        } else if (std::find(listed.begin(), listed.end(), key) == listed.end()) {
          bad(n, "calibration.fitted", "'" + key + "' is listed as fitted but has no value under efficiency");
        } else {
          cal.fitted.push_back(key);
        }
      }
    }
  } else {
    cal.fitted = listed;
  }
  auto phases = [&](const char* name, std::map<std::string, double>& out) {
    if (YAML::Node m = c[name]; m && m.IsMap()) {
      for (auto it = m.begin(); it != m.end(); ++it) {
        if (auto v = AsDouble(it->second)) out[it->first.as<std::string>()] = *v;
      }
    }
  };
  phases("phase_error_before", cal.phase_error_before);
  phases("phase_error_after", cal.phase_error_after);
  if (YAML::Node n = c["notes"]; n && n.IsSequence()) {
    for (const auto& x : n) cal.notes.push_back(x.as<std::string>(""));
  }
  if (!err.problems.empty()) return Fail(err);
  return cal;
}

Result<Calibration> LoadCalibrationFile(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxScenarioBytes, "calibration file");
  if (!text) {
    Error e = text.error();
    for (auto& p : e.problems) p.path = "calibration";
    return Fail(std::move(e));
  }
  return ParseCalibrationText(*text, path);
}

void ApplyCalibration(const Calibration& cal, Scenario& s) {
  if (cal.fitted.empty()) {
    s.hardware.gpu.efficiency = cal.efficiency;
    SetOriginOfEfficiency(s.hardware.gpu, EfficiencyOrigin{});  // fitted to the user's own log: nothing borrowed
    return;
  }
  EfficiencyOrigin origin = OriginOfEfficiency(s.hardware.gpu);
  for (const auto& name : cal.fitted) {
    if (const auto* f = calib::FindEfficiencyField(name)) {
      s.hardware.gpu.efficiency.*(f->member) = cal.efficiency.*(f->member);
      s.hardware.gpu.sources["efficiency." + name] = "calibrated: " + cal.source;
      std::erase(origin.borrowed_fields, name);  // the user's own figure now
    }
  }
  // What is still borrowed, by name (docs/model.md, "Efficiency defaults").
  origin.whole_row = false;
  SetOriginOfEfficiency(s.hardware.gpu, origin);
}

}  // namespace rlcost
