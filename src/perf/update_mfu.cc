#include "rlcost/perf.h"
#include "rlcost/scenario.h"

namespace rlcost::perf {

double UpdateMfu(const Scenario& s) {
  const Efficiency& eff = s.hardware.gpu.efficiency;
  const double published = s.model.is_moe() ? eff.train_mfu_moe : eff.train_mfu;
  return s.run.tuning == RunTuning::kTuned ? published : published * eff.typical_update_share;
}

double PageableCopyGbPerS(const Scenario& s) {
  const double s_per_gb = s.hardware.gpu.efficiency.pageable_copy_s_per_gb;
  return s_per_gb > 0 ? 1.0 / s_per_gb : kPageableCopyGbPerS;
}

}  // namespace rlcost::perf
