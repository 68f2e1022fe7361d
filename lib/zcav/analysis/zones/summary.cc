// Zone detector, step 6: the zones' statistics and the summary of a curve
// (fastest and slowest zone, outer/inner ratio, shares of the peak).
// In: the curve, its points' marks and zones (or smooth fit). Out: each
// zone's statistics, and the analysis' summary figures and description.
//
//  6. Summary. Zone statistics are Summarize() over the zone's measured rates,
//     outliers excluded. Shares at >= 90/75/50 % of the peak count bytes, by
//     zone median for stepped curves and by the fitted rate of each block for
//     cav/pcav (a smooth curve has no plateaus to count).
#include <algorithm>
#include <cstddef>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {

Zone MakeZone(const Curve& curve, const std::vector<Mark>& marks, std::size_t first,
              std::size_t end, std::vector<double>& scratch) {
  Zone z;
  z.first_block = first;
  z.end_block = end;
  z.start_bytes = curve.offset_bytes(first);
  z.end_bytes = curve.offset_bytes(end - 1) + curve.length_bytes(end - 1);
  scratch.clear();
  for (std::size_t i = first; i < end; ++i) {
    if (marks[i] == Mark::kNormal) scratch.push_back(curve.mb_per_s(i));
  }
  if (scratch.empty()) {
    for (std::size_t i = first; i < end; ++i) scratch.push_back(curve.mb_per_s(i));
  }
  CopyRates(SummarizeInPlace(scratch), z);
  return z;
}

// Zones as found.
void ZoneFinder::MakeZones() {
  scratch_.reserve(n_);
  for (std::size_t k = 0; k < ends_.size(); ++k) {
    zones_.push_back(MakeZone(curve_, found_.marks, k == 0 ? 0 : ends_[k - 1], ends_[k], scratch_));
  }
}

void Summarise(const Curve& curve, const SmoothFit& smooth, ZoneAnalysis& out) {
  const std::size_t n = curve.size();
  const std::vector<Zone>& zs = out.zones;
  out.fastest_zone = 0;
  out.slowest_zone = 0;
  for (std::size_t k = 0; k < zs.size(); ++k) {
    if (zs[k].mb_per_s > zs[out.fastest_zone].mb_per_s) out.fastest_zone = k;
    if (zs[k].mb_per_s < zs[out.slowest_zone].mb_per_s) out.slowest_zone = k;
  }
  const bool smooth_type = out.type == CurveType::kCav || out.type == CurveType::kPcav;
  double peak = zs[out.fastest_zone].mb_per_s;
  if (smooth_type) {
    peak = 0;
    for (std::size_t i = 0; i < n; ++i) peak = std::max(peak, smooth.RateAt(i, n));
    out.outer_inner_ratio =
        out.fit_end_mb_per_s > 0 ? out.fit_start_mb_per_s / out.fit_end_mb_per_s : 0;
  } else {
    out.outer_inner_ratio = zs.back().mb_per_s > 0 ? zs.front().mb_per_s / zs.back().mb_per_s : 0;
  }
  double total_bytes = 0, at90 = 0, at75 = 0, at50 = 0;
  std::size_t zone_index = 0;
  std::size_t i = 0;
  for (const CurvePoint& point : curve) {
    while (i >= zs[zone_index].end_block) ++zone_index;
    const double rate = smooth_type ? smooth.RateAt(i, n) : zs[zone_index].mb_per_s;
    ++i;
    const double bytes = static_cast<double>(point.length_bytes);
    total_bytes += bytes;
    if (rate >= 0.9 * peak) at90 += bytes;
    if (rate >= 0.75 * peak) at75 += bytes;
    if (rate >= 0.5 * peak) at50 += bytes;
  }
  if (total_bytes > 0) {
    out.share_at_90 = at90 / total_bytes;
    out.share_at_75 = at75 / total_bytes;
    out.share_at_50 = at50 / total_bytes;
  }

  Describe(n, smooth, out);
}

}  // namespace zcav::zones
