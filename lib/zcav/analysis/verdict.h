// Verdict: is it the bus or the disk? Decides from the sweep curve's shape
// (zone_detector.h), the burst rate against the sustained rate, and the
// transport's ceiling (transport.h), and says why in plain sentences with
// the numbers. The rules and the reasons for their thresholds are in
// verdict.cc.
#pragma once

#include <optional>
#include <string>

#include "zcav/analysis/caches.h"
#include "zcav/analysis/transport.h"
#include "zcav/analysis/write_cache.h"
#include "zcav/analysis/zone_detector.h"

namespace zcav {

enum class VerdictKind {
  kBusLimited,    // the whole device reads at the bus's rate
  kMediaLimited,  // the device itself sets the rate (falling zones, or flat far below the bus)
  kBusCapped,     // a flat ceiling over the outer part, then falling: the bus caps the outer zones
  kUndetermined,
};

// "bus-limited", "media-limited", "bus-capped", "undetermined" (the JSON
// names: fixed, other tools read them).
const char* VerdictKindName(VerdictKind kind);

struct VerdictInputs {
  // Peak of the sweep curve, MB/s (10^6 B/s): e.g. the fastest zone's median.
  // 0 = take it from the analysis (its fastest zone).
  double sustained_max_mb_per_s = 0;
  // Mean rate over the sweep, MB/s; 0 = unknown (used in the text only).
  double sustained_avg_mb_per_s = 0;
  // Burst (drive-cache) read rate, MB/s; nullopt = not measured.
  std::optional<double> burst_mb_per_s;
  Transport transport;  // ceiling_mb_per_s 0 = unknown
  // A write sweep's write cache (write_cache.h), when it found one: the fall
  // is the cache filling, not the media or the bus, so the verdict is
  // undetermined and says so.
  std::optional<WriteCacheAnalysis> write_cache;
  // Caches behind the passes' rates (caches.h): when they make the median
  // curve a cache's (misleads), the verdict is undetermined and says which
  // pass measures the storage; otherwise their sentence is added.
  CacheFinding caches;
};

struct Verdict {
  VerdictKind kind = VerdictKind::kUndetermined;
  // One or two plain sentences naming the numbers that led to the verdict.
  std::string reason;
  // bus-capped only: fraction of the device's bytes read at the ceiling.
  double capped_share = 0;
  // bus-capped only: what the outermost zone would read without the cap,
  // MB/s, from the falling zones' trend extrapolated back to position 0
  // (rate proportional to the radius, so rate^2 is linear in position);
  // 0 = could not be estimated.
  double uncapped_estimate_mb_per_s = 0;
};

// Decides the verdict. Pure; never throws except std::bad_alloc. An empty
// analysis gives kUndetermined.
Verdict DecideVerdict(const ZoneAnalysis& zones, const VerdictInputs& in);

}  // namespace zcav
