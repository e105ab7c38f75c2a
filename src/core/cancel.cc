#include "core/cancel.h"

namespace rlcost {

namespace {
thread_local const std::atomic<bool>* t_cancel = nullptr;
}  // namespace

const std::atomic<bool>* CancelFlag() { return t_cancel; }
ScopedCancel::ScopedCancel(const std::atomic<bool>* flag) : previous_(t_cancel) { t_cancel = flag; }
ScopedCancel::~ScopedCancel() { t_cancel = previous_; }

}  // namespace rlcost
