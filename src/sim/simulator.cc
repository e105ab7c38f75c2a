// STUB — replaced by the discrete-event simulator.
#include "rlcost/sim.h"
namespace rlcost::sim {
Result<SimResult> Simulate(const Scenario&, const signal::Summary&, const Options&) {
  return Fail(ErrorCode::kNotImplemented, "simulate", "the event simulator is not built yet");
}
}  // namespace rlcost::sim
