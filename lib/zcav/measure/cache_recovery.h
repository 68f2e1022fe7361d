// The idle-recovery probe of a write cache: after a write sweep filled an
// SSD's cache and the drive then sat idle, how much of the cache came back?
// The probe writes again from the sweep's start, chunk by chunk, timing each
// write, and counts the bytes written at the cache's speed before the first
// chunk that is not (it destroys the data there, as the sweep did).
#pragma once

#include <atomic>
#include <cstdint>
#include <system_error>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"

namespace zcav {

struct CacheRecoveryOptions {
  std::uint64_t start_bytes = 0;        // where the probe writes first (the sweep's start)
  std::uint64_t limit_bytes = 0;        // the most it writes (e.g. 1.5 x the cache)
  std::uint64_t chunk_bytes = 0;        // each timed write; a multiple of the sector size
  double cache_threshold_mb_per_s = 0;  // a chunk at least this fast is the cache's (MB/s)
};

struct CacheRecovery {
  std::uint64_t regained_bytes = 0;  // written at the cache's speed before the first slow chunk
  std::uint64_t written_bytes = 0;   // all the probe wrote
  double cache_mb_per_s = 0;         // the rate of the regained part (0 when none)
  bool limited = false;              // every chunk up to limit_bytes was fast
  std::error_code error;             // a failed write ends the probe
};

// Runs the probe on `device` (opened for writing) timed by `clock`; stops
// early when `stop` is set. REQUIRES: chunk_bytes > 0, limit_bytes > 0,
// start_bytes + chunk_bytes <= the device's size.
CacheRecovery ProbeCacheRecovery(Device& device, Clock& clock, const CacheRecoveryOptions& options,
                                 const std::atomic<bool>* stop);

}  // namespace zcav
