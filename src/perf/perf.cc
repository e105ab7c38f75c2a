// STUB
#include "rlcost/perf.h"
namespace rlcost::perf {
double KvBytesPerToken(const ModelSpec&, Precision) { return 0; }
double WeightBytes(const ModelSpec&, Precision) { return 0; }
double LoraParams(const ModelSpec&, int) { return 0; }
double ExpertsTouched(const ModelSpec&, double) { return 0; }
double WeightBytesRead(const ModelSpec&, Precision, double) { return 0; }
double ForwardFlopsPerToken(const ModelSpec&, double) { return 0; }
Work DecodeIteration(const EngineConfig&, double, double) { return {}; }
Work DecodeIterations(const EngineConfig&, double, double, double) { return {}; }
Work Prefill(const EngineConfig&, double, double) { return {}; }
Result<MemoryPlan> PlanMemory(const Scenario&) { return MemoryPlan{}; }
Work TrainStep(const Scenario&, double, double, int) { return {}; }
Work ForwardPass(const Scenario&, double, double, int) { return {}; }
double WeightSyncTime(const Scenario&) { return 0; }
}  // namespace rlcost::perf
