// rlcost_catalog_gen OUT.cc: parses the built-in catalog's YAML and writes it
// as C++ (see catalog/codegen.h). Run by the build, not by users.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "catalog/codegen.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: rlcost_catalog_gen OUT.cc\n";
    return 2;
  }
  auto cat = rlcost::Catalog::BuiltinFromYaml();
  if (!cat) {
    std::cerr << cat.error().ToString() << "\n";
    return 1;
  }
  const std::string tmp = std::string(argv[1]) + ".tmp";
  std::error_code ec;
  if (auto dir = std::filesystem::path(argv[1]).parent_path(); !dir.empty()) std::filesystem::create_directories(dir, ec);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << rlcost::catalog_internal::CatalogToCpp(*cat);
    if (!out) {
      std::cerr << "cannot write " << tmp << "\n";
      return 1;
    }
  }
  return std::rename(tmp.c_str(), argv[1]) == 0 ? 0 : 1;
}
