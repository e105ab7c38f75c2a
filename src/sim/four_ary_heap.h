// The two moves of the simulator's 4-ary min-heaps (EventQueue's calendar,
// FinishHeap's running sequences), written once. Keys compare with a
// branch-free `before` (a total order), so any heap pops the same sequence.
#pragma once

#include <cstddef>

namespace rlcost::sim {

inline constexpr size_t kHeapArity = 4;

// Sift up: parents move down into the hole at i until x's place.
template <class Key, class Before>
inline void HeapSiftUp(Key* h, size_t i, const Key& x, Before before) {
  while (i > 0) {
    const size_t parent = (i - 1) / kHeapArity;
    if (!before(x, h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = x;
}

// After the root is taken from a heap of n entries that still counts `last`
// among them (now at h[n], outside): the hole goes down to a leaf along the
// earliest children, and `last` rises from there to its place, one
// comparison fewer per level than the textbook sift-down (it belongs near the
// bottom). The earliest of four children is picked without branches.
template <class Key, class Before>
inline void HeapRefillRoot(Key* h, size_t n, const Key& last, Before before) {
  if (n == 0) return;
  size_t i = 0;
  for (;;) {
    const size_t c = kHeapArity * i + 1;
    size_t best;
    if (c + kHeapArity <= n) {
      const size_t b01 = c + size_t(before(h[c + 1], h[c]));
      const size_t b23 = c + 2 + size_t(before(h[c + 3], h[c + 2]));
      const size_t take = 0 - size_t(before(h[b23], h[b01]));
      best = (b23 & take) | (b01 & ~take);
    } else if (c < n) {
      best = c;
      for (size_t k = c + 1; k < n; ++k)
        if (before(h[k], h[best])) best = k;
    } else {
      break;
    }
    h[i] = h[best];
    i = best;
  }
  HeapSiftUp(h, i, last, before);
}

// HeapRefillRoot for a heap with kHeapArity - 1 entries past its n whose
// keys are later than any entry's (never before one), ordered by an integer
// key(entry): every group of children below n is read whole, each level
// picks the earliest of four with three compares and selects (the lower
// index on ties, so never a pad), and the walk's only branch is the depth.
template <class Entry, class KeyOf>
inline void HeapRefillRootPadded(Entry* h, size_t n, const Entry& last, KeyOf key) {
  if (n == 0) return;
  size_t i = 0;
  for (size_t c = 1; c < n; c = kHeapArity * i + 1) {
    const Entry* g = h + c;
    const auto k0 = key(g[0]), k1 = key(g[1]), k2 = key(g[2]), k3 = key(g[3]);
    const bool t01 = k1 < k0, t23 = k3 < k2;
    const auto m01 = t01 ? k1 : k0;
    const auto m23 = t23 ? k3 : k2;
    // j = m23 < m01 ? 2 + t23 : t01, as masks: g++ makes the ?: a branch,
    // mispredicted on about half the levels.
    const size_t take = 0 - size_t(m23 < m01);
    const size_t j = size_t(t01) ^ ((size_t(t01) ^ (2 + size_t(t23))) & take);
    h[i] = g[j];
    i = c + j;
  }
  HeapSiftUp(h, i, last, [&](const Entry& x, const Entry& y) { return key(x) < key(y); });
}

}  // namespace rlcost::sim
