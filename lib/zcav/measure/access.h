// Average access time: small reads at uniformly random positions over a
// device, each timed on the Clock (the "average access" test of HD Tune and
// AIDA32). On a disk the time is dominated by the seek and the rotational
// latency; on an SSD by the command overhead.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <system_error>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"

namespace zcav {

struct AccessOptions {
  // Bytes per read, rounded up to the device's sector size. Default: 4096.
  std::uint64_t read_bytes = 4096;
  // Number of timed reads. Default: 1000.
  std::uint32_t samples = 1000;
  // Stop early once this much Clock time has passed since the first read.
  // Default: nullopt (no budget).
  std::optional<std::chrono::nanoseconds> time_budget;
  // Seed of the std::mt19937_64 choosing the positions: the same seed gives
  // the same positions on the same device. Default: 1.
  std::uint64_t seed = 1;
};

// One timed read. (plot.h's AccessSample is what the plot is given.)
struct AccessReading {
  std::uint64_t offset_bytes = 0;    // where the read started (sector aligned)
  std::uint64_t distance_bytes = 0;  // |offset - offset of the previous read|; 0 for the first
  double ms = 0;                     // time of the read, milliseconds
};

struct AccessResult {
  std::vector<AccessReading> samples;  // in the order read
  // Statistics of samples[].ms; all 0 when there are no samples. p95 is the
  // nearest-rank 95th percentile.
  double min_ms = 0, mean_ms = 0, median_ms = 0, p95_ms = 0, max_ms = 0;
  double cpu_percent = 0;                // this process's user+sys time / wall time
  std::error_code error;                 // the read error that stopped the test, if any
  std::uint64_t error_offset_bytes = 0;  // where it happened (when error)
  bool interrupted = false;              // stopped by *stop or by the time budget
};

// Times options.samples reads of read_bytes (rounded up to the sector) at
// uniformly random sector-aligned offsets in [0, size - read_bytes], into
// one aligned buffer. Every read is a sample (no warm-up; the first one's
// distance is 0). Reads may be served by the drive's cache when they land
// on recently read data, as on a real drive. Stops
// at the first read error (error and error_offset_bytes set, samples so
// far kept), when *stop becomes true or when the time budget is spent
// (interrupted = true). Never throws for I/O; throws std::bad_alloc if the
// buffer cannot be allocated and Error(kBadInput) when read_bytes is 0 or
// larger than the device.
AccessResult MeasureAccess(Device& device, Clock& clock, const AccessOptions& options,
                           const std::atomic<bool>* stop = nullptr);

// The nearest-rank percentile `p` (0 < p <= 100) of `values`; 0 when empty.
double NearestRankPercentile(std::vector<double> values, double p);

}  // namespace zcav
