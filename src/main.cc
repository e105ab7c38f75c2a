#include "cli/cli.h"

int main(int argc, char** argv) { return rlcost::cli::Main(argc, argv); }
