#include "zcav/analysis/adaptive_steps.h"

namespace zcav {

std::vector<AdaptiveStep> GridSteps(const std::vector<AdaptiveProbe>& grid,
                                    const ZoneOptions& options) {
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
  const ZoneAnalysis a = DetectZones(curve, options);
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

}  // namespace zcav
