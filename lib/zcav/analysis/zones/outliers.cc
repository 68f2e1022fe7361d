// Zone detector, step 2: the Hampel outlier filter, and the blocks read
// across a zone edge.
// In: the log rates (dips and bursts already levelled by 2b.) and sigma.
// Out: each point's mark (outlier, straddle), the outliers reported, their
// values replaced by the level beside them.
//
//  2. Outliers: a Hampel filter (Hampel 1974, "The influence curve and its
//     role in robust estimation", JASA 69; the "Hampel identifier" of
//     Pearson 2002, IEEE Trans. Control Syst. Technol. 10). A block is flagged
//     when it is further than a threshold from the median of the 11 blocks
//     around it (shifted, not shrunk, at the ends) AND from the medians of
//     the 5 blocks on its left and the 5 on its right. On a falling staircase
//     the centred median is the block's own level, so edges are not flagged;
//     the side medians keep the block next to an edge from being flagged when
//     a spike sits beside it. The threshold is 5 sigma (Gaussian noise passes
//     it once in 1.7 million blocks), capped at 20 % so a 7.7 MB/s block among
//     32 MB/s ones (bonnie++'s seed 000) is caught even on a very noisy
//     curve, but never below 3 sigma, so such a curve's noise is not flagged.
//     Only isolated runs of 1-2 flagged blocks are outliers; a longer run is a
//     plateau (a zone is at least 3 blocks) and is left to the segmentation.
//     A coherent run is extended by same-side neighbours beyond half the
//     threshold, so a 3-block plateau whose noise hides one block is not
//     taken for a 2-block outlier. Outliers are reported and excluded from
//     the zone statistics; being at most 2 blocks they are never zones.
//     A block read across a zone edge (zone boundaries rarely fall on block
//     boundaries) has a rate between the two levels, with its neighbours on
//     their levels; the centred median keeps it, and with a small sigma it
//     would buy itself a minimum-length zone. Such a straddling block (more
//     than 3 sigma from both sides, which differ by more than the threshold,
//     and the 3 blocks on either side on their side's level) is not an outlier and is not
//     reported, but is excluded from the zone statistics too. Outliers and straddling blocks are
//     replaced, for the segmentation, by the median of the normal blocks on the side whose level is
//     nearer to their value, so they join a zone and never form an intermediate level; an edge
//     moves by at most that one block.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {
namespace {

// The passes of the Hampel filter (see 2. above) over the log rates `y`,
// with the state they share: the threshold, the per-block deviations and
// flags, the marks, and one scratch window for the medians.
class OutlierFilter {
 public:
  // REQUIRES: y.size() >= 5 (the window needs a clear majority of normal
  // blocks to speak for them); `y` outlives the filter.
  OutlierFilter(std::vector<double>& y, double sigma)
      : y_(y),
        n_(y.size()),
        sigma_(sigma),
        threshold_(std::clamp(kZoneTuning.hampel_rel, kZoneTuning.hampel_min_sigmas * sigma,
                              kZoneTuning.hampel_sigmas * sigma)),
        marks_(n_, Mark::kNormal),
        flagged_(n_, false) {
    window_.reserve(2 * kH + 1);
    deviation_.resize(n_);
  }

  // The smallest deviation from the median of the 2h+1 blocks around it
  // (shifted, not shrunk, at the ends: on a falling staircase that median is
  // the block's own level), from the medians of the h blocks on either side
  // (a block next to a step edge and a spike belongs to one side), and from
  // the slope through them (a smooth curve).
  void FlagDeviations(std::size_t max_run) {
    const std::size_t h = kH;
    const std::size_t n = n_;
    const std::vector<double>& y = y_;
    const double threshold = threshold_;
    const std::size_t width = 2 * h + 1;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t lo = i > h ? i - h : 0;
      const std::size_t hi = std::min(n, lo + width);
      lo = hi > width ? hi - width : 0;
      // Only |deviation| > threshold / 2 matters below. When 6 of the 11
      // blocks lie within threshold / 2 of this one, so does their median: no
      // need to sort (most blocks of a curve; it halves the filter's time).
      std::size_t close = 0;
      for (std::size_t k = lo; k < hi; ++k) close += std::fabs(y[k] - y[i]) <= threshold / 2;
      if (2 * close > hi - lo) {
        deviation_[i] = 0;
        continue;
      }
      double d = y[i] - MedianOf(lo, hi);
      if (std::fabs(d) > threshold / 2) d = SmallestSideDeviation(i, d);
      deviation_[i] = d;
      flagged_[i] = max_run > 0 && std::fabs(d) > threshold;
    }
  }

  // Keep only isolated short runs: a longer run is a plateau, not outliers.
  // A coherent run (one level, off the same way) is extended by neighbours
  // that deviate the same way by more than half the threshold and sit within
  // half the threshold of the run's median (a short plateau whose noise hides
  // one of its blocks).
  void KeepIsolatedRuns(std::size_t max_run) {
    const std::size_t n = n_;
    const double threshold = threshold_;
    for (std::size_t i = 0; i < n;) {
      if (!flagged_[i]) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < n && flagged_[j]) ++j;
      const double run_median = MedianOf(i, j);
      bool coherent = true;  // one level, off the same way
      for (std::size_t k = i; k < j; ++k) {
        coherent = coherent && deviation_[k] * deviation_[i] > 0 &&
                   std::fabs(y_[k] - run_median) < threshold / 2;
      }
      auto extends = [&](std::size_t k, std::size_t end) {
        return coherent && !flagged_[k] && deviation_[k] * deviation_[end] > 0 &&
               std::fabs(deviation_[k]) > threshold / 2 &&
               std::fabs(y_[k] - run_median) < threshold / 2;
      };
      std::size_t lo = i, hi = j;
      while (lo > 0 && extends(lo - 1, i)) --lo;
      while (hi < n && extends(hi, j - 1)) ++hi;
      if (hi - lo > max_run) {
        for (std::size_t k = i; k < j; ++k) flagged_[k] = false;
      }
      i = j;
    }
    for (std::size_t k = 0; k < n; ++k) {
      if (flagged_[k]) marks_[k] = Mark::kOutlier;
    }
  }

  // A block read across a zone edge sits between the two levels, with its
  // neighbours on their sides' levels. The median of its centred window is
  // its own value, so the filter above keeps it; left alone it would cost
  // (step / sigma)^2 on either side and buy itself a minimum-length zone when
  // sigma is small.
  void MarkStraddles() {
    const std::vector<double>& y = y_;
    const double sigma = sigma_;
    for (std::size_t i = 3; i + 3 < n_; ++i) {
      if (marks_[i] != Mark::kNormal || std::fabs(y[i + 1] - y[i - 1]) <= threshold_) continue;
      const double left = SideMedian(i, true);
      const double right = SideMedian(i, false);
      if (!(std::fabs(left - right) > threshold_)) continue;  // also false for NaN
      const bool between = (left < y[i] && y[i] < right) || (right < y[i] && y[i] < left);
      // The 3 blocks on either side sit on their side's level: their median
      // within 2 sigma of it (the first block of a 3-block zone has two blocks
      // of its own level on one side, a step away from that side's level).
      const double near_left = MedianOf(i - 3, i);
      const double near_right = MedianOf(i + 1, i + 4);
      if (between && std::fabs(near_left - left) <= kZoneTuning.straddle_neighbour_sigmas * sigma &&
          std::fabs(near_right - right) <= kZoneTuning.straddle_neighbour_sigmas * sigma &&
          std::min(std::fabs(y[i] - left), std::fabs(y[i] - right)) >
              kZoneTuning.hampel_min_sigmas * sigma) {
        marks_[i] = Mark::kStraddle;
      }
    }
  }

  // Replace: by the side whose level is nearer (an outlier beside an edge
  // joins one zone, never an intermediate level of its own).
  void Replace() {
    std::vector<double> replacement(n_);
    for (std::size_t k = 0; k < n_; ++k) {
      if (marks_[k] == Mark::kNormal) continue;
      const double left = SideMedian(k, true);
      const double right = SideMedian(k, false);
      if (std::isnan(left)) {
        replacement[k] = std::isnan(right) ? y_[k] : right;
      } else if (std::isnan(right)) {
        replacement[k] = left;
      } else {
        replacement[k] = std::fabs(y_[k] - left) <= std::fabs(y_[k] - right) ? left : right;
      }
    }
    for (std::size_t k = 0; k < n_; ++k) {
      if (marks_[k] != Mark::kNormal) y_[k] = replacement[k];
    }
  }

  std::vector<Mark> TakeMarks() { return std::move(marks_); }

 private:
  static constexpr std::size_t kH = kZoneTuning.hampel_half_window;

  // Median of y[lo, hi).
  double MedianOf(std::size_t lo, std::size_t hi) {
    window_.assign(y_.begin() + static_cast<std::ptrdiff_t>(lo),
                   y_.begin() + static_cast<std::ptrdiff_t>(hi));
    return MedianInPlace(window_);
  }

  // Medians of the normal blocks among the h on either side of k (NaN when
  // there are none).
  double SideMedian(std::size_t k, bool left) {
    window_.clear();
    const std::size_t lo = left ? (k > kH ? k - kH : 0) : k + 1;
    const std::size_t hi = left ? k : std::min(n_, k + 1 + kH);
    for (std::size_t q = lo; q < hi; ++q) {
      if (marks_[q] == Mark::kNormal) window_.push_back(y_[q]);
    }
    return window_.empty() ? std::numeric_limits<double>::quiet_NaN() : MedianInPlace(window_);
  }

  // Block i's deviation `d` from its centred median, lowered to its smallest
  // deviation from the side medians and the levels they imply.
  double SmallestSideDeviation(std::size_t i, double d) {
    const std::size_t h = kH;
    const std::size_t n = n_;
    const std::vector<double>& y = y_;
    auto consider = [&d](double candidate) {
      if (std::fabs(candidate) < std::fabs(d)) d = candidate;
    };
    // The side medians, and on a smooth slope (a CAV disc) the level they
    // interpolate, or near an end the line through two medians of the one
    // full side, can only lower |d|.
    const bool full_left = i >= h;
    const bool full_right = i + h < n;
    const double ml = i > 0 ? MedianOf(full_left ? i - h : 0, i) : 0;
    const double mr = i + 1 < n ? MedianOf(i + 1, std::min(n, i + 1 + h)) : 0;
    if (i > 0) consider(y[i] - ml);
    if (i + 1 < n) consider(y[i] - mr);
    if (full_left && full_right) {
      consider(y[i] - (ml + mr) / 2);
    } else if (full_right && i + 2 * h < n) {
      const double far = MedianOf(i + 1 + h, i + 1 + 2 * h);
      consider(y[i] - (mr - (far - mr) * static_cast<double>(h + 1) / 2 / static_cast<double>(h)));
    } else if (full_left && i >= 2 * h) {
      const double far = MedianOf(i - 2 * h, i - h);
      consider(y[i] - (ml - (far - ml) * static_cast<double>(h + 1) / 2 / static_cast<double>(h)));
    }
    return d;
  }

  std::vector<double>& y_;
  const std::size_t n_;
  const double sigma_;
  const double threshold_;
  std::vector<Mark> marks_;
  std::vector<bool> flagged_;
  std::vector<double> deviation_;
  std::vector<double> window_;  // scratch for the medians
};

}  // namespace

std::vector<Mark> CleanCurve(std::vector<double>& y, double sigma, std::size_t max_run) {
  // The window needs a clear majority of normal blocks to speak for them.
  if (y.size() < 5) return std::vector<Mark>(y.size(), Mark::kNormal);
  OutlierFilter filter(y, sigma);
  filter.FlagDeviations(max_run);
  filter.KeepIsolatedRuns(max_run);
  if (StageRuns(Stage::kStraddles)) filter.MarkStraddles();
  filter.Replace();
  return filter.TakeMarks();
}

// 2. Outliers (runs shorter than a zone, at most kZoneTuning.max_outlier_run) and
// blocks straddling a zone edge; after the dips and bursts (2b.), so that the
// outlier filter sees the level around them.
void ZoneFinder::MarkOutliers() {
  if (!StageRuns(Stage::kOutliers)) return;
  {
    std::vector<Mark> cleaned = CleanCurve(
        y_, sigma_, std::min(kZoneTuning.max_outlier_run, min_len_ > 0 ? min_len_ - 1 : 0));
    for (std::size_t i = 0; i < n_; ++i) {
      if (found_.marks[i] == Mark::kNormal) found_.marks[i] = cleaned[i];
    }
  }
  for (std::size_t i = 0; i < n_; ++i) {
    if (found_.marks[i] == Mark::kOutlier) {
      out().outliers.push_back({i, curve_.offset_bytes(i), curve_.mb_per_s(i)});
    }
  }
}

}  // namespace zcav::zones
