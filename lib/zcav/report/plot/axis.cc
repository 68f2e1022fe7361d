// Plots, inside: the rate axis of the falloff and comparison plots, which
// spans the bulk of the blocks and leaves wild ones off scale (see
// plot_internal.h and RateAxisTop).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/report/plot/plot_internal.h"

namespace zcav::plot_detail {

namespace {

// Room above the highest point for the zone labels and the key.
constexpr double kHeadroom = 1.15;

// The rate axis (see RateAxisTop): it spans every block unless the highest
// is more than kOffScaleTolerance times the top of the bulk of the data; then
// it spans the bulk and the blocks above are drawn on its top edge. 1.5: a
// spike half again as fast as everything else still fits (the plot keeps its
// look, the bulk keeps two thirds of the height); a few blurred blocks at 20x
// the device's rate (the 3000 MB/s on a 140 MB/s device) do not
// squash the curve into the bottom twentieth.
constexpr double kOffScaleTolerance = 1.5;
// The bulk's top ignores the highest 1 % of blocks, and anything above
// Tukey's far-out fence (P75 + 3 x IQR, Tukey 1977), which also holds when
// more than 1 % of the blocks are wild (a flat 36 MB/s FUSE device read
// 2-3 % of its blocks at 100-210 MB/s).
constexpr double kBulkQuantile = 0.99;
constexpr double kFenceIqrs = 3.0;
// The bulk's quantiles are read from at most this many blocks, evenly spaced
// (a 20 M-block curve: 2^20 of them, as good for an axis and 8 MiB of memory).
constexpr std::size_t kMaxRobustSamples = std::size_t{1} << 20;

// The q-quantile (nearest rank) of `values`, reordering them. REQUIRES:
// !values.empty(), 0 <= q <= 1.
double Quantile(std::vector<double>& values, double q) {
  assert(!values.empty());
  const auto rank =
      static_cast<std::ptrdiff_t>(std::lround(q * static_cast<double>(values.size() - 1)));
  std::nth_element(values.begin(), values.begin() + rank, values.end());
  return values[static_cast<std::size_t>(rank)];
}

// The top of the bulk of `values` (see kBulkQuantile); 0 for none.
double BulkTop(std::vector<double> values) {
  if (values.empty()) return 0;
  const double p25 = Quantile(values, 0.25);
  const double p75 = Quantile(values, 0.75);
  const double fence = p75 + kFenceIqrs * (p75 - p25);
  return std::min(Quantile(values, kBulkQuantile), fence);
}

}  // namespace

// Each block is measured against its zone's median: a wild block is wild
// next to its neighbours, and a staircase's spread of levels would widen the
// fence (5 blocks at 3000 MB/s on a 140..65 MB/s staircase would set the
// axis at 270).
double CurveBulkTop(const Curve& points, bool band, const std::vector<Zone>& zones) {
  const std::size_t stride =
      std::max<std::size_t>(1, (points.size() + kMaxRobustSamples - 1) / kMaxRobustSamples);
  double fastest = 0;
  for (const Zone& z : zones) fastest = std::max(fastest, z.mb_per_s);
  const bool relative = fastest > 0;
  std::vector<double> rates;
  std::vector<double> highs;
  rates.reserve(points.size() / stride + 1);
  std::size_t zone = 0;
  for (std::size_t i = 0; i < points.size(); i += stride) {
    while (relative && zone + 1 < zones.size() && i >= zones[zone].end_block) ++zone;
    const double level = relative && zones[zone].mb_per_s > 0 ? zones[zone].mb_per_s : 1;
    const CurvePoint p = points[i];
    rates.push_back(p.mb_per_s / level);
    if (band) highs.push_back((p.max_mb_per_s > 0 ? p.max_mb_per_s : p.mb_per_s) / level);
  }
  const double top = std::max(BulkTop(std::move(rates)), BulkTop(std::move(highs)));
  return relative ? top * fastest : top;
}

bool DrawsLevels(CurveType type) {
  switch (type) {
    case CurveType::kCav:
    case CurveType::kPcav:
      return false;
    case CurveType::kZoned:
    case CurveType::kFlat:
    case CurveType::kClipped:
    case CurveType::kZclv:
    case CurveType::kClv:
    case CurveType::kOther:
    case CurveType::kTiered:
    case CurveType::kFlatDips:
      return true;
  }
  return true;
}

bool HasJitter(const ZoneAnalysis& zones) {
  return !zones.zones.empty() && DrawsLevels(zones.type) &&
         (zones.texture.jitter_p5_rel < 1 || zones.texture.jitter_p95_rel > 1);
}

const std::vector<Zone>& DrawnZones(const ZoneAnalysis& zones) {
  static const std::vector<Zone> kNone;
  return DrawsLevels(zones.type) ? zones.zones : kNone;
}

double LevelsTop(const ZoneAnalysis& zones) {
  double top = std::max(zones.fit_start_mb_per_s, zones.fit_end_mb_per_s);
  const double jitter = HasJitter(zones) ? std::max(1.0, zones.texture.jitter_p95_rel) : 1.0;
  for (const Zone& z : zones.zones) top = std::max(top, z.mb_per_s * jitter);
  return top;
}

double RateAxisTop(double full_top_mb_per_s, double bulk_top_mb_per_s) {
  const bool robust =
      bulk_top_mb_per_s > 0 && full_top_mb_per_s > bulk_top_mb_per_s * kOffScaleTolerance;
  const double top = (robust ? bulk_top_mb_per_s : full_top_mb_per_s) * kHeadroom;
  return top > 0 ? std::strtod(FormatFixed(top, 1).c_str(), nullptr) : 0;
}

std::vector<std::uint64_t> OffScaleBlocks(const Curve& points, double axis_top_mb_per_s) {
  std::vector<std::uint64_t> blocks;
  if (axis_top_mb_per_s <= 0) return blocks;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points.mb_per_s(i) > axis_top_mb_per_s) blocks.push_back(i);
  }
  return blocks;
}

}  // namespace zcav::plot_detail
