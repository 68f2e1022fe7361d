// Caches behind a sweep's rates: the trend from pass to pass (each pass
// faster: a cache filling; each slower: throttling) and the page cache in
// front of a loop device without direct I/O or a file read buffered. Says
// which pass measures the storage, and when the median over the passes
// (what the zones are made of) is a cache's rate rather than the storage's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/measure/sample.h"
#include "zcav/result/recorded.h"

namespace zcav {

enum class PassTrend {
  kNone,            // fewer than 2 complete passes
  kSteady,          // the fastest pass within 1.25x of the slowest
  kRising,          // each pass as fast or faster, the last >= 1.25x the first
  kWarmAfterFirst,  // pass 1 slow, passes 2.. alike and >= 1.25x pass 1
  kFalling,         // each pass as slow or slower, the last <= 0.8x the first
  kUneven,          // over 1.25x apart in no order
};

// "none", "steady", "rising", "warm-after-first", "falling", "uneven" (the
// JSON names).
const char* PassTrendName(PassTrend trend);

struct CacheFinding {
  PassTrend trend = PassTrend::kNone;
  // The passes (1-based) that read RAM: at least half of page_cache_file
  // was in the page cache when they started.
  std::vector<std::uint32_t> ram_passes;
  // The pass (1-based) that measures the storage; 0 = no pass stands out
  // (all alike, or all read RAM).
  std::uint32_t storage_pass = 0;
  // The rates over the passes are (partly) a cache's or RAM's: the curve
  // does not show the storage, and the verdict is undetermined.
  bool misleads = false;
  // Plain sentences with the figures; "" = nothing to say.
  std::string text;
};

// The evidence of a sweep: its complete passes (rates and page-cache
// shares) and the share at its end; `page_cache_file` as DeviceInfo names it.
CacheEvidence CacheEvidenceOf(const std::vector<PassSummary>& passes,
                              std::optional<double> cached_share_at_end,
                              const std::string& page_cache_file);

// Judges the evidence. Pure; never throws except std::bad_alloc.
CacheFinding AssessCaches(const CacheEvidence& evidence);

}  // namespace zcav
