// Storage for the simulator's large per-trajectory arrays (a batch's
// trajectories and turns, the run's per-trajectory records): blocks of
// 2 MiB and more are 2 MiB-aligned and marked for transparent huge pages
// (Linux madvise(MADV_HUGEPAGE); elsewhere a plain allocation). Issue 41:
// on the 1,024-GPU agentic run a batch is ~15 MB of trajectories and turns
// touched at random, once per event; on 4 KiB pages their first touch was
// ~5% of the run in page faults, and every access risks a TLB miss.
// Where the memory lies changes no result.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace rlcost::sim::internal {

template <class T>
struct HugePageAlloc {
  using value_type = T;
  static constexpr size_t kHuge = size_t(2) << 20;  // a transparent huge page
  static constexpr size_t kMin = kHuge;             // below this, plain new
  HugePageAlloc() = default;
  template <class U>
  HugePageAlloc(const HugePageAlloc<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kMin) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without it, 4 KiB pages
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < kMin) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAlloc<U>&) const { return true; }
};

template <class T>
using BigVector = std::vector<T, HugePageAlloc<T>>;

}  // namespace rlcost::sim::internal
