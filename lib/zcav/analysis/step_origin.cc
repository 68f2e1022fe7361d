#include "zcav/analysis/step_origin.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "zcav/base/stats.h"

namespace zcav {
namespace {

// Why these values:
// - Levels are window medians (kStepWindowBlocks = 32 blocks a side): a
//   median ignores up to half the window being outliers, dips or the tail of
//   a neighbouring step, and over 32 blocks its noise is about
//   1.25 / sqrt(32) = 22 % of one block's, so a 3 % step stands out of 2 %
//   per-block jitter.
// - A pass's step is "the same size" as the median curve's when it is
//   between half and twice it (log ratio): the median of two passes where
//   one drops by 60 % and the other not at all drops by about 43 %, and the
//   pass that does drop must still count as showing the step (ratio 1.64).
//   Within kSameSizeSigmas of the noise counts as the same too, for small
//   steps.
// - It must also stand out of the pass's own noise (kShowsSigmas standard
//   errors of a difference of two window medians), or the pass has no step;
//   and a pass whose noise would hide the median's step there abstains.
// - The position tolerance is a few blocks or 1 % of the curve (the
//   detector places an edge within a block or two; 1 % is what a person
//   reading the plot would call "the same place").
constexpr double kSameSizeLow = 0.5;
constexpr double kSameSizeHigh = 2.0;
constexpr double kSameSizeSigmas = 3;
constexpr double kShowsSigmas = 3;
constexpr double kToleranceShare = 0.01;
// The run of candidate edges scoring at least this share of the best one is
// the plateau of a clean step (window medians do not move while less than
// half a window straddles it); its centre is the edge.
constexpr double kPlateauShare = 0.9;
// Standard error of a median relative to a mean's, for normal noise.
constexpr double kMedianEfficiency = 1.2533;
// The noise scale is estimated from at most this many differences.
constexpr std::size_t kMaxNoiseSamples = std::size_t{1} << 20;

bool Usable(double mb_per_s) { return std::isfinite(mb_per_s) && mb_per_s > 0; }

// The first point of `curve` at or after `offset_bytes` (size() if none).
std::size_t LowerBound(const Curve& curve, std::uint64_t offset_bytes) {
  std::size_t lo = 0, hi = curve.size();
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (curve.offset_bytes(mid) < offset_bytes) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Robust noise of one pass's log rates: the MAD of consecutive differences
// (steps and a slow drift barely move it), scaled to one block's sigma.
double LogNoiseSigma(const Curve& pass) {
  const std::size_t n = pass.size();
  const std::size_t stride = std::max<std::size_t>(1, n / kMaxNoiseSamples);
  std::vector<double> diffs;
  diffs.reserve(std::min(n, kMaxNoiseSamples) + 1);
  double previous = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < n; i += stride) {
    const double r = pass.mb_per_s(i);
    if (!Usable(r)) continue;
    const double l = std::log(r);
    if (!std::isnan(previous)) diffs.push_back(std::fabs(l - previous));
    previous = l;
  }
  return MedianInPlace(diffs) * kMadToSigma / std::sqrt(2.0);
}

// One pass's view of one step.
struct PassStep {
  bool votes = false;   // data on both sides of the step
  bool shows = false;   // a change the same way, about as large
  bool agrees = false;  // ...and within the tolerance of the median's edge
  std::int64_t offset_bytes = -1;
};

// Where the step between the zones `before` and `after` (median log change
// `change`) lies in `pass`, looking within `tolerance` blocks (plus a
// window) of its edge in the median curve.
class StepFinder {
 public:
  StepFinder(const Curve& pass, double sigma) : pass_(pass), sigma_(sigma) {}

  PassStep Find(const Zone& before, const Zone& after, double change, std::size_t tolerance) {
    PassStep out;
    const std::size_t n = pass_.size();
    const std::size_t edge = LowerBound(pass_, after.start_bytes);
    // The two zones, and the candidate edges between their middles.
    const std::size_t zone_lo = LowerBound(pass_, before.start_bytes);
    const std::size_t zone_hi = LowerBound(pass_, after.end_bytes);
    if (!HasUsable(zone_lo, edge) || !HasUsable(edge, zone_hi)) return out;
    out.votes = true;
    const std::size_t reach = tolerance + 4 * kStepWindowBlocks;
    const std::size_t mid_lo = LowerBound(pass_, before.start_bytes / 2 + after.start_bytes / 2);
    const std::size_t mid_hi = LowerBound(pass_, after.start_bytes / 2 + after.end_bytes / 2);
    const std::size_t first = std::max({mid_lo, edge > reach ? edge - reach : 0, zone_lo + 1});
    const std::size_t last = std::min({mid_hi, edge + reach, zone_hi - 1, n - 1});
    if (first > last) return out;

    const double sign = change < 0 ? -1 : 1;
    std::vector<double> score(last - first + 1, -std::numeric_limits<double>::infinity());
    std::vector<double> deltas(score.size(), 0);
    std::vector<double> errors(score.size(), 0);
    levels_.assign(score.size(), {0, 0});
    std::size_t best = 0;
    for (std::size_t j = first; j <= last; ++j) {
      const std::size_t left_lo =
          std::max(zone_lo, j >= kStepWindowBlocks ? j - kStepWindowBlocks : 0);
      const std::size_t right_hi = std::min(zone_hi, j + kStepWindowBlocks);
      const double left = WindowMedian(left_lo, j);
      const std::size_t left_n = left_.size();
      const double right = WindowMedian(j, right_hi);
      const std::size_t right_n = left_.size();
      if (left_n == 0 || right_n == 0) continue;
      const std::size_t k = j - first;
      levels_[k] = {left, right};
      deltas[k] = right - left;
      score[k] = sign * deltas[k];
      errors[k] = kMedianEfficiency * sigma_ *
                  std::sqrt(1.0 / static_cast<double>(left_n) + 1.0 / static_cast<double>(right_n));
      if (score[k] > score[best]) best = k;
    }
    // A pass whose noise would hide a step of the median's size (under
    // kShowsSigmas of its error at the median's edge) tells nothing either
    // way: it abstains (a busy host's passes, each 25 % noisy, voted an
    // evident staircase of 10 % steps away as steps in time).
    const std::size_t at_edge = std::clamp(edge, first, last) - first;
    const double edge_error = errors[at_edge] > 0 ? errors[at_edge] : errors[best];
    const bool could_show = edge_error > 0 && std::fabs(change) > kShowsSigmas * edge_error;
    // Nor does a step it happens to show elsewhere count then: in such noise
    // one of the candidate edges stands out by chance.
    if (!could_show) {
      out.votes = false;
      return out;
    }
    if (!(score[best] > 0) || !(score[best] > kShowsSigmas * errors[best])) return out;
    // The plateau of edges around the best one, then the edge within it.
    std::size_t lo = best, hi = best;
    while (lo > 0 && score[lo - 1] >= kPlateauShare * score[best]) --lo;
    while (hi + 1 < score.size() && score[hi + 1] >= kPlateauShare * score[best]) ++hi;
    const std::size_t at =
        Locate(first + lo, first + hi, zone_lo, zone_hi, levels_[best].first, levels_[best].second);
    const double delta = deltas[best];
    const double error = errors[best];
    const double ratio = delta / change;
    out.shows = (ratio >= kSameSizeLow && ratio <= kSameSizeHigh) ||
                std::fabs(delta - change) <= kSameSizeSigmas * error;
    if (!out.shows) return out;
    out.offset_bytes = static_cast<std::int64_t>(pass_.offset_bytes(at));
    out.agrees = (at > edge ? at - edge : edge - at) <= tolerance;
    return out;
  }

 private:
  bool HasUsable(std::size_t lo, std::size_t hi) const {
    for (std::size_t i = lo; i < hi; ++i) {
      if (Usable(pass_.mb_per_s(i))) return true;
    }
    return false;
  }

  // The edge in [lo, hi] (points) that best splits the points around it
  // into the levels `left` and `right` (log rates): least absolute
  // deviations, so an outlier weighs at most |right - left|. The cost of an
  // edge at j is a constant plus the sum over i < j of
  // |x_i - left| - |x_i - right|; the first minimum wins.
  std::size_t Locate(std::size_t lo, std::size_t hi, std::size_t zone_lo, std::size_t zone_hi,
                     double left, double right) const {
    const std::size_t from =
        std::max(zone_lo, lo >= kStepWindowBlocks ? lo - kStepWindowBlocks : 0);
    double cost = 0;
    for (std::size_t i = from; i < lo; ++i) cost += Split(i, left, right);
    std::size_t best = lo;
    double best_cost = cost;
    for (std::size_t j = lo; j < hi && j < zone_hi; ++j) {
      cost += Split(j, left, right);
      if (cost < best_cost) {
        best_cost = cost;
        best = j + 1;
      }
    }
    return best;
  }

  double Split(std::size_t i, double left, double right) const {
    const double r = pass_.mb_per_s(i);
    if (!Usable(r)) return 0;
    const double x = std::log(r);
    return std::fabs(x - left) - std::fabs(x - right);
  }

  // The median log rate of the usable points in [lo, hi); left_ holds them.
  double WindowMedian(std::size_t lo, std::size_t hi) {
    left_.clear();
    for (std::size_t i = lo; i < hi; ++i) {
      const double r = pass_.mb_per_s(i);
      if (Usable(r)) left_.push_back(std::log(r));
    }
    return MedianInPlace(left_);
  }

  const Curve& pass_;
  const double sigma_;
  std::vector<double> left_;                       // scratch
  std::vector<std::pair<double, double>> levels_;  // per candidate edge: left, right
};

}  // namespace

std::vector<Step> ClassifySteps(const ZoneAnalysis& analysis, const std::vector<Curve>& passes) {
  std::vector<Step> steps;
  const std::vector<Zone>& zones = analysis.zones;
  if (zones.size() < 2) return steps;
  const std::uint64_t blocks = zones.back().end_block - zones.front().first_block;
  const std::size_t tolerance = std::max<std::size_t>(
      kStepToleranceBlocks,
      static_cast<std::size_t>(std::ceil(kToleranceShare * static_cast<double>(blocks))));
  std::vector<StepFinder> finders;
  if (passes.size() >= 2) {
    finders.reserve(passes.size());
    for (const Curve& pass : passes) finders.emplace_back(pass, LogNoiseSigma(pass));
  }
  for (std::size_t k = 1; k < zones.size(); ++k) {
    Step step;
    step.zone = k;
    if (finders.empty()) {
      steps.push_back(std::move(step));
      continue;
    }
    const double before = std::max(zones[k - 1].mb_per_s, std::numeric_limits<double>::min());
    const double after = std::max(zones[k].mb_per_s, std::numeric_limits<double>::min());
    const double change = std::log(after / before);
    std::size_t voters = 0, agree = 0;
    for (StepFinder& finder : finders) {
      const PassStep seen = finder.Find(zones[k - 1], zones[k], change, tolerance);
      step.pass_offsets_bytes.push_back(seen.offset_bytes);
      voters += seen.votes ? 1 : 0;
      agree += seen.votes && seen.agrees ? 1 : 0;
    }
    // One odd pass among three or more is a hiccup of that pass, not a step
    // that follows the time: that takes more than a third of the passes
    // (with two, either).
    const std::size_t disagree = voters - agree;
    step.origin = voters < 2              ? StepOrigin::kUnknown
                  : disagree > voters / 3 ? StepOrigin::kTime
                                          : StepOrigin::kPosition;
    steps.push_back(std::move(step));
  }
  return steps;
}

void ApplyStepOrigins(const Curve& median, std::vector<Step> steps, ZoneAnalysis& analysis) {
  std::vector<std::size_t> time_zones;
  for (Step& s : steps) {
    if (s.zone < analysis.zones.size()) s.offset_bytes = analysis.zones[s.zone].start_bytes;
    if (s.origin == StepOrigin::kTime) time_zones.push_back(s.zone);
  }
  analysis.steps = std::move(steps);
  // MergeZonesAt keeps the time steps' record, in the zone each now lies in.
  if (!time_zones.empty()) MergeZonesAt(median, time_zones, analysis);
}

bool HasTimeSteps(const ZoneAnalysis& analysis) {
  return std::any_of(analysis.steps.begin(), analysis.steps.end(),
                     [](const Step& s) { return s.origin == StepOrigin::kTime; });
}

}  // namespace zcav
