// Zone detector, step 5: the type of a curve, from its steps or from a
// smooth fit (cav, pcav) that explains it better.
// In: the zones of the segmentation, the log rates and their sums. Out: the
// curve's type (alternating or not) and, for cav and pcav, the smooth fit,
// its zones and figures.
//
//  5. Classification (x = position in [0, 1], K = zones after merging):
//     - K = 1: flat (clv when optical; flat-dips with dips), unless a smooth
//       fit beats one level (a short CAV curve left whole by 1b.).
//     - K = 2 on a device known not to rotate, the first zone >= 1.2x the
//       second: tiered (a cache, then the device's own rate).
//     - >= 70 % of the steps rising and last > first: a smooth fit competes
//       with the steps by a BIC-like cost, SSR / sigma^2 + beta per change:
//       cav fits rate^2 = a + b x (constant angular velocity: rate ~ radius,
//       position ~ radius^2), counted as one change; pcav fits rate^2 = a + b
//       min(x, knee) (CAV up to the drive's top speed, then flat), two
//       changes, the knee searched over 1024 positions. The smooth fit also
//       wins when >= 8 zones have a median step < 2 % (a smooth curve cut in
//       pieces, whatever its exact shape). Otherwise zclv (rising steps) on
//       optical media, other elsewhere.
//     - >= 70 % falling, last < first: zoned, unless clipped: the first zone
//       is the fastest, covers >= 15 % of the curve, >= 2 zones follow, and a
//       length-weighted least-squares line rate^2 = a + b x through the later
//       zones (rate^2 is linear in position on a naturally zoned disk) puts
//       the middle of the first zone >= 12 % above its measured level: the
//       outer zones sit under a ceiling. Natural disks with a long first zone
//       stay below (HP C2247A, 33 % of the disk: 8 %; Seagate ST41601N, 34 %:
//       4.5 %); sim:usb2-hdd, 60 -> 30 MB/s capped at 35: 42 %.
//     - Alternating: >= 6 zones, >= 2 steps each way, the direction changing
//       at >= 60 % of the steps: per-head zoning. The zones are kept as found,
//       `alternating` is set, and the type is zoned when the trend falls.
//     - Anything else: other.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "zcav/analysis/zones/stages.h"
#include "zcav/base/stats.h"

namespace zcav::zones {
namespace {

struct LineSums {
  double n = 0, sx = 0, sxx = 0, su = 0, suu = 0, sxu = 0;
  void Add(double x, double u) {
    n += 1;
    sx += x;
    sxx += x * x;
    su += u;
    suu += u * u;
    sxu += x * u;
  }
  void Add(const LineSums& o) {
    n += o.n, sx += o.sx, sxx += o.sxx, su += o.su, suu += o.suu, sxu += o.sxu;
  }
  LineSums Minus(const LineSums& o) const {
    return {n - o.n, sx - o.sx, sxx - o.sxx, su - o.su, suu - o.suu, sxu - o.sxu};
  }
  double Slope() const {
    const double vxx = sxx - sx * sx / n;
    return vxx > 0 ? (sxu - sx * su / n) / vxx : 0;
  }
  double Intercept() const { return (su - Slope() * sx) / n; }
  double LineSsr() const {
    const double vxx = sxx - sx * sx / n;
    const double vxu = sxu - sx * su / n;
    return std::max(0.0, suu - su * su / n - (vxx > 0 ? vxu * vxu / vxx : 0));
  }
  double FlatSsr() const { return std::max(0.0, suu - su * su / n); }
};

// Residual sum of squares of the log rates `ly` around the fit.
double FitSsr(const SmoothFit& fit, const std::vector<double>& ly, double rate_floor) {
  double ssr = 0;
  for (std::size_t i = 0; i < ly.size(); ++i) {
    const double r = ly[i] - std::log(std::max(fit.RateAt(i, ly.size()), rate_floor));
    ssr += r * r;
  }
  return ssr;
}

// rate^2 = a + b x over the whole curve (`ly`: log rates).
SmoothFit FitCav(const std::vector<double>& ly, double scale, double rate_floor) {
  const std::size_t n = ly.size();
  LineSums sums;
  for (std::size_t i = 0; i < n; ++i) {
    const double u = std::exp(2 * ly[i]) / (scale * scale);
    sums.Add((static_cast<double>(i) + 0.5) / static_cast<double>(n), u);
  }
  SmoothFit fit;
  fit.scale = scale;
  fit.b = sums.Slope();
  fit.a = sums.Intercept();
  fit.knee = n;
  fit.ok = fit.b > 0;
  fit.ssr = FitSsr(fit, ly, rate_floor);
  return fit;
}

// rate^2 = a + b min(x, knee): a CAV rise up to the knee, then flat at the
// rate reached there (the drive's top speed). The knee is searched on a grid
// of kZoneTuning.knee_bins positions; for each, the model is linear in a and b.
SmoothFit FitPcav(const std::vector<double>& ly, double scale, double rate_floor) {
  const std::size_t n = ly.size();
  const std::size_t bins = std::min(n, kZoneTuning.knee_bins);
  std::vector<LineSums> bin(bins);
  auto bin_start = [&](std::size_t k) { return k * n / bins; };
  for (std::size_t k = 0; k < bins; ++k) {
    for (std::size_t i = bin_start(k); i < bin_start(k + 1); ++i) {
      const double u = std::exp(2 * ly[i]) / (scale * scale);
      bin[k].Add((static_cast<double>(i) + 0.5) / static_cast<double>(n), u);
    }
  }
  LineSums total;
  for (const auto& s : bin) total.Add(s);
  SmoothFit best;
  best.scale = scale;
  double best_ssr = std::numeric_limits<double>::infinity();
  const double min_side =
      std::max(kZoneTuning.min_knee_side_fraction * static_cast<double>(n), 3.0);
  LineSums left;
  for (std::size_t k = 1; k < bins; ++k) {
    left.Add(bin[k - 1]);
    const LineSums right = total.Minus(left);
    if (left.n < min_side || right.n < min_side) continue;
    // Regress u on g = min(x, knee): left points keep x, right ones get knee.
    const double knee = static_cast<double>(bin_start(k)) / static_cast<double>(n);
    LineSums g = left;
    g.n += right.n;
    g.sx += right.n * knee;
    g.sxx += right.n * knee * knee;
    g.su += right.su;
    g.suu += right.suu;
    g.sxu += knee * right.su;
    const double ssr = g.LineSsr();
    if (ssr < best_ssr) {
      best_ssr = ssr;
      best.a = g.Intercept();
      best.b = g.Slope();
      best.knee = bin_start(k);
      best.flat = best.a + best.b * knee;
    }
  }
  if (!std::isfinite(best_ssr)) return best;
  best.ok = best.b > 0;
  best.ssr = FitSsr(best, ly, rate_floor);
  return best;
}

// How far above the first zone the trend of the later zones puts it (see 5.),
// as a fraction of the first zone's level; 0 when there is no falling trend.
double CeilingExcess(const std::vector<Zone>& zones, std::size_t n) {
  if (zones.size() < 3) return 0;
  LineSums sums;
  const double total = static_cast<double>(n);
  for (std::size_t k = 1; k < zones.size(); ++k) {
    const double len = static_cast<double>(zones[k].end_block - zones[k].first_block);
    const double x = (static_cast<double>(zones[k].first_block) + len / 2) / total;
    const double u = zones[k].mb_per_s * zones[k].mb_per_s;
    // Weighted by length: len copies of the point.
    sums.n += len;
    sums.sx += len * x;
    sums.sxx += len * x * x;
    sums.su += len * u;
    sums.suu += len * u * u;
    sums.sxu += len * x * u;
  }
  const double b = sums.Slope();
  if (!(b < 0)) return 0;
  const double a = sums.Intercept();
  const double x0 = (static_cast<double>(zones[0].end_block) / 2) / total;
  const double predicted = std::sqrt(std::max(a + b * x0, 0.0));
  return zones[0].mb_per_s > 0 ? predicted / zones[0].mb_per_s - 1 : 0;
}

StepCounts CountSteps(const std::vector<Zone>& zones) {
  StepCounts c;
  const std::size_t nz = zones.size();
  for (std::size_t k = 0; k + 1 < nz; ++k) {
    const double d = zones[k + 1].mb_per_s - zones[k].mb_per_s;
    (d > 0 ? c.ups : c.downs)++;
    const double level = std::max(zones[k].mb_per_s, zones[k + 1].mb_per_s);
    c.rel_steps.push_back(level > 0 ? std::fabs(d) / level : 0);
    if (k > 0) {
      const double prev = zones[k].mb_per_s - zones[k - 1].mb_per_s;
      if ((prev > 0) != (d > 0)) ++c.turns;
    }
  }
  c.steps = static_cast<double>(nz > 0 ? nz - 1 : 0);
  c.rising = nz > 1 && static_cast<double>(c.ups) >= kZoneTuning.mostly_directional * c.steps &&
             zones.back().mb_per_s > zones.front().mb_per_s;
  c.falling = nz > 1 && static_cast<double>(c.downs) >= kZoneTuning.mostly_directional * c.steps &&
              zones.back().mb_per_s < zones.front().mb_per_s;
  return c;
}

// A falling curve whose outer zones sit under a ceiling (see 5.): the first
// zone is the fastest, covers >= 15 % of the curve, and the later zones'
// trend puts it >= 12 % above its measured level.
bool IsClipped(const std::vector<Zone>& zones, std::size_t n) {
  double fastest = 0;
  for (std::size_t k = 1; k < zones.size(); ++k) fastest = std::max(fastest, zones[k].mb_per_s);
  const double first_share = static_cast<double>(zones[0].end_block) / static_cast<double>(n);
  return zones[0].mb_per_s >= fastest && first_share >= kZoneTuning.clip_min_first_fraction &&
         CeilingExcess(zones, n) >= kZoneTuning.clip_min_excess;
}

}  // namespace

StepType TypeOfSteps(const std::vector<Zone>& zones, std::size_t n, bool optical,
                     bool non_rotational, bool dips) {
  StepType t;
  const std::size_t nz = zones.size();
  const StepCounts c = CountSteps(zones);
  t.alternating = nz >= kZoneTuning.alternating_min_zones && c.ups >= 2 && c.downs >= 2 &&
                  static_cast<double>(c.turns) >= kZoneTuning.alternating_fraction * (c.steps - 1);
  if (nz == 1) {
    // A rise that the long-run noise unit left in one segment may still be
    // a smooth curve (a short CAV disc).
    t.may_be_smooth = !dips;
    t.type = optical ? CurveType::kClv : dips ? CurveType::kFlatDips : CurveType::kFlat;
  } else if (nz == 2 && non_rotational && StageRuns(Stage::kTiered) &&
             zones[0].mb_per_s >= kZoneTuning.tier_ratio * zones[1].mb_per_s) {
    t.type = CurveType::kTiered;
  } else if (c.rising && !t.alternating) {
    // Rising steps are an optical drive's zoned CLV; elsewhere (a disk warming
    // its cache, a host) they are no known shape.
    t.may_be_smooth = true;
    t.type = optical ? CurveType::kZclv : CurveType::kOther;
  } else if (c.falling || (t.alternating && zones.back().mb_per_s < zones.front().mb_per_s)) {
    t.type = !t.alternating && StageRuns(Stage::kClipped) && IsClipped(zones, n)
                 ? CurveType::kClipped
                 : CurveType::kZoned;
  }
  return t;
}

// 5. Classify.
void ZoneFinder::Classify() {
  ZoneAnalysis& out = found_.out;
  const StepType t =
      TypeOfSteps(zones_, n_, optical_, options_.non_rotational, out.texture.dip_count > 0);
  out.alternating = t.alternating;
  if (t.may_be_smooth && StageRuns(Stage::kSmoothFits) && SmoothWins(CountSteps(zones_))) return;
  out.type = t.type;
}

// A smooth rise (cav, pcav) against the steps found, by a BIC-like cost
// (see 5.); true when the smooth fit wins and is stored in found_.smooth.
bool ZoneFinder::SmoothWins(const StepCounts& c) {
  const std::size_t nz = zones_.size();
  const double scale = std::max(median_rate_, rate_floor_);
  const SmoothFit cav = FitCav(y_, scale, rate_floor_);
  const SmoothFit pcav = FitPcav(y_, scale, rate_floor_);
  // Steps: SSR of the zone means; one beta per change.
  double explained = 0;
  for (std::size_t k = 0; k < nz; ++k) {
    const double s = sums_.Sum(zones_[k].first_block, zones_[k].end_block);
    explained += s * s / static_cast<double>(zones_[k].end_block - zones_[k].first_block);
  }
  const double s2 = seg_sigma_ * seg_sigma_;  // fits' SSR are of log rates too
  const double inf = std::numeric_limits<double>::infinity();
  const double cost_steps = (sum_z2_ - explained) + beta_ * c.steps;
  const double cost_cav = cav.ok ? cav.ssr / s2 + beta_ : inf;
  const double cost_pcav = pcav.ok ? pcav.ssr / s2 + 2 * beta_ : inf;
  std::vector<double> sorted_steps = c.rel_steps;
  const bool many_small_steps = nz >= kZoneTuning.many_small_steps_zones &&
                                MedianInPlace(sorted_steps) < kZoneTuning.small_step_rel;
  const double cost_smooth = std::min(cost_cav, cost_pcav);
  if (!std::isfinite(cost_smooth) || !(cost_smooth < cost_steps || many_small_steps)) {
    return false;
  }
  found_.smooth = cost_pcav < cost_cav ? pcav : cav;
  out().type = cost_pcav < cost_cav ? CurveType::kPcav : CurveType::kCav;
  return true;
}

// A smooth curve's zones (one, or a pcav's rise and its flat part) and
// its fit. REQUIRES: the type is cav or pcav.
void ZoneFinder::FitSmoothZones() {
  const std::size_t n = n_;
  const SmoothFit& smooth = found_.smooth;
  std::vector<std::size_t> cuts{0, smooth.knee, n};
  if (out().type == CurveType::kCav || smooth.knee >= n) cuts = {0, n};
  zones_.clear();
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    zones_.push_back(MakeZone(curve_, found_.marks, cuts[k], cuts[k + 1], scratch_));
  }
  out().fit_start_mb_per_s = smooth.RateAt(0, n);
  out().fit_end_mb_per_s = smooth.RateAt(n - 1, n);
  // R^2 in MB/s over the cleaned curve.
  double mean = 0;
  for (const double v : y_) mean += std::exp(v);
  mean /= static_cast<double>(n);
  double sst = 0, ssr = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = std::exp(y_[i]);
    sst += (v - mean) * (v - mean);
    ssr += (v - smooth.RateAt(i, n)) * (v - smooth.RateAt(i, n));
  }
  out().fit_r2 = sst > 0 ? 1 - ssr / sst : 0;
}

}  // namespace zcav::zones
