// Throughput drops that come with a rise of the drive's temperature: thermal
// throttling, which in a single pass looks like a zone edge.
//
// What counts (FindThermalDrops):
//   a drop   - within one pass, in the order read, the median rate of the
//              stretches after a point is at least kThermalDropShare (20 %)
//              below the median of the stretches before it (windows of
//              max(3, min(64, n / 20)) stretches of the pass's n); the
//              deepest such point, then the next outside its windows, at
//              most 3 per pass. Zone steps of a hard disk are a few % each.
//   warmer   - the hottest reading over the two windows (or the last one
//              before the point) is at least kThermalRiseC (5 C) above the
//              coolest reading from the run's start to the point.
//   the other passes - a drop at the same positions in another pass (at
//              least half as deep) makes it a position effect, a zone edge,
//              and it is not reported; when other passes read those
//              positions without it, it followed the time: time_effect true.
//              No other pass there: time_effect nullopt (cannot be told).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "zcav/result/recorded.h"

namespace zcav {

inline constexpr double kThermalDropShare = 0.2;
inline constexpr double kThermalRiseC = 5;

// A stretch of reading in one pass: one sample, or consecutive samples
// merged (RateTimeline bounds its memory).
struct RateStretch {
  double seconds = 0;  // when it started, since the sweep's first read
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  double read_seconds = 0;  // time the reads took
  double MbPerS() const;    // 10^6 B/s; 0 when not timed
};

// The stretches read, per pass, in the order read. At most kMaxStretches per
// pass: when a pass would hold more, neighbours are merged in pairs and
// later samples are merged as many at a time (a sweep of 20 M blocks keeps
// 32 K stretches a pass, about 1 MB).
class RateTimeline {
 public:
  static constexpr std::size_t kMaxStretches = 32768;
  // A timed sample of `pass`, read from `seconds` on (since the first read).
  void Add(std::uint32_t pass, double seconds, std::uint64_t offset_bytes,
           std::uint64_t length_bytes, double read_seconds);
  // The stretches of each pass (index = pass); pending merges included.
  std::vector<std::vector<RateStretch>> Passes() const;

 private:
  struct Pass {
    std::vector<RateStretch> done;
    RateStretch pending;
    std::uint64_t pending_samples = 0;
    std::uint64_t per_stretch = 1;  // samples merged into one stretch
  };
  std::vector<Pass> passes_;
};

// A drop in the read rate while the drive warmed (see the file comment).
struct ThermalDrop {
  std::uint32_t pass = 0;          // 0-based
  std::uint64_t offset_bytes = 0;  // where the rate fell
  double seconds = 0;              // when, since the first read
  double before_mb_per_s = 0;      // median before and after, 10^6 B/s
  double after_mb_per_s = 0;
  double from_c = 0;  // coolest reading up to the drop
  double to_c = 0;    // hottest reading around it
  // True: other passes read the same positions without the drop (a time
  // effect, not a zone); nullopt: no other pass read them.
  std::optional<bool> time_effect;
};

// The drops of `passes` (RateTimeline::Passes) that came with a temperature
// rise over `readings` (time order), in the order read.
std::vector<ThermalDrop> FindThermalDrops(const std::vector<std::vector<RateStretch>>& passes,
                                          const std::vector<TemperatureReading>& readings);

}  // namespace zcav
