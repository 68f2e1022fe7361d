// What a run recorded beside its blocks, as a saved result carries it: the
// passes' rates and page-cache shares, and the drive's temperature readings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zcav {

// What the sweep recorded about caches.
struct CacheEvidence {
  // Each complete pass's rate (bytes / read time, MB/s = 10^6 B/s), in the
  // order read.
  std::vector<double> pass_mb_per_s;
  // Same index: the share (0..1) of page_cache_file in the page cache when
  // that pass started (nullopt: not known).
  std::vector<std::optional<double>> pass_cached_share;
  std::optional<double> cached_share_at_end;  // when the sweep ended
  std::string page_cache_file;                // "" = the reads bypass the page cache
};

// One drive temperature reading during a run.
struct TemperatureReading {
  double seconds = 0;              // since the sweep's first read
  std::uint64_t offset_bytes = 0;  // where the sweep was reading
  double celsius = 0;
  std::uint32_t pass = 0;  // 0-based: the pass being read
};

}  // namespace zcav
