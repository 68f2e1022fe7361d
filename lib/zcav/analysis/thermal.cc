#include "zcav/analysis/thermal.h"

#include <algorithm>

#include "zcav/base/stats.h"
#include "zcav/base/units.h"

namespace zcav {

namespace {

constexpr std::size_t kMaxDropsPerPass = 3;
// Points whose drop is within 5 % of the deepest belong to the same step.
constexpr double kPlateau = 0.95;

// Merges `b` (read after `a`) into `a`.
void Merge(RateStretch& a, const RateStretch& b) {
  if (a.length_bytes == 0) {
    a = b;
    return;
  }
  a.length_bytes = b.offset_bytes + b.length_bytes - a.offset_bytes;
  a.read_seconds += b.read_seconds;
}

// The median rate of stretches [from, to) of `s`.
double MedianRate(const std::vector<RateStretch>& s, std::size_t from, std::size_t to) {
  std::vector<double> rates;
  for (std::size_t i = from; i < to; ++i) {
    if (s[i].read_seconds > 0) rates.push_back(s[i].MbPerS());
  }
  return MedianInPlace(rates);
}

// The median rate of the stretches of `s` whose middle lies in [lo, hi),
// and how many there were.
std::pair<double, std::size_t> MedianRateIn(const std::vector<RateStretch>& s, std::uint64_t lo,
                                            std::uint64_t hi) {
  std::vector<double> rates;
  for (const RateStretch& x : s) {
    const std::uint64_t middle = x.offset_bytes + x.length_bytes / 2;
    if (middle >= lo && middle < hi && x.read_seconds > 0) rates.push_back(x.MbPerS());
  }
  return {MedianInPlace(rates), rates.size()};
}

// 1 - after / before; 0 when before is 0.
double DropShare(double before, double after) { return before > 0 ? 1 - after / before : 0; }

class Finder {
 public:
  Finder(const std::vector<std::vector<RateStretch>>& passes,
         const std::vector<TemperatureReading>& readings)
      : passes_(passes), readings_(readings) {}

  std::vector<ThermalDrop> Run() {
    std::vector<ThermalDrop> drops;
    for (std::size_t p = 0; p < passes_.size(); ++p) {
      for (ThermalDrop& d : InPass(p)) drops.push_back(d);
    }
    std::sort(drops.begin(), drops.end(),
              [](const ThermalDrop& a, const ThermalDrop& b) { return a.seconds < b.seconds; });
    return drops;
  }

 private:
  // The pass's drops, deepest first, at most kMaxDropsPerPass.
  std::vector<ThermalDrop> InPass(std::size_t p) {
    const std::vector<RateStretch>& s = passes_[p];
    const std::size_t n = s.size();
    const std::size_t w = std::max<std::size_t>(3, std::min<std::size_t>(64, n / 20));
    std::vector<ThermalDrop> drops;
    if (n < 2 * w) return drops;
    std::vector<double> share(n, 0);
    std::vector<double> before(n, 0), after(n, 0);
    for (std::size_t i = w; i + w <= n; ++i) {
      before[i] = MedianRate(s, i - w, i);
      after[i] = MedianRate(s, i, i + w);
      share[i] = DropShare(before[i], after[i]);
    }
    std::vector<bool> used(n, false);
    while (drops.size() < kMaxDropsPerPass) {
      std::size_t best = n;
      for (std::size_t i = w; i + w <= n; ++i) {
        if (!used[i] && share[i] >= kThermalDropShare && (best == n || share[i] > share[best])) {
          best = i;
        }
      }
      if (best == n) break;
      // Medians over windows make a plateau of about 2w points around a
      // clean step: its middle is where the rate fell.
      std::size_t lo = best, hi = best;
      while (lo > w && !used[lo - 1] && share[lo - 1] >= kPlateau * share[best]) --lo;
      while (hi + 1 + w <= n && !used[hi + 1] && share[hi + 1] >= kPlateau * share[best]) ++hi;
      best = (lo + hi + 1) / 2;
      for (std::size_t i = best >= w ? best - w : 0; i < std::min(n, best + w); ++i) used[i] = true;
      ThermalDrop d;
      d.pass = static_cast<std::uint32_t>(p);
      d.offset_bytes = s[best].offset_bytes;
      d.seconds = s[best].seconds;
      d.before_mb_per_s = before[best];
      d.after_mb_per_s = after[best];
      if (!Warmed(s, best, w, d) || !TimeEffect(p, s, best, w, d)) continue;
      drops.push_back(d);
    }
    return drops;
  }

  // Fills from_c and to_c; true when the drive warmed by kThermalRiseC.
  bool Warmed(const std::vector<RateStretch>& s, std::size_t i, std::size_t w,
              ThermalDrop& d) const {
    const double window_start = s[i - w].seconds;
    const RateStretch& last = s[i + w - 1];
    const double window_end = last.seconds + last.read_seconds;
    std::optional<double> coolest, hottest, last_before;
    for (const TemperatureReading& r : readings_) {
      if (r.seconds <= d.seconds) {
        coolest = std::min(coolest.value_or(r.celsius), r.celsius);
        last_before = r.celsius;
      }
      if (r.seconds >= window_start && r.seconds <= window_end) {
        hottest = std::max(hottest.value_or(r.celsius), r.celsius);
      }
    }
    if (!hottest) hottest = last_before;
    if (!coolest || !hottest) return false;
    d.from_c = *coolest;
    d.to_c = *hottest;
    return d.to_c - d.from_c >= kThermalRiseC;
  }

  // Sets time_effect from the other passes; false when one of them drops at
  // the same positions too (a zone edge).
  bool TimeEffect(std::size_t p, const std::vector<RateStretch>& s, std::size_t i, std::size_t w,
                  ThermalDrop& d) const {
    const std::uint64_t lo = s[i - w].offset_bytes;
    const std::uint64_t mid = s[i].offset_bytes;
    const std::uint64_t hi = s[i + w - 1].offset_bytes + s[i + w - 1].length_bytes;
    if (!(lo < mid && mid < hi)) return true;  // not read in position order: cannot tell
    for (std::size_t q = 0; q < passes_.size(); ++q) {
      if (q == p) continue;
      const auto [b, nb] = MedianRateIn(passes_[q], lo, mid);
      const auto [a, na] = MedianRateIn(passes_[q], mid, hi);
      if (nb < 2 || na < 2) continue;
      if (DropShare(b, a) >= DropShare(d.before_mb_per_s, d.after_mb_per_s) / 2) return false;
      d.time_effect = true;
    }
    return true;
  }

  const std::vector<std::vector<RateStretch>>& passes_;
  const std::vector<TemperatureReading>& readings_;
};

}  // namespace

double RateStretch::MbPerS() const {
  return read_seconds > 0 ? static_cast<double>(length_bytes) / read_seconds / kMB : 0;
}

void RateTimeline::Add(std::uint32_t pass, double seconds, std::uint64_t offset_bytes,
                       std::uint64_t length_bytes, double read_seconds) {
  if (pass >= passes_.size()) passes_.resize(pass + 1);
  Pass& p = passes_[pass];
  Merge(p.pending, {seconds, offset_bytes, length_bytes, read_seconds});
  if (++p.pending_samples < p.per_stretch) return;
  p.done.push_back(p.pending);
  p.pending = {};
  p.pending_samples = 0;
  if (p.done.size() < kMaxStretches) return;
  // Full: neighbours in pairs, and twice as many samples a stretch from now.
  for (std::size_t i = 0; i < p.done.size() / 2; ++i) {
    RateStretch merged = p.done[2 * i];
    Merge(merged, p.done[2 * i + 1]);
    p.done[i] = merged;
  }
  p.done.resize(p.done.size() / 2);
  p.per_stretch *= 2;
}

std::vector<std::vector<RateStretch>> RateTimeline::Passes() const {
  std::vector<std::vector<RateStretch>> out;
  for (const Pass& p : passes_) {
    out.push_back(p.done);
    if (p.pending_samples > 0) out.back().push_back(p.pending);
  }
  return out;
}

std::vector<ThermalDrop> FindThermalDrops(const std::vector<std::vector<RateStretch>>& passes,
                                          const std::vector<TemperatureReading>& readings) {
  if (readings.empty()) return {};
  return Finder(passes, readings).Run();
}

}  // namespace zcav
