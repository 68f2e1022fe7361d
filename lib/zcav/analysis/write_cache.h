// Write-cache analysis of a write sweep: an SSD writes at full speed into its
// (SLC) cache, falls off a cliff when the cache is full, sometimes crawls
// through a folding phase, and then writes at its sustained rate. A
// sequential write sweep's position is the amount written, so the zone
// detector's segmentation of its curve (zone_detector.h) gives the phases;
// this names them.
//
// AnalyzeWriteCache is a pure function over values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/analysis/zone_detector.h"

namespace zcav {

// The first zone is a cache when it is at least this much faster than the
// last (a tier of 25 %).
inline constexpr double kWriteCacheMinRatio = 1.25;
// Zones within this share of the cache's (or the sustained) rate join it.
inline constexpr double kWritePhaseJoin = 0.10;

struct WritePhase {
  std::string name;  // "cache", "folding" or "sustained"
  std::uint64_t start_bytes = 0;
  std::uint64_t end_bytes = 0;
  double mb_per_s = 0;  // time-weighted over the phase's zones (MB/s, 10^6 B/s)
};

// What an idle-recovery probe found after the sweep (cache_recovery.h,
// --idle-probe): how much of the cache came back after idle_seconds.
struct WriteCacheRecovery {
  double idle_seconds = 0;
  std::uint64_t regained_bytes = 0;  // written at the cache's speed again
  std::uint64_t probe_bytes = 0;     // all the probe wrote
  double mb_per_s = 0;               // the regained part's rate (0 when none)
  bool at_least = false;             // the probe stopped at its limit, still fast
};

struct WriteCacheAnalysis {
  std::uint64_t size_bytes = 0;  // written at the cache's rate, from the sweep's start
  double in_cache_mb_per_s = 0;
  double after_cache_mb_per_s = 0;             // the sustained rate (the last phase)
  std::vector<WritePhase> phases;              // in order: cache, [folding], sustained
  std::string description;                     // e.g. "21.5 GB at 1500 MB/s, then 450 MB/s"
  std::optional<WriteCacheRecovery> recovery;  // with --idle-probe
};

// A cache-sized amount in GB (10^9 B) for a sentence: 3 significant digits
// below 10 GB ("0.134 GB", "1.50 GB"), else one decimal ("20.0 GB").
std::string CacheGbText(std::uint64_t bytes);

// "after 10 s idle: 5.00 GB of 20.0 GB came back" (GB = 10^9 B), with "or
// more" when the probe hit its limit. REQUIRES: w.recovery.
std::string RecoveryText(const WriteCacheAnalysis& w);

// The write cache `analysis` (of a write sweep that began at `start_bytes`)
// shows: its first zones (those within kWritePhaseJoin of the first) are the
// cache when they are at least kWriteCacheMinRatio times as fast as its last
// zones (those within kWritePhaseJoin of the last: the sustained rate); the
// zones between, if any, are one folding phase. None for fewer than two
// zones or no such cliff.
std::optional<WriteCacheAnalysis> AnalyzeWriteCache(const ZoneAnalysis& analysis,
                                                    std::uint64_t start_bytes);

}  // namespace zcav
