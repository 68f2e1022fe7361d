#include "zcav/analysis/write_cache.h"

#include <cmath>

#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

// Zones [first, last) as one phase: their span and time-weighted rate.
WritePhase PhaseOf(const std::vector<Zone>& zones, std::size_t first, std::size_t last,
                   const char* name) {
  WritePhase p;
  p.name = name;
  p.start_bytes = zones[first].start_bytes;
  p.end_bytes = zones[last - 1].end_bytes;
  double bytes = 0;
  double seconds = 0;
  for (std::size_t i = first; i < last; ++i) {
    const double b = static_cast<double>(zones[i].end_bytes - zones[i].start_bytes);
    bytes += b;
    seconds += b / (zones[i].mb_per_s * kMB);
  }
  p.mb_per_s = seconds > 0 ? bytes / seconds / kMB : 0;
  return p;
}

bool Near(double rate, double to) { return std::abs(rate / to - 1) <= kWritePhaseJoin; }

}  // namespace

std::optional<WriteCacheAnalysis> AnalyzeWriteCache(const ZoneAnalysis& analysis,
                                                    std::uint64_t start_bytes) {
  const std::vector<Zone>& z = analysis.zones;
  if (z.size() < 2 || !(z.front().mb_per_s > 0) || !(z.back().mb_per_s > 0)) return std::nullopt;
  std::size_t cache_end = 1;  // one past the cache's last zone
  while (cache_end < z.size() && Near(z[cache_end].mb_per_s, z.front().mb_per_s)) ++cache_end;
  std::size_t sustained_start = z.size() - 1;
  while (sustained_start > cache_end && Near(z[sustained_start - 1].mb_per_s, z.back().mb_per_s)) {
    --sustained_start;
  }
  if (cache_end >= z.size() || sustained_start < cache_end) return std::nullopt;
  WriteCacheAnalysis w;
  w.phases.push_back(PhaseOf(z, 0, cache_end, "cache"));
  if (sustained_start > cache_end)
    w.phases.push_back(PhaseOf(z, cache_end, sustained_start, "folding"));
  w.phases.push_back(PhaseOf(z, sustained_start, z.size(), "sustained"));
  w.in_cache_mb_per_s = w.phases.front().mb_per_s;
  w.after_cache_mb_per_s = w.phases.back().mb_per_s;
  if (w.in_cache_mb_per_s < kWriteCacheMinRatio * w.after_cache_mb_per_s) return std::nullopt;
  w.size_bytes = w.phases.front().end_bytes - std::min(start_bytes, w.phases.front().end_bytes);
  w.description =
      CacheGbText(w.size_bytes) + " at " + FormatFixed(w.in_cache_mb_per_s, 0) + " MB/s, then ";
  if (w.phases.size() == 3) {
    const WritePhase& f = w.phases[1];
    w.description += CacheGbText(f.end_bytes - f.start_bytes) + " folding at " +
                     FormatFixed(f.mb_per_s, 0) + " MB/s, then ";
  }
  w.description += FormatFixed(w.after_cache_mb_per_s, 0) + " MB/s sustained";
  return w;
}

std::string RecoveryText(const WriteCacheAnalysis& w) {
  const WriteCacheRecovery& r = *w.recovery;
  return "after " + FormatDuration(r.idle_seconds) +
         " idle: " + FormatFixed(static_cast<double>(r.regained_bytes) / kGB, 2) + " GB" +
         (r.at_least ? " or more" : "") + " of " + CacheGbText(w.size_bytes) + " came back";
}

std::string CacheGbText(std::uint64_t bytes) {
  const double gb = static_cast<double>(bytes) / kGB;
  const int decimals = gb >= 10 ? 1 : gb >= 1 ? 2 : gb >= 0.1 ? 3 : 4;
  return FormatFixed(gb, decimals) + " GB";
}

}  // namespace zcav
