// STUB
#include "cli/cli.h"
#include <cstdio>
namespace rlcost::cli {
int Main(int, char**) { std::puts("not yet"); return 1; }
}
