// How much an estimate writes besides its numbers.
#pragma once

namespace rlcost {

// kFull: the notes and assumptions that tables, HTML and JSON show. kNumbers:
// the same numbers without that text, for callers that read only metrics (a
// sweep's rows), where formatting it was about a fifth of an analytic
// estimate's time. The numbers are the same either way (test:
// Estimate.NumbersOnlyGivesTheSameNumbers).
enum class TextDetail { kFull, kNumbers };

}  // namespace rlcost
