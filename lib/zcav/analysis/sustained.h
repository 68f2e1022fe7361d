// The sustained rate of a run as a recorder needs it: the lowest rate held
// over any window of the run's requests (measure/request_timeline.h), counted
// after the write cache is spent. A write sweep first fills an SSD's or a
// card's cache at its fast rate; only what comes after the cliff
// (write_cache.h) is what a camera writing for hours gets, so the windows
// start there. A read sweep, or a write sweep without a cache, counts from
// its first request. A pure function over values.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "zcav/analysis/write_cache.h"
#include "zcav/measure/request_timeline.h"

namespace zcav {

struct SustainedFigure {
  std::chrono::nanoseconds window{0};
  // The windows begin once the run had reached this position in its first
  // pass: the write cache's end (the start of the first part from there),
  // or the first request's offset.
  std::uint64_t from_bytes = 0;
  bool after_write_cache = false;     // from_bytes is a write cache's end
  std::chrono::nanoseconds timed{0};  // the requests' time from there to the end
  // The lowest window; none when `timed` is shorter than the window.
  std::optional<LowestWindow> lowest;
};

// The sustained rate of `requests` over their window, after the cache
// `write_cache` shows (AnalyzeWriteCache of the same write sweep; nullopt:
// none, or a read sweep): the windows that begin in the parts from the one
// starting at the cache's end (phases.front().end_bytes). None when no
// request was timed (requests.requests == 0).
std::optional<SustainedFigure> SustainedOf(const RequestSummary& requests,
                                           const std::optional<WriteCacheAnalysis>& write_cache);

}  // namespace zcav
