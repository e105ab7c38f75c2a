// Harbor tasks -> scenario. The task format (harbor-framework/harbor, formerly
// laude-institute/harbor; Terminal-Bench 2): a folder with
//   task.toml        [verifier] timeout_sec, [agent] timeout_sec,
//                    [environment] build_timeout_sec, docker_image, cpus,
//                    memory_mb, storage_mb, gpus, allow_internet; [metadata]
//   instruction.md   the task's prompt
//   environment/     the sandbox's Dockerfile (or docker_image: prebuilt)
//   tests/test.sh    the verifier, run in the trial's container
// A dataset is a folder of such folders. docs/model.md, "Importing Harbor tasks".
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/file.h"
#include "ingest/config_tree.h"
#include "ingest/import.h"
#include "ingest/import_common.h"
#include "link/toml.h"

namespace rlcost::ingest {
namespace {

namespace fs = std::filesystem;



// Characters per token of English prose for BPE tokenizers (OpenAI's rule of
// thumb, "What are tokens and how to count them?", help.openai.com): ASSUMED
// for an instruction's length in tokens.
constexpr double kCharsPerToken = 4.0;

struct HarborTask {
  std::string dir;
  std::string name;
  double instruction_tokens = 0;
  std::optional<double> cpus, agent_timeout_s, verifier_timeout_s, build_timeout_s, gpus;
  std::optional<std::string> docker_image;
  bool dockerfile = false;
  std::vector<std::string> unmapped;  // "key = value" read with no counterpart
};

std::string Short(std::string v) {
  for (char& c : v) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (v.size() > 60) v = v.substr(0, 57) + "...";
  return v;
}

std::string ValueText(const toml::node& n) {
  if (auto s = n.value<std::string>()) return "\"" + Short(*s) + "\"";
  std::ostringstream os;
  if (n.is_table()) {
    os << "{...}";
  } else if (n.is_array()) {
    os << "[" << n.as_array()->size() << " item" << (n.as_array()->size() == 1 ? "" : "s") << "]";
  } else {
    n.visit([&os](const auto& x) { os << x; });
  }
  return Short(os.str());
}

class TaskReader {
 public:
  TaskReader(std::string file, toml::table& t) : file_(std::move(file)), t_(t) {}

  // A positive number at [section] key; a problem naming file:line and the key otherwise.
  std::optional<double> Number(const std::string& section, const std::string& key, bool allow_zero = false) {
    read_.insert(section + "." + key);
    const toml::node* n = t_[section][key].node();
    if (!n) return std::nullopt;
    auto v = n->value<double>();
    if (!v || !std::isfinite(*v) || *v < 0 || (!allow_zero && *v == 0)) {
      Add(*n, section + "." + key,
          fmt::format("{} is not {}", ValueText(*n), allow_zero ? "a number >= 0" : "a number > 0"));
      return std::nullopt;
    }
    return *v;
  }
  std::optional<std::string> String(const std::string& section, const std::string& key) {
    read_.insert(section + "." + key);
    const toml::node* n = t_[section][key].node();
    if (!n) return std::nullopt;
    auto v = n->value<std::string>();
    if (!v) Add(*n, section + "." + key, fmt::format("{} is not a string", ValueText(*n)));
    return v;
  }
  // Every key not read, "section.key = value".
  std::vector<std::string> Unread() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : t_) {
      const std::string key(k.str());
      if (const toml::table* sub = v.as_table()) {
        for (const auto& [k2, v2] : *sub) {
          const std::string full = key + "." + std::string(k2.str());
          if (!read_.count(full)) out.push_back(full + " = " + ValueText(v2));
        }
      } else if (!read_.count(key)) {
        out.push_back(key + " = " + ValueText(v));
      }
    }
    return out;
  }
  std::vector<Problem>& problems() { return problems_; }

 private:
  void Add(const toml::node& n, const std::string& path, std::string message) {
    problems_.push_back(Problem{path, std::move(message), static_cast<int>(n.source().begin.line), file_});
  }
  std::string file_;
  toml::table& t_;
  std::set<std::string> read_;
  std::vector<Problem> problems_;
};

Result<HarborTask> ReadTask(const fs::path& dir) {
  HarborTask task;
  task.dir = dir.string();
  task.name = dir.filename().string();
  const fs::path toml_path = dir / "task.toml";
  const std::string file = toml_path.string();
  std::error_code ec;
  if (!fs::is_regular_file(toml_path, ec)) {
    return Fail(ErrorCode::kNotFound, "",
                fmt::format("{}: not found; expected a Harbor task folder (task.toml, instruction.md, environment/, "
                            "tests/test.sh) or a dataset folder of them",
                            file));
  }
  auto toml_text = ReadBoundedFile(file, kMaxScenarioBytes, "the task's task.toml");
  if (!toml_text) return Fail(toml_text.error());
  toml::table t;
  try {
    t = toml::parse(*toml_text, file);
  } catch (const toml::parse_error& e) {
    Error err;
    err.problems.push_back(Problem{"", "malformed TOML: " + std::string(e.description()),
                                   static_cast<int>(e.source().begin.line), file});
    return Fail(std::move(err));
  }
  TaskReader r(file, t);
  if (auto name = r.String("task", "name")) task.name = *name;
  task.verifier_timeout_s = r.Number("verifier", "timeout_sec");
  task.agent_timeout_s = r.Number("agent", "timeout_sec");
  task.build_timeout_s = r.Number("environment", "build_timeout_sec");
  task.cpus = r.Number("environment", "cpus");
  task.gpus = r.Number("environment", "gpus", /*allow_zero=*/true);
  task.docker_image = r.String("environment", "docker_image");
  if (!r.problems().empty()) {
    Error err;
    err.problems = r.problems();
    return Fail(std::move(err));
  }
  task.unmapped = r.Unread();
  if (task.gpus && *task.gpus > 0) {
    task.unmapped.push_back(fmt::format("environment.gpus = {} (GPUs inside the sandbox are not priced: only its CPUs "
                                        "are; add their cost to price_per_cpu_hour)",
                                        *task.gpus));
  }

  const fs::path instruction = dir / "instruction.md";
  std::error_code exists_ec;
  if (!fs::exists(instruction, exists_ec)) {
    return Fail(ErrorCode::kNotFound, "",
                fmt::format("{}: not found; a Harbor task's prompt is its instruction.md", instruction.string()));
  }
  // Regular files only, read bounded (linked to /dev/zero or a FIFO: refused with the path).
  auto instruction_text = ReadBoundedFile(instruction.string(), kMaxScenarioBytes, "task's instruction.md");
  if (!instruction_text) return Fail(instruction_text.error());
  const std::string& text = *instruction_text;
  task.instruction_tokens = std::max(1.0, std::round(double(text.size()) / kCharsPerToken));
  const fs::path test = dir / "tests" / "test.sh";
  if (!fs::is_regular_file(test, ec)) {
    return Fail(ErrorCode::kNotFound, "",
                fmt::format("{}: not found; a Harbor task's verifier is its tests/test.sh", test.string()));
  }
  task.dockerfile = fs::is_regular_file(dir / "environment" / "Dockerfile", ec);
  if (!task.dockerfile && !task.docker_image) {
    return Fail(ErrorCode::kNotFound, "",
                fmt::format("{}: not found, and task.toml names no [environment] docker_image; a Harbor task's "
                            "sandbox comes from one of them",
                            (dir / "environment" / "Dockerfile").string()));
  }
  return task;
}

std::string Seconds(double v) { return Fmt(v); }

}  // namespace

Result<ImportedScenario> ImportHarbor(const std::string& dir_arg, const Catalog& catalog,
                                      const ImportOptions& options) {
  const fs::path dir(dir_arg);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Fail(ErrorCode::kNotFound, "", fmt::format("{}: not a folder; expected a Harbor task or dataset folder", dir_arg));
  }
  // A task, or a dataset: the folders below that hold a task.toml.
  std::vector<fs::path> dirs;
  if (fs::exists(dir / "task.toml", ec)) {
    dirs.push_back(dir);
  } else {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_directory(ec) && fs::exists(entry.path() / "task.toml", ec)) dirs.push_back(entry.path());
    }
    std::sort(dirs.begin(), dirs.end());
  }
  if (dirs.empty()) {
    return Fail(ErrorCode::kNotFound, "",
                fmt::format("{}: not found (nor in any folder below {}); expected a Harbor task folder (task.toml, "
                            "instruction.md, environment/, tests/test.sh) or a dataset folder of them",
                            (dir / "task.toml").string(), dir_arg));
  }
  std::vector<HarborTask> tasks;
  Error all;
  for (const auto& d : dirs) {
    auto t = ReadTask(d);
    if (!t) {
      for (auto& p : t.error().problems) all.problems.push_back(std::move(p));
      all.code = t.error().code;
      continue;
    }
    tasks.push_back(std::move(*t));
  }
  if (!all.problems.empty()) return Fail(std::move(all));

  const bool dataset = tasks.size() > 1 || dirs.front() != dir;
  const std::string name = dataset ? dir.filename().string() : tasks.front().name;
  ScenarioText out;
  out.Header(fmt::format("Imported from the Harbor {} {} by `rlcost import harbor`{}.", dataset ? "dataset" : "task",
                         dir_arg, dataset ? fmt::format(" ({} tasks)", tasks.size()) : ""));
  out.Header("Lines marked ASSUMED are not in the task: replace them with your own numbers (a Harbor job's trial");
  out.Header("results give the agent's turns, tokens and times, and the pass rate).");

  out.Set("", "name", "\"harbor-" + name + "\"");
  // The policy and the GPUs: a task does not say.
  if (options.model.empty()) {
    out.Assume("", "model", "qwen3-8b", "a task does not say which policy trains on it; pass " + options.model_name);
  } else if (const ModelSpec* m = catalog.FindModel(options.model)) {
    out.Set("", "model", m->id, options.model_name + " " + options.model);
  } else {
    std::string known;
    for (const auto& id : catalog.ModelIds()) known += (known.empty() ? "" : ", ") + id;
    return Fail(ErrorCode::kNotFound, options.model_name, "unknown model '" + options.model + "'; known: " + known);
  }
  if (options.gpu.empty()) {
    out.Assume("hardware", "gpu", "h100-sxm", "a task does not name the GPU; pass " + options.gpu_name);
  } else if (const GpuSpec* g = catalog.FindGpu(options.gpu)) {
    out.Set("hardware", "gpu", g->id, options.gpu_name + " " + options.gpu);
  } else {
    std::string known;
    for (const auto& id : catalog.GpuIds()) known += (known.empty() ? "" : ", ") + id;
    return Fail(ErrorCode::kNotFound, options.gpu_name, "unknown GPU '" + options.gpu + "'; known: " + known);
  }
  out.Assume("hardware", "gpus", "8", "the run's GPUs");
  out.Assume("hardware", "gpus_per_node", "8", "one node");
  out.Assume("placement", "mode", "colocated", "generation and training share the GPUs");
  out.Assume("placement", "rollout_tp", "1", "one GPU per inference engine");

  out.Set("environment", "name", "\"" + name + "\"");
  out.Assume("environment", "turns", "{mean: 20, cv: 0.5, max: 100}",
             "agent turns per trial are not in the task (a job's trial results have them)");
  // The first prompt: the instruction (the agent's own system prompt comes on top).
  if (tasks.size() == 1) {
    out.Set("environment", "prompt_tokens", Fmt(tasks.front().instruction_tokens),
            fmt::format("instruction.md at {} characters per token (ASSUMED ratio); the agent's system prompt is "
                        "not included",
                        Fmt(kCharsPerToken)));
  } else {
    std::string samples;
    for (const auto& t : tasks) samples += (samples.empty() ? "" : ", ") + Fmt(t.instruction_tokens);
    out.Set("environment", "prompt_tokens", "{samples: [" + samples + "]}",
            fmt::format("each task's instruction.md at {} characters per token (ASSUMED ratio)", Fmt(kCharsPerToken)));
  }
  out.Assume("environment", "response_tokens", "{mean: 400, cv: 1.0, max: 4096}", "per turn; not in the task");
  out.Assume("environment", "tool_output_tokens", "{mean: 500, cv: 1.2, max: 8000}", "per turn; not in the task");
  // Agent timeout: no command of a trial can outlast the trial.
  double agent_max = 0;
  for (const auto& t : tasks) agent_max = std::max(agent_max, t.agent_timeout_s.value_or(0));
  if (agent_max > 0) {
    out.Set("environment", "tool_latency_s", fmt::format("{{mean: 3, cv: 1.5, max: {}}}", Seconds(agent_max)),
            fmt::format("mean and spread ASSUMED; max: [agent] timeout_sec {} (no command outlasts the trial)",
                        Seconds(agent_max)));
  } else {
    out.Assume("environment", "tool_latency_s", "{mean: 3, cv: 1.5, max: 600}",
               "per command; task.toml gives no [agent] timeout_sec");
  }
  // The sandbox: CPUs from the task, the rest assumed.
  double cpus_sum = 0, cpus_min = 1e300, cpus_max = 0;
  int cpus_given = 0;
  for (const auto& t : tasks) {
    const double c = t.cpus.value_or(1.0);
    cpus_given += t.cpus ? 1 : 0;
    cpus_sum += c;
    cpus_min = std::min(cpus_min, c);
    cpus_max = std::max(cpus_max, c);
  }
  const double cpus = cpus_sum / tasks.size();
  const bool prebuilt = std::all_of(tasks.begin(), tasks.end(), [](const HarborTask& t) { return t.docker_image.has_value(); });
  std::string cpu_why =
      cpus_given == 0 ? "cpus: not in task.toml, 1 ASSUMED"
                      : (tasks.size() == 1 ? "cpus: [environment] cpus"
                                           : fmt::format("cpus: mean of [environment] cpus over the tasks ({}..{}){}",
                                                         Fmt(cpus_min), Fmt(cpus_max),
                                                         cpus_given < int(tasks.size()) ? ", 1 ASSUMED where absent" : ""));
  out.Set("environment", "sandbox",
          fmt::format("{{cpus_per_rollout: {}, startup_s: 10, price_per_cpu_hour: 0.04, max_concurrent: 512}}", Fmt(cpus)),
          cpu_why + fmt::format("; startup_s ({}), price and max_concurrent ASSUMED",
                                prebuilt ? "a prebuilt docker_image, pulled once per node"
                                         : "a container from the image environment/Dockerfile builds once per task"));
  // The verifier: the task's tests in the trial's container.
  double verify_max = 0;
  for (const auto& t : tasks) verify_max = std::max(verify_max, t.verifier_timeout_s.value_or(0));
  if (verify_max > 0) {
    const double mean = std::min(30.0, verify_max / 2);
    out.Set("environment", "reward",
            fmt::format("{{type: outcome, verifier: tests, verify_s: {{mean: {}, cv: 0.5, max: {}}}}}", Fmt(mean),
                        Seconds(verify_max)),
            fmt::format("tests/test.sh in the trial's container; verify_s max: [verifier] timeout_sec {}, mean ASSUMED",
                        Seconds(verify_max)));
  } else {
    out.Assume("environment", "reward", "{type: outcome, verifier: tests, verify_s: {mean: 30, cv: 0.5, max: 600}}",
               "tests/test.sh; task.toml gives no [verifier] timeout_sec");
  }
  out.Assume("environment", "pass_rate", "{mean: 0.35, concentration: 2}",
             "the policy's pass rate on the task(s); a pilot job's results belong here");
  out.Assume("algorithm", "name", "grpo", "the trainer's algorithm");
  out.Assume("algorithm", "group_size", "8", "trials per task and step");
  out.Assume("algorithm", "prompts_per_step", "32", "tasks per step");
  out.Assume("algorithm", "steps", "100", "training steps");

  ImportedScenario r;
  for (const auto& t : tasks) {
    for (const auto& u : t.unmapped) r.unmapped.push_back(tasks.size() > 1 ? t.name + ": " + u : u);
    if (t.build_timeout_s && !t.docker_image)
      out.Footer(fmt::format("{}environment/Dockerfile is built once per task image ([environment] build_timeout_sec "
                             "{} bounds it), not per trial: not counted in the step",
                             tasks.size() > 1 ? t.name + ": " : "", Seconds(*t.build_timeout_s)));
  }
  if (!r.unmapped.empty()) {
    out.Footer("");
    out.Footer("Read from task.toml but with no counterpart in the scenario format (not used):");
    for (const auto& k : r.unmapped) out.Footer("  " + k);
  }
  r.yaml = out.Render();
  return r;
}

}  // namespace rlcost::ingest
