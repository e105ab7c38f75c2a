// The roofline tests' efficiency: an engine that reaches its GPU's peaks with
// no fixed cost per decode iteration, so each figure is worked out by hand
// from the datasheet alone.
#pragma once

#include "rlcost/catalog.h"

namespace rlcost::test {

inline Efficiency Ideal() {
  Efficiency e;
  e.decode_bw = 1;
  e.decode_compute = 1;
  e.decode_iter_overhead_s = 0;
  e.prefill_mfu = 1;
  return e;
}

}  // namespace rlcost::test
