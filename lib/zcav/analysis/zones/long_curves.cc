// Zone detector, step 7: curves longer than kMaxDetailPoints, segmented
// on bucket medians, with the outlier filter, the edges and the statistics
// on every point.
// In: a curve over kMaxDetailPoints. Out: its analysis (steps 1 to 6), as
// DetectPoints gives for shorter curves.
//
//  7. Long curves (over kMaxDetailPoints, 2^20: a 20 TB disk in 1 MiB blocks
//     has 20 M points, and steps 1-5 keep about 40 bytes per point, 800 MB).
//     Steps 3-5 run on bucket medians of k = ceil(N / 2^20) consecutive
//     points: the smallest zone is 0.2 % of the curve, over 2000 buckets, so
//     nothing a zone table shows is lost, and a median ignores the odd slow
//     block in a bucket. Steps 1, 2 and 6 run on every point: the noise scale
//     in single precision (a scale needs no more), the outlier filter window
//     by window, the statistics zone by zone. An edge between stepped zones
//     found on buckets is moved to the point where the curve changes level,
//     the split within a bucket either side that fits the two zones' levels
//     best in least squares (a straddling block goes to the nearer level, as
//     in 2.); on disk curves this gives the edges of the per-point method to
//     a block. A pcav knee stays on its bucket edge (a fit has no step to
//     find).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {
namespace {

// The marks of the outlier filter (2.) on every point of `curve`, computed
// window by window so that memory stays small: a window of kZoneTuning.clean_window
// points (a multiple of `bucket`) with kZoneTuning.clean_margin points on either side.
// The filter looks at most 2 h = 10 points either side of a point, and a
// run of flagged points either fits in the margin or is too long to be
// outliers whichever part of it a window sees, so the interior's marks are
// those of one pass over the whole curve. Calls on_bucket(first, end, median log rate of the
// cleaned points) for each bucket of `bucket` consecutive points, in order.

template <typename OnBucket>
std::vector<Mark> CleanInWindows(const Curve& curve, double rate_floor, double sigma,
                                 std::size_t max_run, std::size_t bucket, OnBucket on_bucket) {
  const std::size_t n = curve.size();
  const std::size_t window = (kZoneTuning.clean_window + bucket - 1) / bucket * bucket;
  std::vector<Mark> marks(n, Mark::kNormal);
  std::vector<double> y, values;
  for (std::size_t start = 0; start < n; start += window) {
    const std::size_t stop = std::min(n, start + window);
    const std::size_t lo = start > kZoneTuning.clean_margin ? start - kZoneTuning.clean_margin : 0;
    const std::size_t hi = std::min(n, stop + kZoneTuning.clean_margin);
    y.resize(hi - lo);
    for (std::size_t i = lo; i < hi; ++i) {
      y[i - lo] = std::log(std::max(curve.mb_per_s(i), rate_floor));
    }
    const std::vector<Mark> window_marks = CleanCurve(y, sigma, max_run);
    std::copy(window_marks.begin() + static_cast<std::ptrdiff_t>(start - lo),
              window_marks.begin() + static_cast<std::ptrdiff_t>(stop - lo),
              marks.begin() + static_cast<std::ptrdiff_t>(start));
    for (std::size_t first = start; first < stop; first += bucket) {
      const std::size_t end = std::min(stop, first + bucket);
      values.assign(y.begin() + static_cast<std::ptrdiff_t>(first - lo),
                    y.begin() + static_cast<std::ptrdiff_t>(end - lo));
      on_bucket(first, end, MedianInPlace(values));
    }
  }
  return marks;
}

// Median and noise scale (1.) of the log rates of every point, in single
// precision (4 bytes per point, for a scale and a floor).
void CurveMedianAndSigma(const Curve& curve, double& median_rate, double& sigma) {
  const std::size_t n = curve.size();
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(curve.mb_per_s(i));
  auto median = [&v] {
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    const auto upper = static_cast<double>(*mid);
    return v.size() % 2 == 1 ? upper
                             : (static_cast<double>(*std::max_element(v.begin(), mid)) + upper) / 2;
  };
  median_rate = median();
  const double rate_floor = median_rate > 0 ? kZoneTuning.rate_floor_rel * median_rate : 1e-9;
  sigma = kZoneTuning.sigma_floor_rel;
  if (n < 3) return;
  v.resize(n - 1);
  double previous = std::log(std::max(curve.mb_per_s(0), rate_floor));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const double next = std::log(std::max(curve.mb_per_s(i + 1), rate_floor));
    v[i] = static_cast<float>(next - previous);
    previous = next;
  }
  const double med = median();
  for (float& d : v) d = static_cast<float>(std::fabs(static_cast<double>(d) - med));
  sigma = std::max(kMadToSigma * median() / std::sqrt(2.0), kZoneTuning.sigma_floor_rel);
}

// Moves each edge between two stepped zones found on buckets of `bucket`
// points to the point where the curve changes level: within a bucket either
// side of it, the split that fits the points on the left to the left zone's
// level and those on the right to the right zone's level best (least squares
// of the log rates; outliers left out, so a point read across the edge goes
// to the side whose level is nearer, as in 2.). Each zone keeps at least one
// point. `zones` hold point indices and levels (MB/s).
void RefineEdges(const Curve& curve, const std::vector<Mark>& marks, double rate_floor,
                 std::size_t bucket, std::vector<Zone>& zones) {
  for (std::size_t j = 1; j < zones.size(); ++j) {
    Zone& left = zones[j - 1];
    Zone& right = zones[j];
    const std::size_t edge = right.first_block;
    const std::size_t lo = std::max(left.first_block + 1, edge > bucket ? edge - bucket : 0);
    const std::size_t hi = std::min(right.end_block - 1, edge + bucket);
    if (lo >= hi) continue;
    const double a = std::log(std::max(left.mb_per_s, rate_floor));
    const double b = std::log(std::max(right.mb_per_s, rate_floor));
    // cost(s) - cost(lo), for the split s: points [lo, s) on the left level.
    double cost = 0, best_cost = 0;
    std::size_t best = lo;
    for (std::size_t i = lo; i < hi; ++i) {
      if (marks[i] != Mark::kOutlier) {
        const double y = std::log(std::max(curve.mb_per_s(i), rate_floor));
        cost += (y - a) * (y - a) - (y - b) * (y - b);
      }
      // Ties keep the edge the buckets gave.
      if (cost < best_cost || (cost == best_cost && i + 1 == edge)) {
        best_cost = cost;
        best = i + 1;
      }
    }
    if (lo == edge && best_cost >= 0) best = edge;
    left.end_block = best;
    right.first_block = best;
  }
}

}  // namespace

ZoneAnalysis DetectZonesReduced(const Curve& curve, const ZoneOptions& options, bool optical) {
  const std::size_t n = curve.size();
  const std::size_t bucket = (n + kMaxDetailPoints - 1) / kMaxDetailPoints;
  const std::size_t buckets = (n + bucket - 1) / bucket;
  double median_rate = 0, sigma = 0;
  CurveMedianAndSigma(curve, median_rate, sigma);
  const double rate_floor = median_rate > 0 ? kZoneTuning.rate_floor_rel * median_rate : 1e-9;

  // The reduced series' minimum zone: the same share of the curve, or the
  // given length in whole buckets.
  ZoneOptions reduced_options = options;
  if (options.min_zone_blocks > 0) {
    reduced_options.min_zone_blocks = (options.min_zone_blocks + bucket - 1) / bucket;
  }
  const std::size_t min_len = MinZoneLength(options, n);
  Curve reduced;
  reduced.reserve(buckets);
  const std::vector<Mark> marks = CleanInWindows(
      curve, rate_floor, sigma,
      std::min(kZoneTuning.max_outlier_run, min_len > 0 ? min_len - 1 : 0), bucket,
      [&](std::size_t first, std::size_t end, double median_log_rate) {
        const std::uint64_t offset = curve.offset_bytes(first);
        const std::uint64_t stop = curve.offset_bytes(end - 1) + curve.length_bytes(end - 1);
        reduced.push_back({offset, stop > offset ? stop - offset : 0, std::exp(median_log_rate)});
      });

  Found found = FindZones(reduced, reduced_options, optical);
  ZoneAnalysis& out = found.out;
  out.noise_sigma_mb_per_s = sigma * std::max(median_rate, 0.0);
  out.min_zone_blocks *= bucket;
  out.outliers.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (marks[i] == Mark::kOutlier) {
      out.outliers.push_back({i, curve.offset_bytes(i), curve.mb_per_s(i)});
    }
  }
  // Buckets to points: zones (stepped ones' edges moved to where the level
  // changes), the knee of a pcav fit, the fit's ends.
  for (Zone& z : out.zones) {
    z.first_block = std::min(n, z.first_block * bucket);
    z.end_block = std::min(n, z.end_block * bucket);
  }
  const bool smooth_type = out.type == CurveType::kCav || out.type == CurveType::kPcav;
  if (!smooth_type) RefineEdges(curve, marks, rate_floor, bucket, out.zones);
  std::vector<double> scratch;
  for (Zone& z : out.zones) z = MakeZone(curve, marks, z.first_block, z.end_block, scratch);
  SmoothFit smooth = found.smooth;
  smooth.knee = smooth.knee >= buckets ? n : std::min(n, smooth.knee * bucket);
  if (smooth_type) {
    out.fit_start_mb_per_s = smooth.RateAt(0, n);
    out.fit_end_mb_per_s = smooth.RateAt(n - 1, n);
  }
  Summarise(curve, smooth, out);
  return out;
}

}  // namespace zcav::zones
