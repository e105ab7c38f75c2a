// libFuzzer target: the config importers. The first byte picks the format and
// the rest is the file: 0 a veRL Hydra config, 1 a NeMo RL GRPO config, 2 a
// Harbor task.toml (in a task folder of its own), 3 a Hugging Face
// config.json. Whatever an importer writes must load as a scenario (or fail
// with an error): the importers' output is the scenario loader's input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "ingest/hf_config.h"
#include "ingest/import.h"
#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace {

void Write(const std::filesystem::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// One folder per fuzzing process: importers read files, not text. The Harbor
// task's instruction and test script are written once; each input rewrites
// only its own file.
const std::filesystem::path& Dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("rlcost-fuzz-import-" + std::to_string(getpid()));
    std::filesystem::create_directories(d / "task" / "tests");
    Write(d / "task" / "instruction.md", "Fix the bug.\n");
    Write(d / "task" / "tests" / "test.sh", "#!/bin/sh\nexit 0\n");
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rlcost::Catalog catalog = rlcost::Catalog::Builtin().value();
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  rlcost::Result<rlcost::ingest::ImportedScenario> imported = rlcost::Fail(rlcost::ErrorCode::kInvalidInput, "", "");
  switch (data[0] % 4) {
    case 0: {
      const auto p = Dir() / "verl.yaml";
      Write(p, text);
      imported = rlcost::ingest::ImportVerl(p.string(), {}, catalog, {});
      break;
    }
    case 1: {
      const auto p = Dir() / "nemo.yaml";
      Write(p, text);
      imported = rlcost::ingest::ImportNemoRl(p.string(), {}, catalog, {});
      break;
    }
    case 2: {
      Write(Dir() / "task" / "task.toml", text);
      imported = rlcost::ingest::ImportHarbor((Dir() / "task").string(), catalog, {});
      break;
    }
    default:
      (void)rlcost::ingest::ParseHfConfig(text, "config.json");
      return 0;
  }
  if (imported) (void)rlcost::LoadScenarioText(imported->yaml, catalog, "imported.yaml", Dir().string());
  return 0;
}
