// Zone detector, steps 1 and 1b: the noise scale of the log rates, and
// how much the noise's serial correlation widens it for the segmentation.
// In: the curve's rates (1.), then the segment ends of 3. and 4. (1b.). Out:
// the log rates, their centre and noise scale sigma; the noise's correlation
// and the segmentation's unit (the long-run sigma), the curve segmented again.
//
//  1. Noise scale. sigma = 1.4826 * MAD(first differences) / sqrt(2): the
//     differences of a piecewise-constant curve are noise except at the few
//     steps and outliers, which the median absolute deviation ignores; 1.4826
//     makes the MAD a consistent estimate of a Gaussian standard deviation
//     and a difference has sqrt(2) times the noise of a sample. Floored at
//     0.1 % so a perfectly quantised or noise-free curve does not give sigma
//     = 0 (infinite evidence for every rounding step); 0.1 % is well below the
//     smallest step reported (0.5 %, see 4.). A dense staircase (zones of a
//     few blocks) puts steps into a good share of the differences and
//     inflates the MAD, so after a first segmentation sigma is estimated
//     again from the differences inside the segments, and if that is > 10 %
//     lower the curve is segmented again with it.
// 1b. Correlated noise. SSDs, NVMe drives and virtual disks jitter in runs
//     (a host cache, a controller's background work): neighbouring blocks
//     are alike, the first differences are small, and the sigma of 1. then
//     understates how far a mean over many blocks wanders, so a white-noise
//     penalty calls the wander zones (a flat AR(1) curve with phi 0.8 gave
//     dozens). The remedy of AR1Seg (Chakar, Lebarbier, Levy-Leduc &
//     Robin 2017, Bernoulli 23) and of long-run-variance CUSUM tests: model
//     the noise as AR(1), estimate phi robustly, and measure steps in units
//     of the long-run sigma, sigma_lr^2 = sigma^2 (1 + phi) / (1 - phi)^2
//     (sigma from the differences, as in 1.). phi is the lag-1
//     autocorrelation of the residuals from each segment's least-squares
//     line (a droop or a CAV rise is a slope, not wander), winsorised at 3
//     robust sigmas, pairs inside one segment only, plus 2 standard errors
//     (1 / sqrt(pairs)): what the noise may be, not only what it looks like,
//     since a short curve cannot rule out a wander that fakes its steps. It
//     is used when the inflation exceeds 1.5; segments cut into a wander hide
//     part of it, so the estimate is repeated on the longer segments it
//     gives (up to 4 rounds, while it grows by 10 %). White noise leaves
//     phi near 0 on long curves, so clean staircases segment as before.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {
namespace {

// The lag-1 autocorrelation of the residuals of `x` from the lines of the
// segments ending at `ends` (pairs inside one segment only; residuals
// winsorised at 3 robust sigmas so that a heavy tail does not decide it),
// kept only when it clears 3 of its standard errors, 1 / sqrt(pairs).
Correlation EstimateCorrelation(const std::vector<double>& x,
                                const std::vector<std::size_t>& ends) {
  Correlation c;
  std::vector<double> r(x.size());
  std::size_t begin = 0;
  for (const std::size_t end : ends) {
    // Residuals from the segment's least-squares line: a slope (a droop, a
    // smooth CAV rise cut into segments) is not wander.
    const double len = static_cast<double>(end - begin);
    const double ubar = (len - 1) / 2;
    double mean = 0, suz = 0;
    for (std::size_t i = begin; i < end; ++i) mean += x[i];
    mean /= len;
    for (std::size_t i = begin; i < end; ++i) {
      suz += (static_cast<double>(i - begin) - ubar) * (x[i] - mean);
    }
    const double suu = len * (len * len - 1) / 12;
    const double slope = suu > 0 ? suz / suu : 0;
    for (std::size_t i = begin; i < end; ++i) {
      r[i] = x[i] - mean - slope * (static_cast<double>(i - begin) - ubar);
    }
    begin = end;
  }
  std::vector<double> abs_r(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) abs_r[i] = std::fabs(r[i]);
  if (abs_r.size() < kZoneTuning.min_correlation_points) return c;
  const double limit = kZoneTuning.winsor_sigmas * kMadToSigma * MedianInPlace(abs_r);
  // Residuals of a hundredth of the sigma floor are rounding (a noise-free
  // staircase), not noise: all of one sign, they would read as a strong
  // correlation and inflate sigma until real steps merged.
  if (!(limit > 0.01 * kZoneTuning.sigma_floor_rel)) return c;
  for (double& v : r) v = std::clamp(v, -limit, limit);
  double num = 0, den = 0;
  std::size_t pairs = 0;
  begin = 0;
  for (const std::size_t end : ends) {
    for (std::size_t i = begin; i < end; ++i) {
      den += r[i] * r[i];
      if (i + 1 < end) {
        num += r[i] * r[i + 1];
        ++pairs;
      }
    }
    begin = end;
  }
  if (pairs < kZoneTuning.min_correlation_points || !(den > 0)) return c;
  // What the noise may be, not just what it looks like: the estimate plus
  // two standard errors (a short curve cannot rule out a wander that would
  // fake its steps).
  const double standard_error = 1 / std::sqrt(static_cast<double>(pairs));
  c.measured = num / den;
  c.significant = c.measured > kZoneTuning.significant_std_errors * standard_error;
  c.phi = std::clamp(c.measured + kZoneTuning.correlation_std_errors * standard_error, 0.0,
                     kZoneTuning.max_phi);
  c.inflation = (1 + c.phi) / ((1 - c.phi) * (1 - c.phi));
  return c;
}

}  // namespace

double NoiseSigma(const std::vector<double>& x) {
  const double floor = kZoneTuning.sigma_floor_rel;
  if (x.size() < 3) return floor;
  std::vector<double> d(x.size() - 1);
  for (std::size_t i = 0; i + 1 < x.size(); ++i) d[i] = x[i + 1] - x[i];
  const double med = MedianInPlace(d);
  for (double& v : d) v = std::fabs(v - med);
  const double mad = MedianInPlace(d);
  return std::max(kMadToSigma * mad / std::sqrt(2.0), floor);
}

double NoiseSigmaInside(const std::vector<double>& x, const std::vector<std::size_t>& ends) {
  std::vector<double> d;
  d.reserve(x.size());
  std::size_t begin = 0;
  for (const std::size_t end : ends) {
    for (std::size_t i = begin; i + 1 < end; ++i) d.push_back(x[i + 1] - x[i]);
    begin = end;
  }
  if (d.size() < 2) return kZoneTuning.sigma_floor_rel;
  const double med = MedianInPlace(d);
  for (double& v : d) v = std::fabs(v - med);
  return std::max(kMadToSigma * MedianInPlace(d) / std::sqrt(2.0), kZoneTuning.sigma_floor_rel);
}

// 1. Log rates (a block that read nothing sits far below, as an outlier)
// and their noise scale.
void ZoneFinder::TakeLogsAndNoise() {
  y_.resize(n_);
  for (std::size_t i = 0; i < n_; ++i) y_[i] = curve_.mb_per_s(i);
  {
    std::vector<double> tmp = y_;
    median_rate_ = MedianInPlace(tmp);
  }
  rate_floor_ = median_rate_ > 0 ? kZoneTuning.rate_floor_rel * median_rate_ : 1e-9;
  for (double& v : y_) v = std::log(std::max(v, rate_floor_));
  center_ = std::log(std::max(median_rate_, rate_floor_));
  sigma_ = NoiseSigma(y_);
  out().noise_sigma_mb_per_s = sigma_ * std::max(median_rate_, 0.0);

  min_len_ = MinZoneLength(options_, n_);
  out().min_zone_blocks = min_len_;
}

// 1b. Correlated noise (wander): measured inside the segments found, the
// segmentation's unit becomes the long-run sigma. Segments cut into the
// wander hide part of it (the differences across their ends are left
// out), so the estimate is repeated on the longer segments it gives
// until it stops growing.
void ZoneFinder::AllowForCorrelatedNoise() {
  Correlation& corr = corr_;
  seg_sigma_ = sigma_;
  for (int round = 0; round < kZoneTuning.correlation_rounds; ++round) {
    const Correlation next = EstimateCorrelation(y_, ends_);
    if (round == 0) corr.measured = next.measured;
    if (!StageRuns(Stage::kCorrelatedNoise)) break;
    if (!(next.inflation > kZoneTuning.correlated_inflation) ||
        !(next.inflation > kZoneTuning.correlation_growth * corr.inflation)) {
      break;
    }
    corr = next;
    seg_sigma_ = sigma_ * std::sqrt(corr.inflation);
    ends_ = Segment(seg_sigma_);
  }
  out().texture.lag1_autocorrelation = corr.measured;
  out().texture.variance_inflation = corr.inflation;
  out().texture.correlated = corr.significant && corr.inflation > kZoneTuning.correlated_inflation;
}

}  // namespace zcav::zones
