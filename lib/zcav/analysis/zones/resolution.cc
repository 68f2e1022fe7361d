// Zone detector, its resolution: how many blocks one point of the curve
// must hold before its rate is the device's rather than timing noise
// (ZoneAnalysis::resolution_blocks, kResolutionSigma), and the grouping.
// In: the curve and ZoneOptions::blur_blocks. Out: the group size k, and the
// curve of groups of k points that the steps then run on.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "zcav/analysis/zones/stages.h"

namespace zcav::zones {
namespace {

// Robust per-point scatter of the log rates (see kResolutionSigma).
double PointScatter(const Curve& curve) {
  std::vector<double> y(curve.size());
  double floor = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (curve.mb_per_s(i) > 0) floor = std::min(floor, curve.mb_per_s(i));
  }
  if (!std::isfinite(floor)) return 0;
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = std::log(std::max(curve.mb_per_s(i), floor));
  return NoiseSigma(y);
}

}  // namespace

Curve GroupPoints(const Curve& curve, std::size_t k) {
  Curve out;
  out.reserve(curve.size() / k + 1);
  for (std::size_t first = 0; first < curve.size(); first += k) {
    const std::size_t end = std::min(curve.size(), first + k);
    double bytes = 0, seconds = 0, lo = 0, hi = 0;
    for (std::size_t i = first; i < end; ++i) {
      const CurvePoint p = curve[i];
      const double b = static_cast<double>(p.length_bytes);
      bytes += b;
      seconds += p.mb_per_s > 0 ? b / (p.mb_per_s * 1e6) : 0;
      lo = i == first ? p.min_mb_per_s : std::min(lo, p.min_mb_per_s);
      hi = std::max(hi, p.max_mb_per_s);
    }
    const std::uint64_t offset = curve.offset_bytes(first);
    const std::uint64_t stop = curve.offset_bytes(end - 1) + curve.length_bytes(end - 1);
    const double rate = seconds > 0 ? bytes / seconds / 1e6 : 0;
    out.push_back({offset, stop - offset, rate, std::min(lo, rate), std::max(hi, rate)});
  }
  return out;
}

std::size_t Resolution(const Curve& curve, const ZoneOptions& options) {
  std::size_t k =
      options.blur_blocks > 1 ? static_cast<std::size_t>(std::ceil(options.blur_blocks)) : 1;
  const std::size_t n = curve.size();
  // Too few groups to find zones on: the blocks as they are, unless they
  // scatter like timing noise (below).
  if (n / k < kZoneTuning.min_resolved_points) k = 1;
  if (PointScatter(k > 1 ? GroupPoints(curve, k) : curve) <= kResolutionSigma) return k;
  while (n / (2 * k) >= kZoneTuning.min_resolved_points) {
    k *= 2;
    if (PointScatter(GroupPoints(curve, k)) <= kResolvedSigma) break;
  }
  return k;
}

}  // namespace zcav::zones
