// SustainedOf: see sustained.h.
#include "zcav/analysis/sustained.h"

namespace zcav {

std::optional<SustainedFigure> SustainedOf(const RequestSummary& requests,
                                           const std::optional<WriteCacheAnalysis>& write_cache) {
  if (requests.requests == 0 || requests.parts.empty()) return std::nullopt;
  SustainedFigure f;
  f.window = requests.window;
  std::size_t first = 0;
  if (write_cache && !write_cache->phases.empty()) {
    f.after_write_cache = true;
    f.from_bytes = write_cache->phases.front().end_bytes;
    first = requests.FirstPartFrom(f.from_bytes);
    // Parts are whole blocks (or groups of them): the windows begin where
    // the part after the cliff begins.
    if (first < requests.parts.size() &&
        requests.parts[first].pass == requests.parts.front().pass) {
      f.from_bytes = requests.parts[first].first_offset_bytes;
    }
  } else {
    f.from_bytes = requests.parts.front().first_offset_bytes;
  }
  f.timed = requests.TimeFrom(first);
  f.lowest = requests.LowestFrom(first);
  return f;
}

}  // namespace zcav
