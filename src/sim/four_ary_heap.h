// The two moves of the simulator's 4-ary min-heaps (EventQueue's calendar,
// FinishHeap's running sequences), written once. Both order by one 64-bit
// key (a time's bits, an iteration) and settle that key's ties themselves
// (EventQueue::Pop, FinishHeap::TakeDue), so the sequence they give does not
// depend on which of two tied entries a heap keeps above the other.
#pragma once

#include <cstddef>

namespace rlcost::sim {

inline constexpr size_t kHeapArity = 4;

// Sift up: parents move down into the hole at i until x's place. By byte
// offsets, as HeapRefillRootPadded below: the parent of offset o is
// (o - size) / 4 rounded down to an entry.
template <class Key, class Before>
inline void HeapSiftUp(Key* h, size_t i, const Key& x, Before before) {
  constexpr size_t kSize = sizeof(Key);
  static_assert((kSize & (kSize - 1)) == 0 && kSize >= kHeapArity, "entries of a power-of-two size, at least 4 bytes");
  char* base = reinterpret_cast<char*>(h);
  auto at = [base](size_t off) -> Key& { return *reinterpret_cast<Key*>(base + off); };
  size_t o = i * kSize;
  while (o > 0) {
    const size_t parent = ((o - kSize) / kHeapArity) & ~(kSize - 1);
    if (!before(x, at(parent))) break;
    at(o) = at(parent);
    o = parent;
  }
  at(o) = x;
}

// After the root is taken from a heap of n entries that still counts `last`
// among them (now at h[n], outside), in a heap with kHeapArity - 1 entries
// past its n whose keys are later than any entry's, ordered by an integer
// key(entry): the hole goes down to a leaf along the earliest children, and
// `last` rises from there to its place, one comparison fewer per level than
// the textbook sift-down (it belongs near the bottom). Every group of
// children below n is read whole, each level picks the earliest of four with
// three compares and selects (the lower index on ties, so never a pad), and
// the walk's only branch is the depth.
//
// The walk goes by byte offsets (entry k at k * sizeof(Entry)), addresses the
// loads and stores take as they are (issue 41, sixth pass: an index of
// 16-byte entries needed a shift per access, 16 being no addressing scale).
template <class Entry, class KeyOf>
inline void HeapRefillRootPadded(Entry* h, size_t n, const Entry& last, KeyOf key) {
  if (n == 0) return;
  constexpr size_t kSize = sizeof(Entry);
  char* base = reinterpret_cast<char*>(h);
  auto at = [base](size_t off) -> Entry& { return *reinterpret_cast<Entry*>(base + off); };
  const size_t end = n * kSize;
  size_t i = 0;  // the hole's offset
  for (size_t c = kSize; c < end; c = kHeapArity * i + kSize) {  // c: its first child's
    const Entry* g = &at(c);
    const auto k0 = key(g[0]), k1 = key(g[1]), k2 = key(g[2]), k3 = key(g[3]);
    const bool t01 = k1 < k0, t23 = k3 < k2;
    const auto m01 = t01 ? k1 : k0;
    const auto m23 = t23 ? k3 : k2;
    // j = m23 < m01 ? 2 + t23 : t01, as masks: g++ makes the ?: a branch,
    // mispredicted on about half the levels.
    const size_t take = 0 - size_t(m23 < m01);
    const size_t j = (size_t(t01) ^ ((size_t(t01) ^ (2 + size_t(t23))) & take)) * kSize;
    at(i) = at(c + j);
    i = c + j;
  }
  HeapSiftUp(h, i / kSize, last, [&](const Entry& x, const Entry& y) { return key(x) < key(y); });
}

}  // namespace rlcost::sim
