// The stages of the zone detector (analysis/zone_detector.h) and what they
// share: their tuning (kZoneTuning, tuning.h), the marks of the points, the
// prefix sums of a segmentation, the excursions set aside as texture, the
// smooth fits, and ZoneFinder, the state of steps 1 to 5 on one curve. One
// file per stage in this folder; zone_detector.cc holds the driver and lists
// the steps, each stage's file opens with its step's method and reasons.
// Internal to the detector: included only by zone_detector.cc and zones/.
//
// The order the stages run in (DetectZones, zone_detector.cc):
//   Resolution, GroupPoints (resolution.cc): the points the steps run on.
//   DetectPoints on them: over kMaxDetailPoints, DetectZonesReduced
//   (long_curves.cc, the same steps on bucket medians); else ZoneFinder::Run:
//     1.  TakeLogsAndNoise                 noise.cc
//     2b. SetAsideShortRuns                texture.cc
//     2.  MarkOutliers                     outliers.cc
//     3., 4. SegmentAndMerge               segmentation.cc, merging.cc
//     1b. AllowForCorrelatedNoise          noise.cc
//     4c. MergeExcursions                  merging.cc
//         SummariseTexture                 texture.cc
//         MakeZones                        summary.cc
//     5.  Classify (FitSmoothZones)        classification.cc
//         MeasureJitter (stepped curves)   texture.cc
//   then 6. Summarise (summary.cc) with Describe (description.cc). Last,
//   on ungrouped points, ZonesOfEnvelope (envelope.cc) for alternating bands.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/analysis/zones/ablation.h"
#include "zcav/analysis/zones/tuning.h"
#include "zcav/result/curve.h"

namespace zcav::zones {

// The thresholds and constants of every stage: kZoneTuning (tuning.h).

inline constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

// What a point is to the zone statistics and the segmentation.
enum class Mark : std::uint8_t {
  kNormal,
  kOutlier,
  kStraddle,  // reads partly in one zone and partly in the next
  kDip,       // inside a short dip below the level around it (texture)
  kBurst,     // inside a short burst above the level around it (texture)
};

// ---- 1. and 1b. Noise (noise.cc)

// Robust noise scale of the log rates `x` (1.), floored at kZoneTuning.sigma_floor_rel.
double NoiseSigma(const std::vector<double>& x);
// The same over the differences inside the segments ending at `ends`.
double NoiseSigmaInside(const std::vector<double>& x, const std::vector<std::size_t>& ends);

// Serial correlation of the noise, as an AR(1) model (1b.), and
// the variance inflation of a long mean over the white-noise sigma that the
// lag-1 differences give.
struct Correlation {
  double phi = 0;            // what the noise may be: the estimate plus 2 standard errors
  double inflation = 1;      // (1 + phi) / (1 - phi)^2, >= 1
  double measured = 0;       // the estimate itself
  bool significant = false;  // the estimate clears 3 standard errors: the noise IS correlated
};

// ---- 2. Outliers (outliers.cc)

// Hampel filter on the log rates `y` (2.), and the blocks that straddle a
// zone edge. Marks them and replaces their values in `y` by the median of the
// normal blocks on the side nearer to their value; runs of at most `max_run`
// flagged blocks are outliers. Fewer than 5 blocks: all normal, `y` as it was.
std::vector<Mark> CleanCurve(std::vector<double>& y, double sigma, std::size_t max_run);

// ---- 3. Segmentation (segmentation.cc)

// Sums over the sigma-normalised curve, for O(1) segment statistics.
struct PrefixSums {
  std::vector<double> s;   // s[i] = sum of z[0..i)
  std::vector<double> sj;  // sj[i] = sum of j * z[j] for j < i

  double Sum(std::size_t b, std::size_t e) const { return s[e] - s[b]; }
  double Mean(std::size_t b, std::size_t e) const { return Sum(b, e) / static_cast<double>(e - b); }
  // Least-squares line over [b, e) in local coordinates u = j - b; returns
  // its value at u (which may lie outside the segment).
  double LineAt(std::size_t b, std::size_t e, double u) const {
    const double n = static_cast<double>(e - b);
    const double ubar = (n - 1) / 2;
    const double suu = n * (n * n - 1) / 12;  // sum of (u - ubar)^2
    const double slope = suu > 0 ? CenteredUz(b, e) / suu : 0;
    return Sum(b, e) / n + slope * (u - ubar);
  }
  // The median of z over [b, e), from the differences of s: for short
  // segments (the cost is their length).
  double Median(std::size_t b, std::size_t e) const {
    std::vector<double> z(e - b);
    for (std::size_t i = b; i < e; ++i) z[i - b] = s[i + 1] - s[i];
    const std::size_t mid = z.size() / 2;
    std::nth_element(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(mid), z.end());
    if (z.size() % 2 == 1) return z[mid];
    const double upper = z[mid];
    return (upper + *std::max_element(z.begin(), z.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  }
  // Sum of (u - ubar) z over [b, e).
  double CenteredUz(std::size_t b, std::size_t e) const {
    const double n = static_cast<double>(e - b);
    const double sz = Sum(b, e);
    const double suz = (sj[e] - sj[b]) - static_cast<double>(b) * sz;
    return suz - (n - 1) / 2 * sz;
  }
};

// The shortest zone, in points: the given length, or a share of the curve.
std::size_t MinZoneLength(const ZoneOptions& options, std::size_t n);

// ---- 4. Merging (merging.cc)

// What MergeScore reads: the sums of the last segmentation, its noise unit
// and thresholds.
struct MergeContext {
  const PrefixSums& sums;
  double sigma;  // of the log rates
  double sensitivity;
  double beta;
  // e. (devices known not to rotate): a step under this relative size,
  // inside the jitter a person sees, needs twice the usual evidence; 0 = off.
  double visible_rel = 0;
};

// Merges adjacent segments (4.); returns the surviving boundaries as segment
// ends.
std::vector<std::size_t> MergeSegments(const MergeContext& ctx,
                                       const std::vector<std::size_t>& ends);

// ---- 2b. Texture (texture.cc) and 4c. excursions (merging.cc)

// A short segment below (a dip) or above (a burst) two longer neighbours
// that sit at one level (4c.). Log units.
struct Excursion {
  std::size_t begin = 0, end = 0;
  bool dip = true;
  double depth = 0;  // relative distance from the neighbours' level
  double level = 0;  // the neighbours' level, in the units of `sums` times `unit`
};

// Runs of 3 to `max_len` blocks off the level around them that the curve
// comes back from (2b.): too short to be segmented as zones, too long to be
// outliers. The level is a median of chunk medians over about 4 max_len
// blocks either side, so a run cannot move it. Returns the runs (`level`: the two sides' mean
// level, log units) and the robust scale of the curve around that level (`scale`, log units).
std::vector<Excursion> FindShortRuns(const std::vector<double>& y, const std::vector<Mark>& marks,
                                     std::size_t max_len, double& scale);
// Segments (ending at `ends`, over `sums` whose unit is `unit` log units) of
// at most 5 % of the n points and at most half as long as either neighbour,
// off both by >= kZoneTuning.merge_rel_high, whose neighbours sit at one level (4c.).
std::vector<Excursion> FindExcursions(const PrefixSums& sums, double unit,
                                      const std::vector<std::size_t>& ends, std::size_t n);

// ---- 5. Classification (classification.cc)

// rate^2 fits on x = (i + 0.5) / N, in units of (rate / scale)^2.
struct SmoothFit {
  bool ok = false;
  double a = 0;          // intercept of the rising part
  double b = 0;          // slope of the rising part
  std::size_t knee = 0;  // first block of the flat part (N when none)
  double flat = 0;       // level of the flat part
  double ssr = 0;        // residual sum of squares of the log rates
  double scale = 1;

  double RateAt(std::size_t i, std::size_t n) const {
    if (i >= knee) return scale * std::sqrt(std::max(flat, 0.0));
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    return scale * std::sqrt(std::max(a + b * x, 0.0));
  }
};

// The steps between adjacent zones, for the classification (see 5.).
struct StepCounts {
  std::size_t ups = 0, downs = 0, turns = 0;  // turns: changes of direction
  std::vector<double> rel_steps;              // |step| / the higher of the two levels
  double steps = 0;                           // zones - 1
  bool rising = false;                        // >= 70 % up, last > first
  bool falling = false;                       // >= 70 % down, last < first
};

// The type a curve's steps give it (the smooth fits aside): `zones` over
// a curve of n points; `dips`: recurring dips were described.
struct StepType {
  CurveType type = CurveType::kOther;
  bool alternating = false;
  // One level without dips, or rising steps: a smooth fit may explain the
  // curve better (SmoothWins decides).
  bool may_be_smooth = false;
};

// The type of the stepped curve `zones` over n points (5.); `dips`:
// recurring dips were described.
StepType TypeOfSteps(const std::vector<Zone>& zones, std::size_t n, bool optical,
                     bool non_rotational, bool dips);

// ---- 6. Summary (summary.cc) and its words (description.cc)

// The zone [first, end) of `curve`, its statistics over the normal points
// (over all of them when none is normal). `scratch`: reused storage.
Zone MakeZone(const Curve& curve, const std::vector<Mark>& marks, std::size_t first,
              std::size_t end, std::vector<double>& scratch);
// 6. and the description, for the zones in `out` over `curve`.
// REQUIRES: !out.zones.empty().
void Summarise(const Curve& curve, const SmoothFit& smooth, ZoneAnalysis& out);
// The description of `out` (a curve of n points; the figures of 6. set).
void Describe(std::size_t n, const SmoothFit& smooth, ZoneAnalysis& out);
// What DetectZones adds to the description of zones found on groups of k
// points (ZoneAnalysis::resolution_blocks).
std::string DescribeResolution(std::size_t k);
// What ZonesOfEnvelope adds to the envelope's description: bands of
// `amplitude_rel` every `period` points (a fast and a slow band).
std::string DescribeBands(double amplitude_rel, std::size_t period);

// ---- Steps 1 to 5 on one curve (Run in zone_detector.cc, the steps in the
// stages' files)

// What steps 1 to 5 find on a curve: the analysis without its summary, the
// smooth fit (cav, pcav) and each point's mark.
struct Found {
  ZoneAnalysis out;
  SmoothFit smooth;
  std::vector<Mark> marks;
};

// Steps 1 to 5 on every point of one curve, one member per step, in the
// order Run() calls them; the state the steps share (the log rates, the
// noise scale, the prefix sums, the segment ends) lives here for one call.
class ZoneFinder {
 public:
  // REQUIRES: !curve.empty(); `curve` and `options` outlive the finder.
  ZoneFinder(const Curve& curve, const ZoneOptions& options, bool optical)
      : curve_(curve),
        options_(options),
        optical_(optical),
        n_(curve.size()),
        sensitivity_(options.sensitivity > 0 ? options.sensitivity : 1.0) {}

  Found Run() &&;

 private:
  ZoneAnalysis& out() { return found_.out; }

  void TakeLogsAndNoise();                                 // 1. noise.cc
  void SetAsideShortRuns();                                // 2b. texture.cc
  void MarkOutliers();                                     // 2. outliers.cc
  void SetAside(const std::vector<Excursion>& found_now);  // 2b. texture.cc
  std::vector<std::size_t> Segment(double noise);          // 3. and 4. segmentation.cc
  void SegmentAndMerge();                                  // 3. and 4. segmentation.cc
  void AllowForCorrelatedNoise();                          // 1b. noise.cc
  void MergeExcursions();                                  // 4c. merging.cc
  void SummariseTexture();                                 // texture.cc
  void MakeZones();                                        // summary.cc
  void Classify();                                         // 5. classification.cc
  bool SmoothWins(const StepCounts& c);                    // 5. classification.cc
  void FitSmoothZones();                                   // 5. classification.cc
  void MeasureJitter();                                    // texture.cc

  const Curve& curve_;
  const ZoneOptions& options_;
  const bool optical_;
  const std::size_t n_;
  const double sensitivity_;
  Found found_;

  // 1.: the log rates (cleaned and levelled in place by 2. and 2b.), their
  // median and floor in MB/s, their centre (log median) and noise scale.
  std::vector<double> y_;
  double median_rate_ = 0;
  double rate_floor_ = 0;
  double center_ = 0;
  double sigma_ = 0;
  std::size_t min_len_ = 0;

  // 2b.: the excursions set aside, and the curve's robust scale
  // around its local level.
  std::vector<Excursion> excursions_;
  double run_scale_ = 0;

  // 3. and 4.: the merge threshold e., the penalty, the prefix sums of the
  // last segmentation, its sum of z^2 and its segment ends.
  double visible_rel_ = 0;
  double beta_ = 0;
  PrefixSums sums_;
  double sum_z2_ = 0;
  std::vector<std::size_t> ends_;

  // 1b.: the noise's correlation and the unit of the final segmentation
  // (and of sums_).
  Correlation corr_;
  double seg_sigma_ = 0;

  std::vector<Zone> zones_;
  std::vector<double> scratch_;  // for MakeZone
};

// Steps 1 to 5 on every point of `curve` (zone_detector.cc).
// REQUIRES: !curve.empty().
Found FindZones(const Curve& curve, const ZoneOptions& options, bool optical);
// Steps 1 to 6 on the points of `curve`, the long way (long_curves.cc) over
// kMaxDetailPoints (zone_detector.cc). REQUIRES: !curve.empty().
ZoneAnalysis DetectPoints(const Curve& curve, const ZoneOptions& options, bool optical);

// ---- 7. Long curves (long_curves.cc)

// A curve longer than kMaxDetailPoints (see the header): the outlier filter
// on every point, FindZones on the bucket medians, the zones' edges refined
// to the point, their statistics and the summary on every point again.
ZoneAnalysis DetectZonesReduced(const Curve& curve, const ZoneOptions& options, bool optical);

// ---- Resolution (resolution.cc): the blocks per point zones are found on

// Consecutive groups of k points merged into one: their bytes over their
// summed time (the rate of reading the group), spread from the lowest min to
// the highest max.
Curve GroupPoints(const Curve& curve, std::size_t k);
// The group size that makes per-point figures trustworthy (see
// ZoneAnalysis::resolution_blocks): at least the blur the reads in flight
// cause, then doubled while the groups still scatter like timing noise,
// keeping at least kZoneTuning.min_resolved_points points.
std::size_t Resolution(const Curve& curve, const ZoneOptions& options);

// ---- Alternating bands (envelope.cc)

// Alternating bands (5.): the zones a person sees are the envelope's. When
// `out` is alternating, its zones are found again on groups of one period
// each and `out` becomes that analysis, the bands its texture.
void ZonesOfEnvelope(const Curve& curve, const ZoneOptions& options, bool optical,
                     ZoneAnalysis& out);

}  // namespace zcav::zones
