// Zone detector, step 2b.: the texture of a curve, dips and
// bursts it comes back from, set aside before the segmentation sees them;
// the texture's figures and the jitter of the zones found.
// In: the log rates (2b.), the zones (jitter). Out: the excursions, their points marked dip or
// burst and given the level around them; ZoneAnalysis::texture and its dip and burst blocks.
//
// 2b. Dips and bursts (texture). Before the outlier filter, runs of 3 to
//     L = min(64, max(8, m - 1)) blocks that sit off the level around them
//     (a median of chunk medians over about 4 L blocks either side) by
//     more than max(5 %, 5 robust sigmas of the curve around that level),
//     and whose two sides (L blocks each) agree, are dips (below) or bursts
//     (above): SSD garbage collection, a host answering from its cache. A
//     run at either end counts when at least two like it (same way, depth
//     within 2x) lie inside. Their blocks are marked (left out of the zone
//     statistics like outliers) and take the level around them, so the
//     segmentation never sees them. 5 % and 5 sigmas: a person reading the
//     plot sees such a dip, and a wander's bumps (AR(1) noise of 3 %) do not
//     reach it.
// 4b. (removed: longer dips and bursts, set aside after the segmentation;
//     it changed no zone table of any corpus, docs/zone-detector.md)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {
std::vector<Excursion> FindShortRuns(const std::vector<double>& y, const std::vector<Mark>& marks,
                                     std::size_t max_len, double& scale) {
  const std::size_t n = y.size();
  std::vector<Excursion> found, at_ends;
  scale = 0;
  if (max_len < kZoneTuning.max_outlier_run + 1 || n < 8 * max_len) return found;
  const std::size_t chunk = std::max<std::size_t>(1, max_len / 2);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::vector<double> chunk_median(chunks), window;
  for (std::size_t j = 0; j < chunks; ++j) {
    window.assign(y.begin() + static_cast<std::ptrdiff_t>(j * chunk),
                  y.begin() + static_cast<std::ptrdiff_t>(std::min(n, (j + 1) * chunk)));
    chunk_median[j] = MedianInPlace(window);
  }
  constexpr std::size_t kSide =
      kZoneTuning.short_run_side_chunks;  // chunks either side: 4 max_len blocks
  std::vector<double> level(chunks);
  for (std::size_t j = 0; j < chunks; ++j) {
    std::size_t lo = j > kSide ? j - kSide : 0;
    const std::size_t hi = std::min(chunks, lo + 2 * kSide + 1);
    lo = hi > 2 * kSide + 1 ? hi - (2 * kSide + 1) : 0;
    window.assign(chunk_median.begin() + static_cast<std::ptrdiff_t>(lo),
                  chunk_median.begin() + static_cast<std::ptrdiff_t>(hi));
    level[j] = MedianInPlace(window);
  }
  std::vector<double> dev(n);
  for (std::size_t i = 0; i < n; ++i) dev[i] = y[i] - level[i / chunk];
  window.resize(n);
  for (std::size_t i = 0; i < n; ++i) window[i] = std::fabs(dev[i]);
  scale = kMadToSigma * MedianInPlace(window);
  const double threshold = std::max(kZoneTuning.min_excursion_rel, kZoneTuning.run_sigmas * scale);
  auto median_of = [&](std::size_t lo, std::size_t hi) {
    window.assign(y.begin() + static_cast<std::ptrdiff_t>(lo),
                  y.begin() + static_cast<std::ptrdiff_t>(hi));
    return MedianInPlace(window);
  };
  for (std::size_t i = 0; i < n;) {
    if (!(std::fabs(dev[i]) > threshold) || marks[i] != Mark::kNormal) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && dev[j] * dev[i] > 0 && std::fabs(dev[j]) > threshold / 2) ++j;
    const std::size_t len = j - i;
    if (len > kZoneTuning.max_outlier_run && len <= max_len) {
      const bool has_left = i >= max_len, has_right = j + max_len <= n;
      const double left = has_left ? median_of(i - max_len, i) : 0;
      const double right = has_right ? median_of(j, j + max_len) : 0;
      const double mid = median_of(i, j);
      const double base = has_left && has_right ? (left + right) / 2 : has_left ? left : right;
      const Excursion x{i, j, mid < base, 1 - std::exp(-std::fabs(mid - base)), base};
      if (has_left && has_right) {
        if (std::fabs(left - right) <= threshold / 2 && std::fabs(mid - base) > threshold) {
          found.push_back(x);
        }
      } else if ((has_left || has_right) && std::fabs(mid - base) > threshold) {
        at_ends.push_back(x);
      }
    }
    i = j;
  }
  // A run at either end cannot be seen to come back; it is texture when the
  // curve has at least two like it inside (same way, depth within 2x).
  std::vector<double> depths;
  for (const Excursion& x : found) depths.push_back(x.depth);
  if (depths.size() >= 2) {
    const double typical = MedianInPlace(depths);
    std::size_t dips = 0;
    for (const Excursion& x : found) dips += x.dip;
    for (const Excursion& x : at_ends) {
      const std::size_t same_way = x.dip ? dips : found.size() - dips;
      if (same_way >= 2 && x.depth >= typical / 2 && x.depth <= 2 * typical) found.push_back(x);
    }
  }
  return found;
}

std::vector<Excursion> FindExcursions(const PrefixSums& sums, double unit,
                                      const std::vector<std::size_t>& ends, std::size_t n) {
  std::vector<Excursion> found;
  const std::size_t max_len = std::max<std::size_t>(
      1, static_cast<std::size_t>(kZoneTuning.max_excursion_fraction * static_cast<double>(n)));
  for (std::size_t k = 1; k + 1 < ends.size(); ++k) {
    const std::size_t b0 = k >= 2 ? ends[k - 2] : 0, b = ends[k - 1], e = ends[k], e1 = ends[k + 1];
    const std::size_t len = e - b;
    if (len > max_len || 2 * len > b - b0 || 2 * len > e1 - e) continue;
    const double left = sums.Mean(b0, b) * unit;
    const double mid = sums.Mean(b, e) * unit;
    const double right = sums.Mean(e, e1) * unit;
    const double d_left = left - mid, d_right = right - mid;
    if (!(d_left * d_right > 0)) continue;  // a step, not an excursion
    const double depth = std::min(std::fabs(d_left), std::fabs(d_right));
    if (depth < kZoneTuning.merge_rel_high) continue;
    // The neighbours sit at one level: the curve comes back.
    if (std::fabs(left - right) >
        std::max(kZoneTuning.merge_rel_high, kZoneTuning.excursion_level_match * depth))
      continue;
    found.push_back(
        {b, e, d_left > 0, 1 - std::exp(-std::fabs(d_left + d_right) / 2), (left + right) / 2});
  }
  return found;
}

// 2b. Texture: dips and bursts the curve comes back from are marked (left
// out of the zone statistics, like outliers) and given the level around
// them, so the segmentation never sees them. Runs too short to be zones
// first (the longer ones of 4b. are gone, see above). The marks
// start here, every point normal.
void ZoneFinder::SetAsideShortRuns() {
  found_.marks.assign(n_, Mark::kNormal);
  {
    const std::vector<Mark> none(n_, Mark::kNormal);
    std::vector<Excursion> runs = FindShortRuns(
        y_, none,
        std::min(kZoneTuning.max_short_run,
                 std::max(kZoneTuning.min_short_run, min_len_ > 0 ? min_len_ - 1 : 0)),
        run_scale_);
    for (Excursion& x : runs) x.level -= center_;  // relative to the centre, as SetAside wants
    if (StageRuns(Stage::kShortRuns)) SetAside(runs);
  }
}

// Marks the blocks of `found_now` as dips or bursts, gives them the level
// around them (relative to the centre) and records the excursions (2b.).
void ZoneFinder::SetAside(const std::vector<Excursion>& found_now) {
  for (const Excursion& x : found_now) {
    for (std::size_t i = x.begin; i < x.end; ++i) {
      if (found_.marks[i] == Mark::kNormal) found_.marks[i] = x.dip ? Mark::kDip : Mark::kBurst;
      y_[i] = center_ + x.level;
    }
    excursions_.push_back(x);
  }
}

// The texture's figures.
void ZoneFinder::SummariseTexture() {
  if (excursions_.empty()) return;
  Texture& texture = out().texture;
  std::sort(excursions_.begin(), excursions_.end(),
            [](const Excursion& p, const Excursion& q) { return p.begin < q.begin; });
  std::vector<double> depths, gaps;
  std::size_t dip_blocks = 0, burst_blocks = 0, previous_dip = kNone;
  for (const Excursion& x : excursions_) {
    if (x.dip) {
      ++texture.dip_count;
      dip_blocks += x.end - x.begin;
      depths.push_back(x.depth);
      if (previous_dip != kNone) gaps.push_back(static_cast<double>(x.begin - previous_dip));
      previous_dip = x.begin;
    } else {
      ++texture.burst_count;
      burst_blocks += x.end - x.begin;
    }
  }
  texture.dip_share = static_cast<double>(dip_blocks) / static_cast<double>(n_);
  texture.burst_share = static_cast<double>(burst_blocks) / static_cast<double>(n_);
  if (!depths.empty()) texture.dip_depth_rel = MedianInPlace(depths);
  if (gaps.size() >= 2) texture.dip_period_blocks = MedianInPlace(gaps);
  for (std::size_t i = 0; i < n_; ++i) {
    if (found_.marks[i] == Mark::kDip) out().dip_blocks.push_back(i);
    if (found_.marks[i] == Mark::kBurst) out().burst_blocks.push_back(i);
  }
}

// Jitter: each normal block against its zone's median (a smooth fit's
// zones are wide, so this is only the spread of stepped curves).
// REQUIRES: out().zones set, the type neither cav nor pcav.
void ZoneFinder::MeasureJitter() {
  std::vector<double> ratios;
  ratios.reserve(n_);
  for (const Zone& z : out().zones) {
    if (!(z.mb_per_s > 0)) continue;
    for (std::size_t i = z.first_block; i < z.end_block; ++i) {
      if (found_.marks[i] == Mark::kNormal) ratios.push_back(curve_.mb_per_s(i) / z.mb_per_s);
    }
  }
  if (ratios.size() >= 2) {
    std::sort(ratios.begin(), ratios.end());
    const auto at = [&ratios](double q) {
      return ratios[static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1))];
    };
    out().texture.jitter_p5_rel = at(kZoneTuning.jitter_low);
    out().texture.jitter_p95_rel = at(kZoneTuning.jitter_high);
  }
}

}  // namespace zcav::zones
