#include "zcav/analysis/adaptive_steps.h"

#include <algorithm>

#include "zcav/base/stats.h"

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
                    std::uint64_t start_bytes, std::uint64_t end_bytes, std::uint32_t grid_probes) {
  // A bisection leaves a cluster of probes on either side of each edge, and
  // the detector weighs points, not bytes: a cluster would count as much as
  // a zone. So probes closer than half a grid gap to the previous one, with
  // no edge between them, are one point (the median of their rates, their
  // lowest and highest): about the grid's density, each edge still pinned
  // by the points either side of it.
  const std::uint64_t half_gap = grid_probes > 1 ? (end_bytes - start_bytes) / grid_probes / 2 : 0;
  struct Group {
    std::uint64_t first = 0, last_end = 0;
    std::vector<double> rates;
    double low = 0, high = 0;
  };
  std::vector<Group> groups;
  std::size_t e = 0;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const CurvePoint p = probes[i];
    bool edge_between = false;
    while (e < edges.size() && edges[e].at_bytes <= p.offset_bytes) {
      edge_between = true;
      ++e;
    }
    const double low = p.min_mb_per_s > 0 ? p.min_mb_per_s : p.mb_per_s;
    const double high = p.max_mb_per_s > 0 ? p.max_mb_per_s : p.mb_per_s;
    if (groups.empty() || edge_between || p.offset_bytes >= groups.back().first + half_gap) {
      groups.push_back(
          Group{p.offset_bytes, p.offset_bytes + p.length_bytes, {p.mb_per_s}, low, high});
    } else {
      Group& g = groups.back();
      g.last_end = p.offset_bytes + p.length_bytes;
      g.rates.push_back(p.mb_per_s);
      g.low = std::min(g.low, low);
      g.high = std::max(g.high, high);
    }
  }
  Curve out;
  out.reserve(groups.size());
  std::uint64_t from = start_bytes;
  e = 0;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    Group& g = groups[i];
    std::uint64_t to = end_bytes;
    if (i + 1 < groups.size()) {
      const std::uint64_t gap_from = g.last_end;
      const std::uint64_t gap_to = groups[i + 1].first;
      while (e < edges.size() && edges[e].at_bytes < gap_from) ++e;
      to = e < edges.size() && edges[e].at_bytes <= gap_to ? edges[e].at_bytes
                                                           : gap_from + (gap_to - gap_from) / 2;
    }
    to = std::max(to, from);
    out.push_back(CurvePoint{.offset_bytes = from,
                             .length_bytes = to - from,
                             .mb_per_s = MedianInPlace(g.rates),
                             .min_mb_per_s = g.low,
                             .max_mb_per_s = g.high});
    from = to;
  }
  return out;
}

ZoneAnalysis AdaptiveZones(const Curve& curve, const std::vector<AdaptiveEdge>& edges,
                           const ZoneOptions& options, bool optical) {
  ZoneAnalysis analysis = DetectZones(curve, options, optical);
  // AdaptiveCurve stretches its points to the edges: each edge is where a
  // point begins (the first at or after it, in general).
  std::vector<std::size_t> starts;
  std::size_t i = 0;
  for (const AdaptiveEdge& e : edges) {
    while (i < curve.size() && curve.offset_bytes(i) < e.at_bytes) ++i;
    starts.push_back(i);
  }
  ZonesAt(curve, starts, optical, analysis);
  return analysis;
}

}  // namespace zcav
