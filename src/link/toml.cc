// toml++'s compiled part (Harbor's task.toml, src/ingest/harbor.cc), built here
// from Debian's headers (libtomlplusplus-dev) instead of loaded from
// libtomlplusplus.so, for the same reason as fmt.cc. TOML_IMPLEMENTATION in one
// translation unit is toml++'s documented way to compile its implementation.
#define TOML_IMPLEMENTATION 1
#include "link/toml.h"
