#include "zcav/analysis/slow_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace zcav {
namespace {

// At most this many rates go into one quantile (evenly spaced): keeps a 20 M
// block curve linear in its size.
constexpr std::size_t kMaxQuantileSamples = 257;

// A block's level is this quantile of its window, not the median: a damaged
// stretch reads up to ~60 % of its blocks slow (the disk: 323 of ~790
// in 99-200 GB), which pulls a median down onto the slow blocks; the upper
// quartile of a healthy window lies within a jitter (1-2 %) of its median,
// far from the 0.6x line.
constexpr double kLevelQuantile = 0.75;

// The level's window is at least 1/kWindowDivisor of the curve on each side,
// and the level is computed every window / kLevelStepsPerWindow blocks (the
// nearest such level stands for a block's own: the window moves by 1/8 of
// itself between them).
constexpr std::size_t kWindowDivisor = 16;
constexpr std::size_t kLevelStepsPerWindow = 8;

// Each side of a slow region holds under this share of the region's share of
// slow blocks.
constexpr double kMaxSideShareOfRun = 0.5;

// A slow region's slow blocks exceed by this many standard deviations what
// its sides' share of slow blocks would give it by chance: a throttle's or
// a host's scattered slow blocks (5-10 % of them) cluster somewhere; 6 sigma
// kept 750 such simulated curves of 7812 blocks free of slow regions.
constexpr double kSigmas = 6;

// The share of slow blocks beside a run is counted over up to this many
// times its span on each side.
constexpr std::size_t kSideCountOfSpan = 4;

// Each side of a slow region is at least 1/kMinSideOfSpan of its span (up to
// the window): slow blocks spread over a whole curve make one run from near
// its start to near its end, with a few healthy blocks on either side.
constexpr std::size_t kMinSideOfSpan = 4;

// The `quantile` (0..1) of the rates of blocks [begin, end), 0 when empty;
// `slow_only`: of the blocks flagged in `slow` only.
double QuantileOfRange(const Curve& points, std::size_t begin, std::size_t end, double quantile,
                       std::vector<double>& scratch, const std::vector<bool>* slow_only = nullptr) {
  scratch.clear();
  const std::size_t stride = std::max<std::size_t>(1, (end - begin) / kMaxQuantileSamples);
  for (std::size_t i = begin; i < end; i += slow_only ? 1 : stride) {
    if (!slow_only || (*slow_only)[i]) scratch.push_back(points.mb_per_s(i));
  }
  if (scratch.empty()) return 0;
  auto at = scratch.begin() +
            static_cast<std::ptrdiff_t>(quantile * static_cast<double>(scratch.size() - 1));
  std::nth_element(scratch.begin(), at, scratch.end());
  return *at;
}

// Whether each block is below `factor` x its level over `window` blocks on
// either side.
std::vector<bool> SlowFlags(const Curve& points, std::size_t window, double factor) {
  const std::size_t n = points.size();
  const std::size_t step = std::max<std::size_t>(1, window / kLevelStepsPerWindow);
  std::vector<double> scratch;
  std::vector<double> levels;  // at blocks 0, step, 2 x step, ...
  for (std::size_t g = 0; g < n + step; g += step) {
    const std::size_t begin = g > window ? g - window : 0;
    const std::size_t end = std::min(n, g + window + 1);
    levels.push_back(begin < end ? QuantileOfRange(points, begin, end, kLevelQuantile, scratch)
                                 : 0);
  }
  std::vector<bool> slow(n);
  for (std::size_t i = 0; i < n; ++i) {
    slow[i] = points.mb_per_s(i) < factor * levels[(i + step / 2) / step];
  }
  return slow;
}

struct Run {
  std::size_t first = 0, last = 0;  // its first and last slow block
  std::size_t slow_blocks = 0;
  std::size_t span() const { return last - first + 1; }
};

// Slow blocks at most `max_gap` apart, then runs closer than the shorter
// one's span joined.
std::vector<Run> RunsOf(const std::vector<bool>& slow, std::size_t max_gap) {
  std::vector<Run> runs;
  for (std::size_t i = 0; i < slow.size(); ++i) {
    if (!slow[i]) continue;
    if (!runs.empty() && i - runs.back().last <= max_gap + 1) {
      runs.back().last = i;
      ++runs.back().slow_blocks;
    } else {
      runs.push_back({i, i, 1});
    }
  }
  std::vector<Run> joined;
  for (const Run& r : runs) {
    if (!joined.empty()) {
      Run& before = joined.back();
      if (r.first - before.last - 1 <= std::min(before.span(), r.span())) {
        before.last = r.last;
        before.slow_blocks += r.slow_blocks;
        continue;
      }
    }
    joined.push_back(r);
  }
  return joined;
}

// Whether `run` holds more slow blocks than `side_share` of slow blocks
// spread evenly would give it by chance: over kSigmas binomial standard
// deviations, not counting its two ends (slow by construction: a run is
// bounded where a cluster happens to begin and end).
bool Unlikely(const Run& run, double side_share) {
  const double inner = static_cast<double>(run.span()) - 2;
  const double expected = side_share * inner;
  const double sigma = std::sqrt(std::max(0.0, inner * side_share * (1 - side_share)));
  return static_cast<double>(run.slow_blocks) - 2 > expected + kSigmas * sigma;
}

// Whether at least kEndHealthyShare of `run`'s blocks are not slow and
// their median reads within kEndHealthyLevel of `level` (the damaged
// stretch of a real disk read its other blocks at full speed).
constexpr double kEndHealthyShare = 0.2;
constexpr double kEndHealthyLevel = 0.85;
bool HealthyBetween(const Curve& points, const std::vector<bool>& slow, const Run& run,
                    double level) {
  std::vector<double> rates;
  for (std::size_t i = run.first; i <= run.last; ++i) {
    if (!slow[i]) rates.push_back(points.mb_per_s(i));
  }
  if (static_cast<double>(rates.size()) < kEndHealthyShare * static_cast<double>(run.span())) {
    return false;
  }
  std::nth_element(rates.begin(), rates.begin() + static_cast<std::ptrdiff_t>(rates.size() / 2),
                   rates.end());
  return rates[rates.size() / 2] >= kEndHealthyLevel * level;
}

// Time to read `bytes` at `mb_per_s`, ms.
double Ms(std::uint64_t bytes, double mb_per_s) {
  return mb_per_s > 0 ? static_cast<double>(bytes) / (mb_per_s * 1e6) * 1e3 : 0;
}

}  // namespace

std::vector<SlowRegion> FindSlowBlockRuns(const Curve& points, const SlowBlockOptions& o) {
  std::vector<SlowRegion> out;
  const std::size_t n = points.size();
  if (n < 2 * o.min_side_blocks + o.min_slow_blocks || o.min_slow_blocks == 0) return out;
  const std::size_t window = std::max(o.min_window_blocks, n / kWindowDivisor);
  const std::vector<bool> slow = SlowFlags(points, window, o.slow_factor);
  std::vector<double> scratch;
  for (const Run& run : RunsOf(slow, o.max_gap_blocks)) {
    const double share = static_cast<double>(run.slow_blocks) / static_cast<double>(run.span());
    if (run.slow_blocks < o.min_slow_blocks || share < o.min_slow_share) continue;
    // The sides: `window` blocks (or what the curve has) before and after.
    const std::size_t left_begin = run.first > window ? run.first - window : 0;
    const std::size_t right_end = std::min(n, run.last + 1 + window);
    const std::size_t left_blocks = run.first - left_begin;
    const std::size_t right_blocks = right_end - run.last - 1;
    const std::size_t min_side =
        std::max(o.min_side_blocks, std::min(run.span(), window) / kMinSideOfSpan);
    const bool has_left = left_blocks >= min_side, has_right = right_blocks >= min_side;
    if (!has_left && !has_right) continue;
    const auto side_share = [&](std::size_t begin, std::size_t end) {
      const auto count = std::count(slow.begin() + static_cast<std::ptrdiff_t>(begin),
                                    slow.begin() + static_cast<std::ptrdiff_t>(end), true);
      return static_cast<double>(count) / static_cast<double>(end - begin);
    };
    // Counted over at most kSideCountOfSpan x its span (at least the minimum
    // window) on each side: linear in the curve however many runs it has.
    const std::size_t count_blocks =
        std::min(window, std::max(o.min_window_blocks, kSideCountOfSpan * run.span()));
    const double side = std::max(
        has_left ? side_share(run.first - std::min(left_blocks, count_blocks), run.first) : 0.0,
        has_right ? side_share(run.last + 1, run.last + 1 + std::min(right_blocks, count_blocks))
                  : 0.0);
    if (side >= kMaxSideShareOfRun * share || !Unlikely(run, side)) continue;  // texture
    const double left_median =
        has_left ? QuantileOfRange(points, left_begin, run.first, 0.5, scratch) : 0;
    const double right_median =
        has_right ? QuantileOfRange(points, run.last + 1, right_end, 0.5, scratch) : 0;
    const double around = has_left && has_right ? std::min(left_median, right_median)
                                                : std::max(left_median, right_median);
    // At an end of the curve there is no side to come back to: a slower
    // last zone (or a cache, then the device) looks the same. Only a run
    // whose blocks between its slow ones read at the one side's level is
    // damage there, not a level of its own.
    if (!(has_left && has_right) && !HealthyBetween(points, slow, run, around)) continue;
    const double slow_median =
        QuantileOfRange(points, run.first, run.last + 1, 0.5, scratch, &slow);
    if (slow_median >= o.slow_factor * around) continue;  // a step that stays down
    SlowRegion r;
    r.offset_bytes = points.offset_bytes(run.first);
    const CurvePoint end_point = points[run.last];
    r.length_bytes = end_point.offset_bytes + end_point.length_bytes - r.offset_bytes;
    for (std::size_t k = run.first; k <= run.last; ++k) {
      const CurvePoint p = points[k];
      r.ms += Ms(p.length_bytes, p.mb_per_s);
      r.expected_ms += Ms(p.length_bytes, around);
    }
    out.push_back(r);
  }
  return out;
}

Curve WithoutRegions(const Curve& points, const std::vector<SlowRegion>& regions) {
  if (regions.empty()) return points;
  Curve out;
  out.reserve(points.size());
  std::size_t r = 0;
  for (const CurvePoint& p : points) {
    while (r < regions.size() &&
           regions[r].offset_bytes + regions[r].length_bytes <= p.offset_bytes) {
      ++r;
    }
    const bool inside =
        r < regions.size() && p.offset_bytes >= regions[r].offset_bytes &&
        p.offset_bytes + p.length_bytes <= regions[r].offset_bytes + regions[r].length_bytes;
    if (!inside) out.push_back(p);
  }
  return out;
}

}  // namespace zcav
