// Zone reports: the zone table of a ZoneAnalysis as aligned text, CSV and
// JSON, optical X-speed units, and the sink that runs the detector at the end
// of a sweep.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "zcav/analysis/health.h"
#include "zcav/analysis/transport.h"
#include "zcav/analysis/verdict.h"
#include "zcav/analysis/write_cache.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/format/result_sink.h"

namespace zcav {

enum class Media { kNone, kCd, kDvd, kBd };

// "cd", "dvd", "bd" (or "none"); throws Error(kBadInput) otherwise.
Media ParseMedia(const std::string& text);
// Optical media implied by a device name: /dev/sr*, /dev/scd*, /dev/cdrom*,
// /dev/dvd*, sim:cd, sim:dvd. kNone otherwise.
Media GuessMedia(const std::string& device_path);
// 1x in bytes per second: CD 153,600; DVD 1,385,000; BD 4,500,000. 0 for kNone.
double OneXBytesPerS(Media media);
const char* MediaName(Media media);

struct ZoneReportContext {
  std::string source;              // device or file the curve came from
  std::uint64_t device_bytes = 0;  // for "% of device"; 0 = the end of the last block
  Media media = Media::kNone;      // adds X-speed columns when optical
  std::vector<std::string> notes;  // about the data (e.g. what an import inferred)
  // The bus and the bus-or-media verdict, when known (sweeps and --bus).
  std::optional<Transport> transport;
  std::optional<Verdict> verdict;
  // Unreadable ranges and slow regions of the sweep (listed under the table;
  // their blocks are not in the zone statistics).
  std::vector<UnreadableRange> unreadable;
  std::vector<SlowRegion> slow_regions;
  // A write sweep's cache, cliff and sustained rate (write_cache.h), when it
  // shows one.
  std::optional<WriteCacheAnalysis> write_cache;
  // The health line of a result read without chunk times whose block rates
  // show slow regions (slow_blocks.h; then in `slow_regions`): text
  // "health: ..." and JSON "health" with "slow_regions".
  std::optional<Health> health;
  // Caches behind the passes' rates (caches.h; from the sweep's passes):
  // JSON "caches" when it has something to say.
  CacheFinding caches;
};

// What a zone table says of an adaptive result: "adaptive: 412 probes read
// 4.95 GB of 20000 GB (0.025 %; GB = 10^9 B), the rest inferred from the
// zone levels; edges within +-64.0 MiB (the widest)", and what a noisy host
// cost (re-reads) and hid (steps under about 4x the probes' noise).
std::string AdaptiveNote(const AdaptiveResult& result, std::size_t probes);

// The verdict for `analysis` on `transport`: sustained figures from the zones
// (fastest zone's median; bytes-weighted average), burst when measured, and
// a write sweep's write cache when it found one (VerdictInputs).
Verdict VerdictFor(const ZoneAnalysis& analysis, const Transport& transport,
                   std::optional<double> burst_mb_per_s = std::nullopt,
                   const std::optional<WriteCacheAnalysis>& write_cache = std::nullopt,
                   const CacheFinding& caches = CacheFinding{});

// An aligned, human-readable table with a title line and summary lines,
// each line ending in '\n'. GB = 10^9 B.
std::string FormatZoneTable(const ZoneAnalysis& analysis, const ZoneReportContext& context);

// CSV rows, one per zone: index,start_bytes,end_bytes,start_gb,end_gb,
// start_pct,end_pct,length_bytes,mb_per_s,mean_mb_per_s,min_mb_per_s,
// max_mb_per_s,stddev_mb_per_s,x_speed (empty when not optical).
// With `with_source`, a first column "source". `header` adds the header row.
std::string FormatZoneCsv(const ZoneAnalysis& analysis, const ZoneReportContext& context,
                          bool header, bool with_source);

// One slow region as a JSON object (text): "offset_bytes", "length_bytes",
// "ms", "expected_ms", "pass" (1-based); what every JSON output writes.
std::string SlowRegionJson(const SlowRegion& region);

// A JSON object (as text) with the members "curve_type", "zones",
// "outliers" and "zone_summary" (names fixed: other tools read them), and
// "slow_regions" and "health" when the context has a health conclusion (the
// slow regions found from block rates; a sweep writes its own beside).
std::string ZoneAnalysisJson(const ZoneAnalysis& analysis, const ZoneReportContext& context);

}  // namespace zcav
