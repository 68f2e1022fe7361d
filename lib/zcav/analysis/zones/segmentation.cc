// Zone detector, step 3: the exact penalised segmentation of the
// normalised log rates (FPOP), and the driver of steps 3 and 4 on one curve.
// In: the cleaned log rates, their centre and a noise unit. Out: the prefix
// sums of the normalised curve and the ends of its merged segments.
//
//  3. Segmentation: the exact minimiser of  sum over segments of the
//     Gaussian mean-change cost -(sum z)^2 / length  plus  beta per change
//     on z = (log rate - median) / sigma, with segments >= m blocks. This is
//     the optimal partitioning problem that PELT solves (Killick, Fearnhead &
//     Eckley 2012, "Optimal detection of changepoints with a linear
//     computational cost", JASA 107); costs come from prefix sums in O(1), the
//     constant sum of z^2 dropped. PELT's inequality pruning cannot discard
//     any candidate inside a homogeneous stretch (every split of it looks
//     fine), so 20 zones over 10^6 blocks keep ~25,000 candidates alive: O(N^2
//     / K). FPOP's functional pruning (Maidstone, Hocking, Rigaill & Fearnhead
//     2017, "On optimal multiple changepoint algorithms for large data",
//     Statistics and Computing 27) returns the same optimum keeping ~12 here;
//     checked against brute-force optimal partitioning on thousands of random
//     curves. beta = 3 ln N * sensitivity: BIC would be 2 ln N for a mean and a
//     location per change (Yao 1988, Statist. Probab. Lett. 6); the top of the
//     issue's 2-3 ln N leaves room for noise that is not quite white or
//     Gaussian. A step of delta (in sigma) between segments of La and Lb
//     blocks is kept when delta^2 La Lb / (La + Lb) > beta, i.e. at sqrt(beta)
//     = 4-6 standard errors. m = max(3, 0.2 % of N): 3 so that a zone is never
//     one or two blocks (those are outliers), 0.2 % so that large curves are
//     not searched for zones nobody can see on a plot.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "zcav/analysis/zones/stages.h"

namespace zcav::zones {
namespace {

// Exact penalised segmentation of z (prefix sums `s`, s[0] = 0) with
// penalty `beta` and minimum segment length `m`, by FPOP. Returns the segment
// ends (the last one is N).
//
// G[tau] = F'(tau) + beta, where F'(t) is the optimal cost of z[0..t) minus
// the constant sum of z^2. A candidate last change tau, seen as a function of
// the current segment's mean mu, costs
//   q_tau(mu) = G[tau] - 2 (s[t] - s[tau]) mu + (t - tau) mu^2,
// and the pieces below record, for each interval of mu, which candidate is
// cheapest there. A candidate that is cheapest nowhere stays dominated for
// ever (every candidate adds the same (z_i - mu)^2 from now on) and is
// dropped. Candidate t - m joins at time t (minimum length m), so every piece
// belongs to an admissible candidate.
std::vector<std::size_t> Fpop(const std::vector<double>& s, double beta, std::size_t m) {
  const std::size_t n = s.size() - 1;
  if (m == 0 || n < 2 * m) return {n};
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> g(n + 1, inf);
  std::vector<std::size_t> last(n + 1, 0);
  g[0] = 0;  // F'(0) = -beta
  // A segment's mean lies within the range of the data: mu outside it never
  // matters, and a finite domain lets the test below skip most square roots.
  double lo_z = inf, hi_z = -inf;
  for (std::size_t i = 0; i < n; ++i) {
    lo_z = std::min(lo_z, s[i + 1] - s[i]);
    hi_z = std::max(hi_z, s[i + 1] - s[i]);
  }
  lo_z -= 1;
  hi_z += 1;
  struct Piece {
    double lo, hi;
    std::size_t tau;
    double s_tau, g_tau;  // s[tau], g[tau], kept here to avoid scattered loads
  };
  std::vector<Piece> pieces{{lo_z, hi_z, 0, s[0], g[0]}}, next;
  auto emit = [&next](double lo, double hi, const Piece& owner) {
    if (!(lo < hi)) return;
    if (!next.empty() && next.back().tau == owner.tau) {
      next.back().hi = hi;
    } else {
      next.push_back({lo, hi, owner.tau, owner.s_tau, owner.g_tau});
    }
  };
  const double md = static_cast<double>(m);
  for (std::size_t t = m; t <= n; ++t) {
    const std::size_t fresh = t - m;
    const double st = s[t];
    if (fresh >= m) {
      // min(current pieces, q_fresh): q_fresh - q_tau is a concave parabola
      // (leading coefficient m - (t - tau) < 0), so the newcomer wins outside
      // its two roots, and nowhere on a piece where it loses at both ends.
      next.clear();
      const Piece newcomer{0, 0, fresh, s[fresh], g[fresh]};
      const double b_fresh = st - s[fresh];
      for (const Piece& p : pieces) {
        const double qa = md - static_cast<double>(t - p.tau);
        const double qb = b_fresh - (st - p.s_tau);
        const double qc = g[fresh] - p.g_tau;
        if (qc + p.lo * (qa * p.lo - 2 * qb) >= 0 && qc + p.hi * (qa * p.hi - 2 * qb) >= 0) {
          emit(p.lo, p.hi, p);
          continue;
        }
        const double disc = qb * qb - qa * qc;
        if (disc <= 0) {
          emit(p.lo, p.hi, newcomer);
          continue;
        }
        const double root = std::sqrt(disc);
        const double q = qb + (qb >= 0 ? root : -root);  // stable roots q/a, c/q
        double r1 = q / qa;
        double r2 = q != 0 ? qc / q : r1;
        if (r1 > r2) std::swap(r1, r2);
        emit(p.lo, std::min(p.hi, r1), newcomer);
        emit(std::max(p.lo, r1), std::min(p.hi, r2), p);
        emit(std::max(p.lo, r2), p.hi, newcomer);
      }
      pieces.swap(next);
    }
    double best = inf;
    std::size_t best_tau = 0;
    for (const Piece& p : pieces) {
      const double a = static_cast<double>(t - p.tau);
      const double b = st - p.s_tau;
      const double mu = std::clamp(b / a, p.lo, p.hi);
      const double v = p.g_tau + mu * (a * mu - 2 * b);
      if (v < best) {
        best = v;
        best_tau = p.tau;
      }
    }
    g[t] = best + beta;
    last[t] = best_tau;
  }
  std::vector<std::size_t> ends;
  for (std::size_t t = n; t > 0; t = last[t]) ends.push_back(t);
  std::reverse(ends.begin(), ends.end());
  return ends;
}

}  // namespace

std::size_t MinZoneLength(const ZoneOptions& options, std::size_t n) {
  return options.min_zone_blocks > 0
             ? static_cast<std::size_t>(options.min_zone_blocks)
             : std::max<std::size_t>(kZoneTuning.min_zone_blocks_floor,
                                     static_cast<std::size_t>(std::ceil(
                                         kZoneTuning.min_zone_fraction * static_cast<double>(n))));
}

// 3. and 4. on the curve normalised by `noise`: fills sums_ and sum_z2_,
// returns the ends of the merged segments.
std::vector<std::size_t> ZoneFinder::Segment(double noise) {
  sum_z2_ = 0;
  for (std::size_t i = 0; i < n_; ++i) {
    const double z = (y_[i] - center_) / noise;
    sums_.s[i + 1] = sums_.s[i] + z;
    sums_.sj[i + 1] = sums_.sj[i] + static_cast<double>(i) * z;
    sum_z2_ += z * z;
  }
  if (!StageRuns(Stage::kMerging)) return Fpop(sums_.s, beta_, min_len_);
  return MergeSegments({sums_, noise, sensitivity_, beta_, visible_rel_},
                       Fpop(sums_.s, beta_, min_len_));
}

void ZoneFinder::SegmentAndMerge() {
  // e. of 4.: on a device that does not rotate, steps inside the jitter band
  // (3 robust sigmas of the curve around its local level, at least 5 %) are
  // texture unless the evidence is twice the usual: no platter makes small
  // steps there, and its jitter (a host, a controller) is rarely white.
  visible_rel_ = options_.non_rotational
                     ? std::max(kZoneTuning.min_excursion_rel,
                                kZoneTuning.visible_sigmas * std::max(run_scale_, sigma_))
                     : 0.0;

  // 3. and 4. Segment the normalised curve, merge.
  beta_ = kZoneTuning.penalty_per_log_n * std::log(std::max<double>(static_cast<double>(n_), 2.0)) *
          sensitivity_;
  out().penalty = beta_;
  sums_.s.assign(n_ + 1, 0);
  sums_.sj.assign(n_ + 1, 0);
  ends_ = Segment(sigma_);
  // Dense staircases (zones of a few blocks) put steps into a good share of
  // the first differences and inflate their MAD: estimate again from the
  // differences inside the segments found, and segment again if it moved.
  // (Steps in under 2 % of the differences cannot move the MAD by 10 %.)
  const double inner_sigma = static_cast<double>(ends_.size()) >= 0.02 * static_cast<double>(n_)
                                 ? NoiseSigmaInside(y_, ends_)
                                 : sigma_;
  if (StageRuns(Stage::kResegment) && inner_sigma < kZoneTuning.resegment_sigma_ratio * sigma_) {
    sigma_ = inner_sigma;
    out().noise_sigma_mb_per_s = sigma_ * std::max(median_rate_, 0.0);
    ends_ = Segment(sigma_);
  }
}

}  // namespace zcav::zones
