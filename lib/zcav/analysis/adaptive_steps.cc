#include "zcav/analysis/adaptive_steps.h"

#include <algorithm>

namespace zcav {

std::vector<AdaptiveStep> GridSteps(const std::vector<AdaptiveProbe>& grid,
                                    const ZoneOptions& options, bool optical) {
  // Each probe stands for its stretch of the grid (to the next probe): the
  // detector sees a contiguous curve of grid.size() blocks, as a sweep's.
  Curve curve;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const AdaptiveProbe& p = grid[i];
    const std::uint64_t length =
        i + 1 < grid.size() ? grid[i + 1].offset_bytes - p.offset_bytes : p.length_bytes;
    curve.push_back(
        CurvePoint{.offset_bytes = p.offset_bytes, .length_bytes = length, .mb_per_s = p.mb_per_s});
  }
  const ZoneAnalysis a = DetectZones(curve, options, optical);
  std::vector<AdaptiveStep> steps;
  if (a.type == CurveType::kCav || a.type == CurveType::kPcav) return steps;
  for (std::size_t z = 0; z + 1 < a.zones.size(); ++z) {
    const Zone& left = a.zones[z];
    const Zone& right = a.zones[z + 1];
    if (left.end_block == 0 || right.first_block <= left.end_block - 1) continue;
    steps.push_back(AdaptiveStep{.left = left.end_block - 1,
                                 .right = right.first_block,
                                 .left_mb_per_s = left.mb_per_s,
                                 .right_mb_per_s = right.mb_per_s});
  }
  return steps;
}

Curve AdaptiveCurve(const Curve& probes, const std::vector<AdaptiveEdge>& edges,
                    std::uint64_t start_bytes, std::uint64_t end_bytes) {
  Curve out;
  out.reserve(probes.size());
  std::uint64_t from = start_bytes;
  std::size_t e = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const CurvePoint p = probes[i];
    std::uint64_t to = end_bytes;
    if (i + 1 < probes.size()) {
      const std::uint64_t gap_from = p.offset_bytes + p.length_bytes;
      const std::uint64_t gap_to = probes.offset_bytes(i + 1);
      while (e < edges.size() && edges[e].at_bytes < gap_from) ++e;
      to = e < edges.size() && edges[e].at_bytes <= gap_to ? edges[e].at_bytes
                                                           : gap_from + (gap_to - gap_from) / 2;
    }
    to = std::max(to, from);
    out.push_back(CurvePoint{.offset_bytes = from,
                             .length_bytes = to - from,
                             .mb_per_s = p.mb_per_s,
                             .min_mb_per_s = p.min_mb_per_s,
                             .max_mb_per_s = p.max_mb_per_s});
    from = to;
  }
  return out;
}

}  // namespace zcav
