#include "report/claims_table.h"

#include <map>

#include <fmt/format.h>

namespace rlcost::report {
namespace {

// Words of `text` on lines of at most `width` characters, each after `indent`.
std::string Wrap(const std::string& text, size_t width, const std::string& indent) {
  std::string out, line;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    std::string word = text.substr(i, j - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    i = j + 1;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

// The runs the claims start from, with the figures `estimate` gives for them.
std::string StartsText(const claims::Report& r) {
  auto line = [](const claims::StartingRun& run) {
    return run.ok ? fmt::format("{}: {:.4g} s a step, ${:.4g} a step", run.label, run.step_s, run.usd_per_step)
                  : run.label + ": could not be estimated";
  };
  std::string out = Wrap("claims start from " + line(r.run) + " (as rlcost estimate gives it)", 100, "  ");
  if (!r.naive.label.empty()) {
    out += Wrap("claims marked [from the naive baseline] start, as the essay states them, from " + line(r.naive), 100,
                "  ");
  }
  return out;
}

nlohmann::json StartJson(const claims::StartingRun& run) {
  return {{"label", run.label},
          {"step_time_s", run.ok ? nlohmann::json(run.step_s) : nlohmann::json(nullptr)},
          {"usd_per_step", run.ok ? nlohmann::json(run.usd_per_step) : nlohmann::json(nullptr)}};
}

}  // namespace

std::string ClaimsToTable(const claims::Report& r) {
  std::string out = fmt::format("rlcost claims — {}\n", r.scenario_name);
  out += Wrap(r.source, 100, "  ");
  out += Wrap(
      "verdict: holds (rlcost's figure for this scenario is inside the essay's), exceeds (better than the essay "
      "claims: a bigger saving, speed-up or effect), falls short (worse than it claims), depends (on what, below)",
      100, "  ");
  out += StartsText(r);
  out += "\n";
  std::map<std::string, int> count;
  for (const auto& c : r.claims) {
    ++count[c.verdict];
    out += fmt::format("  {:<12} {}{}\n", c.verdict, c.claim, c.from == "naive" ? "  [from the naive baseline]" : "");
    out += fmt::format("               essay: {}   rlcost: {}\n", c.claimed, c.rlcost);
    out += Wrap("why: " + c.why, 95, "               ");
    out += "\n";
  }
  out += fmt::format("  {} claims: {} hold, {} exceed, {} fall short, {} depend on this scenario's inputs\n",
                     r.claims.size(), count["holds"], count["exceeds"], count["falls short"], count["depends"]);
  return out;
}

nlohmann::json ClaimsToJson(const claims::Report& r) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& c : r.claims) {
    a.push_back({{"id", c.id},
                 {"claim", c.claim},
                 {"claimed", c.claimed},
                 {"rlcost", c.rlcost},
                 {"value", c.value ? nlohmann::json(*c.value) : nlohmann::json(nullptr)},
                 {"verdict", c.verdict},
                 {"why", c.why},
                 {"from", c.from},
                 {"starting_run", StartJson(c.from == "naive" ? r.naive : r.run)}});
  }
  return a;
}

}  // namespace rlcost::report
