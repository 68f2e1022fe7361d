// ResumePoint: where an interrupted sweep goes on, and what it had measured
// (RunSweep replays it to its sinks). Made from a partial result file by
// PrepareResume (pipeline/resume.h).
#pragma once

#include <cstdint>
#include <vector>

#include "zcav/measure/sample.h"

namespace zcav {

struct ResumePoint {
  // The partial run's timed samples in read order (pass-major), with their
  // offsets and lengths filled in from the plan.
  std::vector<Sample> samples;
  // Where to go on: the first block of `pass` not read yet.
  std::uint32_t pass = 0;
  std::uint64_t block = 0;
  // What the partial run found; kept, and merged with what the rest finds.
  std::vector<UnreadableRange> unreadable;
  std::vector<SlowRegion> slow_regions;
};

}  // namespace zcav
